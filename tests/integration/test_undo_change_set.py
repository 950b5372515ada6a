"""Undo of a change set named by id (a crew run), not only the last one, through both writers; listing change sets."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.edits import ApplyReport, UndoPlan
from core.errors import EditConflict, InvalidRequest, NotFound
from core.ports import NoteWriter
from edits.apply import apply_edits
from edits.changelog import SqliteChangeLog
from edits.proposals import new_proposal
from edits.undo import undo_change_set, undo_last
from edits.writers.files import FileVaultWriter
from edits.writers.rest import LocalRestApiWriter
from tests.edit_fakes import write_settings
from tests.obsidian_standin import obsidian_standin

KEY = "u" * 64
NOW = datetime(2026, 1, 5, 7, 0, tzinfo=UTC)
# CRLF, a BOM and non-ASCII text: what a byte-for-byte restore must keep.
ORIGINAL = {
    "Inbox/a.md": b"\xef\xbb\xbf# A\r\n\r\ncaf\xc3\xa9\r\n",
    "Inbox/b.md": b"# B\n",
    "Projects/p.md": b"plan\nno final newline",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for path, data in ORIGINAL.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return root


@pytest.fixture(params=["files", "rest"])
def writer(request: pytest.FixtureRequest, vault: Path) -> Iterator[NoteWriter]:
    if request.param == "files":
        yield FileVaultWriter(vault)
    else:
        with obsidian_standin(vault, api_key=KEY) as base_url:
            yield LocalRestApiWriter(base_url, KEY)


def change(writer: NoteWriter, log: SqliteChangeLog, edits: Mapping[str, str | None], **kwargs: object) -> ApplyReport:
    """Apply `edits` (path -> new text, None = delete) as one approval or one crew task; return the report."""

    conversation = str(kwargs.pop("conversation", "conv"))

    async def run() -> ApplyReport:
        proposals = []
        for path, after in edits.items():
            before = await writer.read(path)
            proposals.append(
                new_proposal(
                    conversation_id=conversation,
                    operation="edit",
                    path=path,
                    before=before,
                    after=after,
                    now=NOW,
                    ttl_minutes=30,
                )  # fmt: skip
            )
        return await apply_edits(proposals, writer=writer, log=log, settings=write_settings(), now=NOW, **kwargs)  # type: ignore[arg-type]

    return asyncio.run(run())


def undo(change_set: str, writer: NoteWriter, log: SqliteChangeLog, *, confirm: bool) -> UndoPlan:
    return asyncio.run(
        undo_change_set(change_set, writer=writer, log=log, now=NOW + timedelta(minutes=5), confirm=confirm)
    )


def files(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*")) if p.is_file()}


def test_a_change_set_that_is_not_the_last_is_undone_alone_byte_for_byte(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    run = change(writer, log, {"Inbox/a.md": "# A\r\n\r\ncrew text\r\n", "Reports/new.md": "made by the run\n",
                               "Projects/p.md": "planned\n"}, conversation="crew:T:r1")  # fmt: skip
    later = change(writer, log, {"Inbox/b.md": "# B\nuser's later change\n"})
    plan = undo(run.change_set_id, writer, log, confirm=False)
    assert [(step.path, step.action) for step in plan.steps] == [
        ("Projects/p.md", "restore"), ("Reports/new.md", "trash"), ("Inbox/a.md", "restore"),
    ]  # fmt: skip
    assert not plan.is_applied and (vault / "Reports" / "new.md").is_file()

    done = undo(run.change_set_id, writer, log, confirm=True)

    assert done.is_applied and done.change_set_id == run.change_set_id
    after = files(vault)
    assert after["Inbox/a.md"] == ORIGINAL["Inbox/a.md"] and after["Projects/p.md"] == ORIGINAL["Projects/p.md"]
    assert "Reports/new.md" not in after and after[".trash/Reports/new.md"] == b"made by the run\n"
    assert after["Inbox/b.md"] == b"# B\nuser's later change\n"  # the later set is untouched
    assert log.last_change_set()[0].change_set_id == later.change_set_id


def test_a_note_edited_since_is_left_alone_with_a_warning_and_the_rest_restored(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    run = change(writer, log, {"Inbox/a.md": "crew a\n", "Inbox/b.md": "crew b\n"})
    change(writer, log, {"Inbox/b.md": "chat edit after the run\n"})  # a later change set edits b
    done = undo(run.change_set_id, writer, log, confirm=True)
    assert done.is_applied
    assert [(w.path, w.action) for w in done.warnings] == [("Inbox/b.md", "conflict")]
    assert "edited since" in done.warnings[0].message
    assert (vault / "Inbox" / "a.md").read_bytes() == ORIGINAL["Inbox/a.md"]
    assert (vault / "Inbox" / "b.md").read_bytes() == b"chat edit after the run\n"


def test_a_set_whose_only_notes_were_edited_since_stays_undoable(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    run = change(writer, log, {"Inbox/b.md": "crew b\n"})
    (vault / "Inbox" / "b.md").write_bytes(b"the user's edit\n")
    plan = undo(run.change_set_id, writer, log, confirm=True)
    assert not plan.is_applied and not plan.has_writes and plan.warnings
    (vault / "Inbox" / "b.md").write_bytes(b"crew b\n")  # the user puts the run's text back
    assert undo(run.change_set_id, writer, log, confirm=True).is_applied
    assert (vault / "Inbox" / "b.md").read_bytes() == ORIGINAL["Inbox/b.md"]


def test_unknown_already_undone_and_undo_sets_are_refused(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    run = change(writer, log, {"Inbox/b.md": "crew b\n"})
    with pytest.raises(NotFound, match="no change set 'nope'"):
        undo("nope", writer, log, confirm=False)
    undo(run.change_set_id, writer, log, confirm=True)
    with pytest.raises(EditConflict, match="already undone"):
        undo(run.change_set_id, writer, log, confirm=True)
    [undo_set] = log.change_sets(include_undos=True)[:1]
    assert undo_set.undoes == run.change_set_id
    with pytest.raises(InvalidRequest, match="is the undo of"):
        undo(undo_set.change_set_id, writer, log, confirm=True)
    assert files(vault)["Inbox/b.md"] == ORIGINAL["Inbox/b.md"]


def test_undo_last_still_reaches_the_set_before_an_undone_one(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    first = change(writer, log, {"Inbox/b.md": "first\n"})
    second = change(writer, log, {"Projects/p.md": "second\n"})
    undo(second.change_set_id, writer, log, confirm=True)
    plan = asyncio.run(undo_last(writer=writer, log=log, now=NOW, confirm=True))
    assert plan.change_set_id == first.change_set_id and plan.is_applied
    assert files(vault) == ORIGINAL


def test_change_sets_are_listed_newest_first_with_their_notes(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    run = change(writer, log, {"Inbox/a.md": "a\n", "Inbox/b.md": "b\n"}, conversation="crew:T:r1")
    chat = change(writer, log, {"Projects/p.md": "p\n"})
    undo(run.change_set_id, writer, log, confirm=True)
    listed = log.change_sets()
    assert [s.change_set_id for s in listed] == [chat.change_set_id, run.change_set_id]
    assert (listed[1].conversation_id, listed[1].paths, listed[1].entries) == (
        "crew:T:r1",
        ("Inbox/a.md", "Inbox/b.md"),
        2,
    )
    assert [s.is_undone for s in listed] == [False, True]
    assert (
        len(log.change_sets(include_undos=True)) == 3
        and log.change_sets(limit=1)[0].change_set_id == chat.change_set_id
    )


def test_writes_join_a_given_change_set_within_the_given_limit(
    vault: Path, writer: NoteWriter, log: SqliteChangeLog
) -> None:
    change(writer, log, {"Inbox/a.md": "a\n"}, change_set_id="run-1", max_writes=50)
    change(writer, log, {"Inbox/b.md": "b\n"}, change_set_id="run-1", max_writes=50)
    assert [entry.path for entry in log.change_set("run-1")] == ["Inbox/a.md", "Inbox/b.md"]
    with pytest.raises(InvalidRequest, match="exceed the limit of 1 writes"):
        change(writer, log, {"Inbox/a.md": "x\n", "Inbox/b.md": "y\n"}, change_set_id="run-1", max_writes=1)
    many = {f"Inbox/n{i}.md": "n\n" for i in range(12)}  # above max_writes_per_turn (10) but within the crew's 20
    assert len(change(writer, log, many, change_set_id="run-2", max_writes=20).written) == 12
    undo("run-1", writer, log, confirm=True)
    with pytest.raises(InvalidRequest, match="was undone"):
        change(writer, log, {"Projects/p.md": "late\n"}, change_set_id="run-1")
    assert (vault / "Projects" / "p.md").read_bytes() == ORIGINAL["Projects/p.md"]
