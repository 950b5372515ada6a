"""Wiring of safe edits for the service: the proposal store, the change log, the writer and the chat gate."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime

from agent.edits.changelog import SqliteChangeLog
from agent.edits.gate import AfterWrite, EditGate
from agent.edits.proposals import SqliteProposalStore
from agent.propose import ProposalToolbox
from agent.tools.reader import VaultReader
from agent.writers import build_writer
from app.edit_commands import open_change_log
from core.ports import Answerer, NoteWriter
from core.settings import Settings, WriteSettings

logger = logging.getLogger(__name__)
PROPOSALS_FILE = "proposals.sqlite"
AUTO_APPLY_WARNING = (
    "WRITE_CONFIRM=false: every change the model proposes is APPLIED WITHOUT ASKING. Any note the model reads, "
    "including one with planted instructions, can make it change your vault. Use this only with a trusted model "
    "and vault; changes can still be undone with `librarian undo`."
)


@dataclass(frozen=True, slots=True)
class EditServices:
    """What applying and undoing edits needs; `writer` None means the vault is read-only (WRITE_BACKEND=none)."""

    settings: WriteSettings
    store: SqliteProposalStore
    log: SqliteChangeLog
    writer: NoteWriter | None

    def toolbox_factory(self, reader: VaultReader, clock: Callable[[], datetime]) -> Callable[[str], ProposalToolbox]:
        """Return a function that makes one turn's write tools for a conversation id."""

        def make(conversation_id: str) -> ProposalToolbox:
            return ProposalToolbox(reader, self.store, self.settings, conversation_id=conversation_id, clock=clock)

        return make

    def gate(self, inner: Answerer, *, clock: Callable[[], datetime], after_write: AfterWrite | None) -> EditGate:
        """Wrap an answerer so approvals, declines and undo in chat are decided by code."""
        return EditGate(
            inner,
            store=self.store,
            log=self.log,
            writer=self.writer,
            settings=self.settings,
            clock=clock,
            after_write=after_write,
        )


def open_edit_services(settings: Settings, stack: ExitStack) -> EditServices:
    """Open the proposal store and change log under DATA_DIR and pick the writer; closed with `stack`."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = SqliteProposalStore(settings.data_dir / PROPOSALS_FILE)
    stack.callback(store.close)
    log = open_change_log(settings)
    stack.callback(log.close)
    writer = build_writer(settings.writes, settings.vault_path)
    if writer is None:
        logger.info("WRITE_BACKEND=none: the vault is read-only; no write tools are offered")
    elif not settings.writes.confirm:
        logger.warning(AUTO_APPLY_WARNING)
    return EditServices(settings=settings.writes, store=store, log=log, writer=writer)
