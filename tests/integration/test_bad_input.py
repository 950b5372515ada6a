"""Bad input: broken vault paths, unreadable, non-UTF-8 and huge notes, symlinks, overlapping dirs, store failures."""

from __future__ import annotations

import errno
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner, Result

from app.cli.main import cli
from app.wiring import Services, build_services
from core.domain import EmbeddedChunk
from core.errors import InvalidRequest, UpstreamUnavailable
from core.settings import Settings
from rag.notes import vault as vault_files
from rag.stores.edge import EdgeVectorStore
from sync import reindex
from tests.fakes import HashingEmbedder

SOURDOUGH = "Areas/Cooking/Sourdough.md"
runner = CliRunner()


@dataclass(frozen=True)
class IndexState:
    """Everything the index holds, per note: chunk keys, stored markdown hash, link sources, watermark."""

    chunks: dict[str, frozenset[str]]
    count: int
    docs: dict[str, str | None]
    links: set[str]
    marks: dict[str, tuple[str | None, str | None]]


def snapshot(services: Services) -> IndexState:
    docs = {path: services.docstore.get(path) for path in services.docstore.paths()}
    return IndexState(
        chunks={
            path: frozenset(services.store.embeddings_for_paths([path])) for path in services.store.indexed_paths()
        },
        count=services.store.count(),
        docs={path: doc.content_hash if doc else None for path, doc in docs.items()},
        links=services.links.sources(),
        marks={path: (mark.sha256, mark.last_error) for path, mark in services.watermarks.all().items()},
    )


def note_paths(vault: Path) -> set[str]:
    return {p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if not any(s.startswith(".") for s in p.parts)}


def invoke(vault: Path | str, data_dir: Path, *args: str) -> Result:
    # The autouse isolated_env fixture has already cleared every other setting and moved to tmp_path.
    env = {"VAULT_PATH": str(vault), "DATA_DIR": str(data_dir), "COLUMNS": "250"}
    return runner.invoke(cli, list(args), env=env)


def assert_exit(result: Result, code: int) -> None:
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


def assert_empty_index(services: Services) -> None:
    """Assert that nothing was written to the index: no model identity, points, docs, marks or run flag."""
    assert services.store.identity() is None
    assert services.store.count() == 0
    assert services.docstore.paths() == set()
    assert services.watermarks.all() == {}
    assert services.watermarks.get_meta(reindex.RUN_FLAG) is None


def assert_empty_index_in(data_dir: Path, vault: Path) -> None:
    settings = Settings(_env_file=None, vault_path=vault, data_dir=data_dir)
    services = build_services(settings, embedder=HashingEmbedder())
    try:
        assert_empty_index(services)
    finally:
        services.close()


def remove_vault(vault: Path) -> None:
    shutil.rmtree(vault)


def replace_vault_with_a_file(vault: Path) -> None:
    shutil.rmtree(vault)
    vault.write_text("# not a folder\n", encoding="utf-8")


def remove_every_note(vault: Path) -> None:
    for path in vault.rglob("*.md"):
        path.unlink()


BROKEN_VAULTS: dict[str, tuple[Callable[[Path], None], str]] = {
    "missing": (remove_vault, "the vault folder {vault} does not exist"),
    "a-file": (replace_vault_with_a_file, "the vault path {vault} is not a folder"),
    "no-notes": (remove_every_note, "no notes (*.md) found in the vault {vault}; is VAULT_PATH right?"),
}


@pytest.mark.parametrize("case", BROKEN_VAULTS)
def test_unusable_vault_is_refused_before_anything_is_written(services: Services, vault: Path, case: str) -> None:
    breaks, message = BROKEN_VAULTS[case]
    breaks(vault)

    with pytest.raises(InvalidRequest) as raised:
        services.reindexer.run_once()

    assert raised.value.message == message.format(vault=vault)
    assert_empty_index(services)


def test_vault_that_disappears_keeps_the_existing_index_instead_of_emptying_it(services: Services, vault: Path) -> None:
    services.reindexer.run_once()
    before = snapshot(services)
    remove_vault(vault)  # an unmounted drive looks like this: the index must not conclude every note was deleted

    with pytest.raises(InvalidRequest, match="does not exist"):
        services.reindexer.run_once()

    assert snapshot(services) == before


@pytest.mark.parametrize("case", BROKEN_VAULTS)
def test_cli_index_of_an_unusable_vault_exits_1_with_the_reason(vault: Path, tmp_path: Path, case: str) -> None:
    breaks, message = BROKEN_VAULTS[case]
    breaks(vault)

    result = invoke(vault, tmp_path / "data", "index")

    assert_exit(result, 1)
    assert f"error: {message.format(vault=vault)}" in " ".join(result.stderr.split())
    assert_empty_index_in(tmp_path / "data", vault)


def test_cli_error_messages_print_paths_with_brackets_verbatim(tmp_path: Path) -> None:
    vault = tmp_path / "[archive]" / "vault"  # rich would read "[archive]" as a style tag and drop it

    result = invoke(vault, tmp_path / "data", "index")

    assert_exit(result, 1)
    assert f"error: the vault folder {vault} does not exist" in result.stderr


@pytest.mark.parametrize("args", [["index", ""], ["index", "  "], ["status", "--vault", ""]], ids=str)
def test_cli_refuses_an_empty_vault_path_instead_of_using_the_current_folder(
    vault: Path, tmp_path: Path, args: list[str]
) -> None:
    (tmp_path / "Stray.md").write_text("# Stray\n\nA note in the current folder.\n", encoding="utf-8")

    result = invoke(vault, tmp_path / "data", *args)

    assert_exit(result, 1)
    assert "the vault path is empty" in result.stderr
    assert not (tmp_path / "data").exists()


def test_cli_refuses_an_empty_vault_path_setting(tmp_path: Path) -> None:
    (tmp_path / "Stray.md").write_text("# Stray\n\nA note in the current folder.\n", encoding="utf-8")

    result = invoke("", tmp_path.parent / f"{tmp_path.name}-data", "index")

    assert result.exit_code != 0
    assert "VAULT_PATH" in result.stderr and "empty" in result.stderr


@pytest.mark.parametrize("indexed_before", [False, True], ids=["new-note", "indexed-note"])
def test_unreadable_note_is_an_error_and_the_rest_is_indexed(
    services: Services, vault: Path, indexed_before: bool
) -> None:
    if indexed_before:
        services.reindexer.run_once()
        with (vault / SOURDOUGH).open("a", encoding="utf-8") as note:
            note.write("\nA new paragraph about wild yeast.\n")
    real_read = vault_files.read_note_text

    def read_or_refuse(root: Path, rel_path: str) -> tuple[bytes, str, list[str]]:
        if rel_path == SOURDOUGH:
            raise PermissionError(errno.EACCES, "Permission denied", str(root / rel_path))
        return real_read(root, rel_path)

    with mock.patch("sync.reindex_plan.read_note_text", side_effect=read_or_refuse):
        report = services.reindexer.run_once()

    assert report.errors == [(SOURDOUGH, "cannot read: Permission denied")]
    others = note_paths(vault) - {SOURDOUGH}
    assert services.store.indexed_paths() == others  # old chunks of the unreadable note are gone too
    assert services.docstore.paths() == others
    assert services.watermarks.all()[SOURDOUGH].last_error == "cannot read: Permission denied"
    hits = services.retriever.search("sourdough starter levain", k=20)
    assert hits and SOURDOUGH not in {hit.chunk.path for hit in hits}

    # Read access comes back (chmod leaves mtime and size alone): the next run retries the note.
    retried = services.reindexer.run_once()
    assert retried.errors == []
    assert SOURDOUGH in retried.added  # the failure had taken it out of the index, so it comes back as added
    assert SOURDOUGH in services.store.indexed_paths()
    assert services.watermarks.all()[SOURDOUGH].last_error is None


@pytest.mark.parametrize("prefix", [b"", b"\xef\xbb\xbf"], ids=["plain", "with-bom"])
def test_non_utf8_note_is_indexed_with_a_warning_naming_the_byte(
    services: Services, vault: Path, prefix: bytes
) -> None:
    data = prefix + b"# Harbour Cafe\n\nThe caf\xe9 by the harbour bakes zanzibar marzipan croissants.\n"
    (vault / "Inbox/Latin1.md").write_bytes(data)

    report = services.reindexer.run_once()

    offset = data.index(b"\xe9")
    warning = f"not valid UTF-8 (byte 0xe9 at offset {offset}); undecodable bytes were replaced"
    assert ("Inbox/Latin1.md", warning) in report.warnings
    assert "Inbox/Latin1.md" in report.added and report.errors == []
    top = services.retriever.search("zanzibar marzipan croissants", k=3)[0]
    assert top.chunk.path == "Inbox/Latin1.md"
    assert "caf\ufffd by the harbour" in top.chunk.text


def test_huge_note_is_skipped_with_an_error_until_it_shrinks(services: Services, vault: Path) -> None:
    huge = vault / "Inbox/Huge.md"
    huge.write_text("# Huge\n\nA modest note about narwhal tusks.\n", encoding="utf-8")
    services.reindexer.run_once()
    assert "Inbox/Huge.md" in services.store.indexed_paths()
    huge.write_bytes(b"# Huge\n\n" + b"narwhal tusks " * 1_500_000)  # 21 MB

    report = services.reindexer.run_once()

    assert report.errors == [("Inbox/Huge.md", "note is 21.0 MB, above the 2.0 MB limit (MAX_NOTE_BYTES)")]
    assert report.unchanged == len(note_paths(vault)) - 1
    assert "Inbox/Huge.md" not in services.store.indexed_paths() | services.docstore.paths()
    hits = services.retriever.search("narwhal tusks", k=10)
    assert "Inbox/Huge.md" not in {hit.chunk.path for hit in hits}

    huge.write_text("# Huge\n\nSmall again: a short note about narwhal tusks.\n", encoding="utf-8")
    shrunk = services.reindexer.run_once()
    assert shrunk.errors == [] and shrunk.added == ["Inbox/Huge.md"]  # back in the index after being dropped
    assert services.retriever.search("narwhal tusks", k=1)[0].chunk.path == "Inbox/Huge.md"
    assert services.watermarks.all()["Inbox/Huge.md"].last_error is None


def test_symlinks_are_never_followed_and_links_out_of_the_vault_are_named(
    services: Services, vault: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nThe launch code is xylophone walrus.\n", encoding="utf-8")
    (vault / "Linked Folder").symlink_to(outside, target_is_directory=True)
    (vault / "Secret Link.md").symlink_to(outside / "secret.md")
    (vault / "Areas/Relative Secret.md").symlink_to(Path("../../outside/secret.md"))
    (vault / "Areas/Sourdough Shortcut.md").symlink_to(vault / SOURDOUGH)
    (vault / "Areas/Loop").symlink_to(vault, target_is_directory=True)
    (vault / "Embeds Secret.md").write_text("# Embeds\n\n![[Secret Link]]\n\n![[secret]]\n", encoding="utf-8")

    report = services.reindexer.run_once()

    warnings = dict(report.warnings)
    for link, target in [
        ("Linked Folder", outside),
        ("Secret Link.md", outside / "secret.md"),
        ("Areas/Relative Secret.md", outside / "secret.md"),
    ]:
        assert warnings[link] == f"symlink leads outside the vault ({target}); not followed"
    assert "Areas/Sourdough Shortcut.md" not in warnings and "Areas/Loop" not in warnings
    indexed = services.store.indexed_paths()
    assert indexed == note_paths(vault) - {"Secret Link.md", "Areas/Relative Secret.md", "Areas/Sourdough Shortcut.md"}
    assert not any(path.startswith(("Linked Folder/", "Areas/Loop/")) for path in indexed)
    sourdough = services.docstore.get(SOURDOUGH)
    assert sourdough is not None
    assert services.docstore.paths_with_hash(sourdough.content_hash) == {SOURDOUGH}  # indexed once, under its path
    hits = services.retriever.search("launch code xylophone walrus", k=20)
    assert not any("xylophone" in hit.chunk.text for hit in hits)


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ("data-in-vault", r"DATA_DIR \(.*/vault/data\) must not be inside the vault \(.*/vault\)"),
        ("data-is-vault", r"DATA_DIR \(.*/vault\) must not be inside the vault \(.*/vault\)"),
        ("data-in-vault-via-symlink", r"DATA_DIR \(.*/vault/data\) must not be inside the vault"),
        ("vault-in-data", r"the vault \(.*/data/vault\) must not be inside DATA_DIR \(.*/data\)"),
    ],
)
def test_settings_refuse_a_data_dir_and_vault_inside_each_other(tmp_path: Path, layout: str, message: str) -> None:
    vault, data_dir = {
        "data-in-vault": (tmp_path / "vault", tmp_path / "vault/data"),
        "data-is-vault": (tmp_path / "vault", tmp_path / "vault"),
        "data-in-vault-via-symlink": (tmp_path / "vault", tmp_path / "alias/data"),
        "vault-in-data": (tmp_path / "data/vault", tmp_path / "data"),
    }[layout]
    vault.mkdir(parents=True)
    (tmp_path / "alias").symlink_to(vault, target_is_directory=True)

    with pytest.raises(ValidationError, match=message):
        Settings(_env_file=None, vault_path=vault, data_dir=data_dir)


def test_cli_refuses_overlapping_vault_and_data_dir_with_exit_2(tmp_path: Path) -> None:
    inside_data = tmp_path / "data/vault"
    inside_data.mkdir(parents=True)
    (inside_data / "Note.md").write_text("# Note\n", encoding="utf-8")
    vault = tmp_path / "vault"
    vault.mkdir()

    data_in_vault = invoke(vault, vault / "index", "index")
    vault_in_data = invoke(vault, tmp_path / "data", "index", str(inside_data))

    assert_exit(data_in_vault, 2)
    assert f"DATA_DIR ({vault / 'index'}) must not be inside the vault ({vault})" in data_in_vault.stderr
    assert_exit(vault_in_data, 2)
    assert f"the vault ({inside_data}) must not be inside DATA_DIR ({tmp_path / 'data'})" in vault_in_data.stderr
    assert not (vault / "index").exists()
    assert {p.name for p in (tmp_path / "data").iterdir()} == {"vault"}


def failing_on_second_upsert(store: EdgeVectorStore, *, half_written: bool) -> Callable[[list[EmbeddedChunk]], None]:
    """Return an upsert that fails on its second call, after writing half of the batch when `half_written`."""
    real_upsert = store.upsert
    calls = 0

    def upsert(chunks: list[EmbeddedChunk]) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            if half_written:
                real_upsert(chunks[: len(chunks) // 2])
            raise UpstreamUnavailable("qdrant", "connection lost")
        real_upsert(chunks)

    return upsert


@pytest.mark.parametrize("half_written", [False, True], ids=["nothing-written", "half-written"])
def test_a_run_failing_mid_write_is_repaired_to_equal_a_clean_index(
    services: Services, settings: Settings, tmp_path: Path, half_written: bool
) -> None:
    assert isinstance(services.store, EdgeVectorStore)
    broken = failing_on_second_upsert(services.store, half_written=half_written)
    with mock.patch.object(services.store, "upsert", side_effect=broken), pytest.raises(UpstreamUnavailable):
        services.reindexer.run_once()
    assert services.watermarks.get_meta(reindex.RUN_FLAG) == "1"
    partial = snapshot(services)

    report = services.reindexer.run_once()

    unconfirmed = {path for path, (sha256, _) in partial.marks.items() if sha256 is None}
    assert set(report.repaired) == unconfirmed & set(partial.chunks)
    assert bool(report.repaired) == half_written  # only a half-written batch leaves points to drop
    assert services.watermarks.get_meta(reindex.RUN_FLAG) == "0"
    clean = build_services(settings.model_copy(update={"data_dir": tmp_path / "clean"}), embedder=HashingEmbedder())
    try:
        clean.reindexer.run_once()
        assert snapshot(services) == snapshot(clean)
    finally:
        clean.close()


def test_cli_index_exits_1_when_the_store_fails_and_the_next_run_recovers(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Alpha.md").write_text("# Alpha\n\nThe first note.\n", encoding="utf-8")
    (vault / "Beta.md").write_text("# Beta\n\nThe second note.\n", encoding="utf-8")
    data_dir = tmp_path / "data"

    refuse = UpstreamUnavailable("qdrant", "disk full")
    with mock.patch.object(EdgeVectorStore, "upsert", side_effect=refuse):
        failed = invoke(vault, data_dir, "index")
    status = invoke(vault, data_dir, "status")
    recovered = invoke(vault, data_dir, "index")

    assert_exit(failed, 1)
    assert "error: qdrant is unavailable: disk full" in failed.stderr
    assert_exit(status, 0)
    assert "the last run was interrupted" in status.stdout
    assert_exit(recovered, 0)
    after = invoke(vault, data_dir, "status", "--json")
    assert_exit(after, 0)
    state = json.loads(after.stdout)
    assert (state["notes"], state["chunks"], state["errors"], state["interrupted"]) == (2, 2, [], False)
