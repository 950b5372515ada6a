"""The vault watcher over a copy of sample_vault: saved notes become searchable, deleted ones leave, noise ignored."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from watchfiles import Change

from app.wiring import Services
from core.settings import Settings
from sync.index_runner import IndexRunner
from sync.watcher import VaultWatcher, is_relevant_change, start_watcher

WAIT_S = 10.0
SYNC = Settings(_env_file=None, watch_debounce_ms=200).sync
ROOT = Path("/vault")


def make_runner(services: Services) -> IndexRunner:
    return IndexRunner(
        services.reindexer,
        watermarks=services.watermarks,
        store=services.store,
        docstore=services.docstore,
        clock=lambda: datetime.now(UTC),
    )


async def eventually(predicate: Callable[[], bool]) -> bool:
    """Poll until `predicate` holds, for at most WAIT_S seconds."""
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def finds(services: Services, word: str) -> bool:
    return any(word in hit.chunk.text for hit in services.retriever.search(word, k=10))


@pytest.mark.parametrize(
    ("change", "rel_path", "globs", "relevant"),
    [
        (Change.modified, "Areas/Garden/Garlic.md", (), True),
        (Change.added, "Inbox/New.MD", (), True),
        (Change.modified, "Projects/Reading.base", (), True),
        (Change.deleted, "Areas/Garden/Garlic.md", (), True),
        (Change.modified, ".obsidian/workspace.json", (), False),
        (Change.added, ".obsidian/plugins/x/data.md", (), False),
        (Change.deleted, ".trash/Old.md", (), False),
        (Change.modified, ".git/index", (), False),
        (Change.modified, "Areas/.hidden.md", (), False),
        (Change.modified, "Attachments/photo.png", (), False),
        (Change.added, "Attachments/photo.png", (), False),
        (Change.deleted, "Attachments/photo.png", (), True),  # may be a folder of notes: one cheap run
        (Change.modified, "Templates/Daily.md", ("Templates/**",), False),
        (Change.deleted, "Templates", ("Templates/**",), False),
        (Change.modified, "/elsewhere/Note.md", (), False),
    ],
)
def test_only_changes_that_can_touch_the_index_are_relevant(
    change: Change, rel_path: str, globs: tuple[str, ...], relevant: bool
) -> None:
    path = str(ROOT / rel_path)
    assert is_relevant_change(change, path, root=ROOT, ignore_globs=globs) is relevant


def test_a_folder_moved_into_the_vault_is_relevant(tmp_path: Path) -> None:
    (tmp_path / "Moved in").mkdir()
    assert is_relevant_change(Change.added, str(tmp_path / "Moved in"), root=tmp_path)


def test_saved_note_becomes_searchable_and_a_deleted_note_leaves(services: Services, vault: Path) -> None:
    runner = make_runner(services)
    note = vault / "Inbox" / "Zephyrine.md"

    async def scenario() -> None:
        await runner.run("start")
        watcher = await start_watcher(runner, services.settings.vault, SYNC)
        try:
            note.write_text("# Zephyrine\n\nThe zephyrine kettle whistles at dawn.\n", encoding="utf-8")
            assert await eventually(lambda: finds(services, "zephyrine")), "the saved note never became searchable"
            note.unlink()
            assert await eventually(lambda: not finds(services, "zephyrine")), "the deleted note stayed in the index"
            assert watcher.runs_requested >= 2
        finally:
            await watcher.stop()
            await runner.aclose()
        assert not watcher.is_running and watcher.error is None

    asyncio.run(scenario())


def test_a_moved_folder_moves_its_notes_in_the_index(services: Services, vault: Path) -> None:
    runner = make_runner(services)

    async def scenario() -> None:
        await runner.run("start")
        watcher = await start_watcher(runner, services.settings.vault, SYNC)
        try:
            (vault / "Areas" / "Garden").rename(vault / "Garden")
            assert await eventually(lambda: "Garden/Garlic.md" in services.store.indexed_paths())
            assert "Areas/Garden/Garlic.md" not in services.store.indexed_paths()
        finally:
            await watcher.stop()
            await runner.aclose()

    asyncio.run(scenario())


def test_a_change_in_obsidian_settings_does_not_trigger_a_run(services: Services, vault: Path) -> None:
    runner = make_runner(services)

    async def scenario() -> None:
        await runner.run("start")
        watcher = await start_watcher(runner, services.settings.vault, SYNC)
        try:
            (vault / ".obsidian").mkdir(exist_ok=True)
            (vault / ".obsidian" / "workspace.json").write_text('{"active": "x"}', encoding="utf-8")
            assert await eventually(lambda: watcher.batches_seen >= 1), "the watcher saw no change at all"
            assert watcher.runs_requested == 0
            assert (await runner.status()).runs_completed == 1
        finally:
            await watcher.stop()
            await runner.aclose()

    asyncio.run(scenario())


def test_watching_a_missing_vault_ends_with_a_readable_error(services: Services, tmp_path: Path) -> None:
    runner = make_runner(services)
    watcher = VaultWatcher(
        runner, vault=Settings(_env_file=None, vault_path=tmp_path / "gone", max_note_bytes=1000).vault, debounce_ms=100
    )

    async def scenario() -> None:
        await watcher.start()
        assert await eventually(lambda: not watcher.is_running)
        await watcher.stop()

    asyncio.run(scenario())
    assert watcher.error is not None and "does not exist" in watcher.error
