"""Domain nouns of safe edits: proposals, approvals, applied changes, apply reports and undo plans."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

ProposalStatus = Literal["pending", "applied", "discarded", "expired", "conflict"]
EditKind = Literal["create", "replace", "delete", "move"]
# The edits a user must name to approve when nobody asked for them ("yes delete", "yes move").
DestructiveKind = Literal["delete", "move"]
ApprovalKind = Literal["approve", "decline", "unrelated"]
ChangeStatus = Literal["started", "applied", "undone"]
# "unchanged": the note already read as proposed (e.g. Obsidian updated a link itself), so nothing was written.
OutcomeStatus = Literal["applied", "unchanged", "conflict", "expired", "refused", "failed", "unverified", "skipped"]
# "bring_back": a deleted note is moved back out of `.trash/`; "nothing" and "conflict" write nothing.
UndoAction = Literal["restore", "trash", "move_back", "bring_back", "nothing", "conflict"]


@dataclass(frozen=True, slots=True)
class ProposedEdit:
    """A change to one note that a tool proposed and that only an approval by the user may apply.

    `base_hash` None means the note did not exist (a create); `new_text` None means a delete; `new_path` set means
    a move, with `new_text` the text the note has at its new path.
    """

    id: str
    conversation_id: str
    operation: str  # what the tool did, shown to the user ("append to section", "set property" ...)
    path: str
    new_path: str | None
    base_hash: str | None
    new_text: str | None
    diff: str
    created_at: datetime
    expires_at: datetime
    status: ProposalStatus = "pending"
    # The proposal this one builds on (an earlier edit of the same note this turn, or the move whose links it
    # updates): it applies only together with, and after, that one.
    depends_on: str | None = None

    @property
    def kind(self) -> EditKind:
        """Return how the writer carries the edit out."""
        if self.new_path is not None:
            return "move"
        if self.new_text is None:
            return "delete"
        return "create" if self.base_hash is None else "replace"

    def is_expired(self, now: datetime) -> bool:
        """Return True once the proposal's time to live has passed."""
        return now >= self.expires_at


@dataclass(frozen=True, slots=True)
class Approval:
    """What the user's next message means for the proposals shown: approve (all, or only `ids`) or not."""

    kind: ApprovalKind  # "decline": an explicit no; "unrelated": anything else (proposals are discarded too)
    ids: tuple[str, ...] = ()  # empty with "approve": every proposal shown

    @property
    def is_approval(self) -> bool:
        """Return True when the message approves proposals."""
        return self.kind == "approve"


@dataclass(frozen=True, slots=True)
class AppliedChange:
    """One entry of the change log: a write to one note, its snapshot and hashes, within a change set."""

    id: int
    change_set_id: str  # every proposal applied by one approval (or one undo) shares it
    at: datetime
    conversation_id: str
    proposal_id: str
    operation: str
    kind: EditKind
    path: str
    new_path: str | None  # a move's new path; a delete's path in `.trash/` (None if the delete never finished)
    hash_before: str | None  # None: the note did not exist before
    hash_after: str | None  # None: the note is gone after (delete); expected while "started", read back once applied
    snapshot: str | None  # snapshot file name under the snapshots folder; None when there was no previous text
    status: ChangeStatus
    undoes: str | None = None  # the change set this entry reverted, for entries written by an undo


@dataclass(frozen=True, slots=True)
class EditOutcome:
    """What happened to one proposal when an approval was applied."""

    proposal_id: str
    path: str
    status: OutcomeStatus
    message: str


@dataclass(frozen=True, slots=True)
class ApplyReport:
    """The outcome of applying the proposals of one approval."""

    change_set_id: str
    outcomes: tuple[EditOutcome, ...]

    @property
    def applied(self) -> tuple[EditOutcome, ...]:
        """Return the outcomes whose note is now as proposed (written, or already so)."""
        return tuple(o for o in self.outcomes if o.status in ("applied", "unverified", "unchanged"))

    @property
    def written(self) -> tuple[EditOutcome, ...]:
        """Return the outcomes that wrote to the vault (and so can be undone)."""
        return tuple(o for o in self.outcomes if o.status in ("applied", "unverified"))


@dataclass(frozen=True, slots=True)
class UndoStep:
    """What undo does (or did) for one logged change."""

    change_id: int
    path: str
    action: UndoAction
    message: str  # what undo will do, or (once carried out) what it did

    @property
    def is_write(self) -> bool:
        """Return True when the step writes to the vault (not "nothing", not a "conflict" left alone)."""
        return self.action not in ("nothing", "conflict")


@dataclass(frozen=True, slots=True)
class UndoPlan:
    """What undoing the last change set restores; `is_applied` once it was carried out (the set is marked undone).

    A confirmed undo with no step to write and a "conflict" is not carried out (`is_applied` stays False): the set
    stays undoable once the user puts their edit back.
    """

    change_set_id: str | None  # None: nothing to undo
    steps: tuple[UndoStep, ...]
    is_applied: bool = False

    @property
    def has_writes(self) -> bool:
        """Return True when some step writes to the vault: only then is there an undo to offer and confirm."""
        return any(step.is_write for step in self.steps)

    @property
    def warnings(self) -> tuple[UndoStep, ...]:
        """Return the steps left alone because the note changed since."""
        return tuple(step for step in self.steps if step.action == "conflict")
