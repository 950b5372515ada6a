"""NoteWriter contract suite (files and Local REST API), file atomicity and refusals, REST errors, AutoWriter."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import httpx
import pytest

from core.errors import EditConflict, InvalidRequest, NotFound, UpstreamUnavailable
from core.ports import NoteWriter
from core.settings import Settings
from edits.writers import AutoWriter, DenylistGuard, build_writer
from edits.writers.files import FileVaultWriter
from edits.writers.rest import LocalRestApiWriter
from tests.edit_fakes import InMemoryNoteWriter
from tests.integration.local_rest_mock import LocalRestMock, error
from tests.obsidian_standin import obsidian_standin

KEY = "a" * 64
# `.trash/<note>` is readable (see the trash test below); nothing else under a dot folder is.
REFUSED_PATHS = ["../x.md", "/etc/passwd", ".obsidian/app.json", "a/../../x.md", "a\\b.md", "a//b.md", ".trash/.git/x"]
IDEA = "# Idea\r\nCafé notes\r\n"


def run(coro):  # noqa: ANN001, ANN201
    return asyncio.run(coro)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Inbox").mkdir(parents=True)
    (root / "Inbox" / "Idea.md").write_bytes(b"# Idea\r\nCaf\xc3\xa9 notes\r\n")
    return root


@contextmanager
def open_writer(kind: str, vault: Path) -> Iterator[NoteWriter]:
    """Open the writer `kind` over `vault` ("memory" holds only Inbox/Idea.md and sees no files)."""
    if kind == "files":
        yield FileVaultWriter(vault)
    elif kind == "memory":
        yield InMemoryNoteWriter({"Inbox/Idea.md": IDEA})
    else:
        with obsidian_standin(vault, api_key=KEY) as base_url:
            yield LocalRestApiWriter(base_url, KEY)


@pytest.fixture(params=["files", "rest"])
def writer(request: pytest.FixtureRequest, vault: Path) -> Iterator[NoteWriter]:
    with open_writer(request.param, vault) as opened:
        yield opened


@pytest.fixture(params=["files", "rest", "memory"])
def any_writer(request: pytest.FixtureRequest, vault: Path) -> Iterator[NoteWriter]:
    """The real writers and the in-memory double, for contract tests that look only through the writer."""
    with open_writer(request.param, vault) as opened:
        yield opened


# -- the contract: the same behaviour from both writers ------------------------------------------------------


def test_read_returns_exact_text_or_none(writer: NoteWriter) -> None:
    assert run(writer.read("Inbox/Idea.md")) == "# Idea\r\nCafé notes\r\n"
    assert run(writer.read("Inbox/Missing.md")) is None


def test_write_creates_parents_and_replaces(writer: NoteWriter, vault: Path) -> None:
    run(writer.write("Projects/New folder/Plan ü.md", "# Plan\n"))
    assert (vault / "Projects" / "New folder" / "Plan ü.md").read_text(encoding="utf-8") == "# Plan\n"
    run(writer.write("Inbox/Idea.md", "replaced\n"))
    assert run(writer.read("Inbox/Idea.md")) == "replaced\n"


def test_delete_moves_to_trash_with_numbered_names_and_returns_them(writer: NoteWriter, vault: Path) -> None:
    assert run(writer.delete("Inbox/Idea.md")) == ".trash/Inbox/Idea.md"
    run(writer.write("Inbox/Idea.md", "second\n"))
    assert run(writer.delete("Inbox/Idea.md")) == ".trash/Inbox/Idea 1.md"
    assert not (vault / "Inbox" / "Idea.md").exists()
    assert (vault / ".trash" / "Inbox" / "Idea.md").read_bytes() == b"# Idea\r\nCaf\xc3\xa9 notes\r\n"
    assert (vault / ".trash" / "Inbox" / "Idea 1.md").read_text(encoding="utf-8") == "second\n"


def test_delete_of_missing_note_is_not_found(writer: NoteWriter) -> None:
    with pytest.raises(NotFound):
        run(writer.delete("Inbox/Missing.md"))


def test_move_renames_and_never_overwrites(writer: NoteWriter, vault: Path) -> None:
    run(writer.move("Inbox/Idea.md", "Archive/2024/Idea.md"))
    assert (vault / "Archive" / "2024" / "Idea.md").is_file()
    assert not (vault / "Inbox" / "Idea.md").exists()
    run(writer.write("Inbox/Other.md", "other\n"))
    with pytest.raises(EditConflict):
        run(writer.move("Inbox/Other.md", "Archive/2024/Idea.md"))
    assert (vault / "Inbox" / "Other.md").read_text(encoding="utf-8") == "other\n"
    with pytest.raises(NotFound):
        run(writer.move("Inbox/Missing.md", "Inbox/Elsewhere.md"))


@pytest.mark.parametrize("path", REFUSED_PATHS)
def test_unsafe_paths_are_refused_and_change_nothing(writer: NoteWriter, vault: Path, path: str) -> None:
    before = sorted(p.relative_to(vault.parent) for p in vault.parent.rglob("*"))
    for attempt in (
        writer.read(path),
        writer.write(path, "x"),
        writer.delete(path),
        writer.move("Inbox/Idea.md", path),
    ):
        with pytest.raises(InvalidRequest):
            run(attempt)
    assert sorted(p.relative_to(vault.parent) for p in vault.parent.rglob("*")) == before


def test_a_trashed_note_is_readable_and_moves_back_but_the_trash_is_never_written(any_writer: NoteWriter) -> None:
    trashed = run(any_writer.delete("Inbox/Idea.md"))
    assert run(any_writer.read(trashed)) == IDEA and run(any_writer.read("Inbox/Idea.md")) is None
    run(any_writer.write("Inbox/Other.md", "other\n"))
    for attempt in (
        any_writer.write(trashed, "x"),
        any_writer.write(".trash/New.md", "x"),
        any_writer.delete(trashed),
        any_writer.move("Inbox/Other.md", ".trash/Other.md"),
    ):
        with pytest.raises(InvalidRequest):
            run(attempt)

    run(any_writer.move(trashed, "Inbox/Idea.md"))

    assert run(any_writer.read("Inbox/Idea.md")) == IDEA and run(any_writer.read(trashed)) is None
    assert run(any_writer.read(".trash/Other.md")) is None and run(any_writer.read("Inbox/Other.md")) == "other\n"


def test_moving_a_note_out_of_the_trash_never_overwrites(any_writer: NoteWriter) -> None:
    trashed = run(any_writer.delete("Inbox/Idea.md"))
    run(any_writer.write("Inbox/Idea.md", "a new note\n"))
    with pytest.raises(EditConflict):
        run(any_writer.move(trashed, "Inbox/Idea.md"))
    assert run(any_writer.read("Inbox/Idea.md")) == "a new note\n" and run(any_writer.read(trashed)) == IDEA


# -- FileVaultWriter only -------------------------------------------------------------------------------------


def test_failed_write_leaves_the_original_and_no_temp_file(vault: Path) -> None:
    writer = FileVaultWriter(vault)
    failure = OSError(28, "No space left on device")
    with mock.patch("edits.writers.files.os.replace", side_effect=failure), pytest.raises(UpstreamUnavailable):
        run(writer.write("Inbox/Idea.md", "half-written\n"))
    assert (vault / "Inbox" / "Idea.md").read_bytes() == b"# Idea\r\nCaf\xc3\xa9 notes\r\n"
    assert sorted(p.name for p in (vault / "Inbox").iterdir()) == ["Idea.md"]


def test_write_keeps_permission_bits(vault: Path) -> None:
    note = vault / "Inbox" / "Idea.md"
    note.chmod(0o640)
    run(FileVaultWriter(vault).write("Inbox/Idea.md", "new\n"))
    assert note.stat().st_mode & 0o777 == 0o640
    run(FileVaultWriter(vault).write("Inbox/Fresh.md", "new\n"))
    assert (vault / "Inbox" / "Fresh.md").stat().st_mode & 0o777 == 0o644


def test_symlinked_folder_leading_outside_is_refused(vault: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret\n", encoding="utf-8")
    (vault / "Linked").symlink_to(outside, target_is_directory=True)
    writer = FileVaultWriter(vault)
    for attempt in (
        writer.read("Linked/secret.md"),
        writer.write("Linked/new.md", "x"),
        writer.delete("Linked/secret.md"),
    ):
        with pytest.raises(InvalidRequest, match="outside the vault"):
            run(attempt)
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]


def test_file_writer_is_unavailable_without_the_vault_folder(tmp_path: Path) -> None:
    assert run(FileVaultWriter(tmp_path / "missing").is_available()) is False


# -- LocalRestApiWriter only ----------------------------------------------------------------------------------


def rest_writer(server: LocalRestMock, key: str = KEY) -> LocalRestApiWriter:
    return LocalRestApiWriter("http://127.0.0.1:27123", key, transport=server.transport())


def test_rest_delete_numbers_trash_names_when_the_plugin_serves_hidden_files(vault: Path) -> None:
    writer = rest_writer(LocalRestMock(vault, KEY))
    run(writer.delete("Inbox/Idea.md"))
    run(writer.write("Inbox/Idea.md", "second\n"))
    run(writer.delete("Inbox/Idea.md"))
    assert (vault / ".trash" / "Inbox" / "Idea.md").read_bytes() == b"# Idea\r\nCaf\xc3\xa9 notes\r\n"
    assert (vault / ".trash" / "Inbox" / "Idea 1.md").read_text(encoding="utf-8") == "second\n"


def test_rest_brings_a_note_back_from_the_trash_by_copy_even_with_move(vault: Path) -> None:
    server = LocalRestMock(vault, KEY, version="4.1.7")
    writer = rest_writer(server)
    trashed = run(writer.delete("Inbox/Idea.md"))
    sent_before = len(server.requests)

    run(writer.move(trashed, "Inbox/Idea.md"))

    # MOVE renames through Obsidian's file index, which leaves `.trash/` out: GET the copy, PUT it, DELETE it.
    assert [r.method for r in server.requests[sent_before:]] == ["GET", "GET", "PUT", "DELETE"]
    assert (vault / "Inbox" / "Idea.md").read_bytes() == b"# Idea\r\nCaf\xc3\xa9 notes\r\n"
    assert not (vault / ".trash" / "Inbox" / "Idea.md").exists()


def test_wrong_key_names_obsidian_api_key(vault: Path) -> None:
    writer = rest_writer(LocalRestMock(vault, KEY), key="b" * 64)
    with pytest.raises(UpstreamUnavailable, match="OBSIDIAN_API_KEY"):
        run(writer.read("Inbox/Idea.md"))
    assert run(writer.is_available()) is False


def test_closed_obsidian_is_a_clear_read_only_message(vault: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on: a real "connection refused" on 127.0.0.1
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    writer = LocalRestApiWriter(f"http://127.0.0.1:{port}", KEY)
    with pytest.raises(UpstreamUnavailable, match="Obsidian is not running.*read-only"):
        run(writer.write("Inbox/Idea.md", "x"))
    assert run(writer.is_available()) is False


def test_server_side_traversal_refusal_is_invalid_request(vault: Path) -> None:
    server = LocalRestMock(vault, KEY)
    server.patch_reply = error(40021)
    with pytest.raises(InvalidRequest, match="path outside the vault"):
        run(
            rest_writer(server).patch(
                "Inbox/Idea.md", operation="append", target_type="heading", target="Idea", content="x"
            )
        )


def test_patch_sends_header_era_request_and_returns_the_document(vault: Path) -> None:
    server = LocalRestMock(vault, KEY)
    server.patch_reply = httpx.Response(200, content=b"# Idea\nmore\n")
    result = run(
        rest_writer(server).patch(
            "Inbox/Idea.md", operation="append", target_type="heading", target="Idea::Café/1", content="more\n"
        )
    )
    assert result == "# Idea\nmore\n"
    sent = server.requests[-1]
    assert sent.method == "PATCH" and sent.url.raw_path == b"/vault/Inbox/Idea.md"
    assert sent.headers["Content-Type"] == "text/markdown"
    assert sent.headers["Target"] == "Idea%3A%3ACaf%C3%A9%2F1"
    assert (sent.headers["Operation"], sent.headers["Target-Type"]) == ("append", "heading")
    assert sent.headers["Create-Target-If-Missing"] == "false" and sent.content == b"more\n"


def test_patch_on_missing_heading_explains_the_reason(vault: Path) -> None:
    writer = rest_writer(LocalRestMock(vault, KEY))
    with pytest.raises(InvalidRequest, match="heading/block was not found.*invalid-target"):
        run(writer.patch("Inbox/Idea.md", operation="replace", target_type="heading", target="Nope", content="x"))


def test_append_posts_text(vault: Path) -> None:
    run(rest_writer(LocalRestMock(vault, KEY)).append("Inbox/Idea.md", "- item\n"))
    assert (vault / "Inbox" / "Idea.md").read_bytes().endswith(b"notes\r\n- item\n")


@pytest.mark.parametrize(
    ("version", "methods"), [("4.1.7", ["GET", "MOVE"]), ("3.6.2", ["GET", "GET", "GET", "PUT", "DELETE"])]
)
def test_move_uses_the_move_method_from_4_1_and_copies_before(vault: Path, version: str, methods: list[str]) -> None:
    server = LocalRestMock(vault, KEY, version=version)
    run(rest_writer(server).move("Inbox/Idea.md", "Moved.md"))
    assert [r.method for r in server.requests] == methods
    assert (vault / "Moved.md").read_bytes() == b"# Idea\r\nCaf\xc3\xa9 notes\r\n" and not (
        vault / "Inbox" / "Idea.md"
    ).exists()


# -- AutoWriter and the factory -------------------------------------------------------------------------------


def test_auto_writer_follows_the_plugin_without_restart(vault: Path) -> None:
    server = LocalRestMock(vault, KEY)
    auto = AutoWriter(rest_writer(server), FileVaultWriter(vault))
    run(auto.write("Inbox/A.md", "via rest\n"))
    assert auto.name == "rest" and [r.method for r in server.requests][-1] == "PUT"
    server.is_online = False
    run(auto.write("Inbox/B.md", "via files\n"))
    assert auto.name == "files" and (vault / "Inbox" / "B.md").read_text(encoding="utf-8") == "via files\n"
    server.is_online = True
    run(auto.write("Inbox/C.md", "rest again\n"))
    assert auto.name == "rest" and server.requests[-1].url.path == "/vault/Inbox/C.md"
    assert run(auto.delete("Inbox/C.md")) == ".trash/Inbox/C.md" and auto.name == "rest"


@pytest.mark.parametrize(
    ("backend", "key", "expected"),
    [("none", None, type(None)), ("files", None, FileVaultWriter), ("rest", KEY, LocalRestApiWriter)]
    + [("auto", KEY, AutoWriter), ("auto", None, FileVaultWriter)],
)
def test_build_writer_follows_write_backend(vault: Path, tmp_path: Path, backend: str, key, expected) -> None:  # noqa: ANN001
    env = {"write_backend": backend, "obsidian_api_key": key, "vault_path": vault, "data_dir": tmp_path / "data"}
    settings = Settings(_env_file=None, **env)  # type: ignore[call-arg]
    built = build_writer(settings.writes, vault)
    assert built is None or isinstance(built, DenylistGuard)  # every writer built refuses the fixed denylist
    assert isinstance(built.inner if built else None, expected)


def test_rest_backend_without_a_key_fails_at_startup(vault: Path, tmp_path: Path) -> None:
    settings = Settings(_env_file=None, write_backend="rest", vault_path=vault, data_dir=tmp_path / "d")  # type: ignore[call-arg]
    with pytest.raises(InvalidRequest, match="OBSIDIAN_API_KEY"):
        build_writer(settings.writes, vault)


def test_vault_folder_permissions_decide_file_availability(vault: Path) -> None:
    assert run(FileVaultWriter(vault).is_available()) is (os.access(vault, os.W_OK))
