"""The golden set: answerable, unanswerable and edit items, with the notes, quotes and facts each one expects."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from app.eval.matching import has_phrase, tokens
from core.errors import InvalidRequest

ItemKind = Literal["answer", "refuse", "edit"]
KINDS: tuple[ItemKind, ...] = ("answer", "refuse", "edit")


class ExpectedEdit(BaseModel):
    """The proposal an edit request must produce (and that the eval never approves)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str = Field(min_length=1, description="Vault path of the note the proposal changes (or creates).")
    operations: tuple[str, ...] = Field(
        min_length=1, description="Accepted operations as the reply shows them ('add tag'); any one, as a prefix."
    )
    adds: tuple[str, ...] = Field((), description="Text the proposal's diff must add (matched normalised).")

    @field_validator("operations", "adds", mode="before")
    @classmethod
    def _one_is_a_list(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


class GoldenItem(BaseModel):
    """One question of the golden set and what a good reply to it contains."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, pattern=r"^[\w.-]+$")
    kind: ItemKind
    question: str = Field(min_length=1)
    expected: tuple[str, ...] = Field((), description="Vault paths of the notes that hold the answer.")
    evidence: tuple[str, ...] = Field((), description="Quotes from the expected notes that support the answer.")
    facts: tuple[tuple[str, ...], ...] = Field(
        (), description="What a correct answer says: each fact is one wording or a list of accepted wordings."
    )
    edit: ExpectedEdit | None = None
    # A question asking only yes or no: the answer's reply to it, by its first word or its first sentence (scored as
    # one more fact: "Wine is not an emulator." says "no").
    answer_is: Literal["yes", "no"] | None = None

    @property
    def fact_labels(self) -> tuple[str, ...]:
        """Return a label per fact scored, as reports name a missing one: its first wording, then "reply: no"."""
        reply = (f"reply: {self.answer_is}",) if self.answer_is is not None else ()
        return (*(fact[0] for fact in self.facts), *reply)

    @field_validator("facts", mode="before")
    @classmethod
    def _wordings(cls, value: object) -> object:
        if not isinstance(value, list | tuple):
            return value
        return [[fact] if isinstance(fact, str) else fact for fact in value]

    @model_validator(mode="after")
    def _fields_fit_the_kind(self) -> Self:
        if self.kind == "answer" and not (self.expected and self.evidence and (self.facts or self.answer_is)):
            raise ValueError("an answer item needs expected notes, evidence quotes and facts (or answer_is)")
        if self.kind != "answer" and self.answer_is is not None:
            raise ValueError("only an answer item may have `answer_is`")
        if self.kind == "refuse" and (self.expected or self.evidence or self.facts or self.edit):
            raise ValueError("a refuse item has only a question: the vault holds no answer to expect")
        if self.kind == "edit" and self.edit is None:
            raise ValueError("an edit item needs `edit` (path and operations of the expected proposal)")
        if self.kind != "edit" and self.edit is not None:
            raise ValueError("only an edit item may have `edit`")
        if any(not wording.strip() for fact in self.facts for wording in fact) or any(not f for f in self.facts):
            raise ValueError("a fact needs at least one non-empty wording")
        return self


class GoldenSet(BaseModel):
    """The file: its items (ids unique)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    items: tuple[GoldenItem, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> Self:
        seen: set[str] = set()
        for item in self.items:
            if item.id in seen:
                raise ValueError(f"item id {item.id!r} is used twice")
            seen.add(item.id)
        return self


def load_golden_set(path: Path) -> GoldenSet:
    """Read and validate a golden-set YAML file; every problem is an InvalidRequest naming the file and item."""
    try:
        data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidRequest(f"cannot read the golden set {path}: {exc.strerror or exc}") from exc
    except YAMLError as exc:
        raise InvalidRequest(f"the golden set {path} is not valid YAML: {exc}") from exc
    try:
        return GoldenSet.model_validate(data)
    except ValidationError as exc:
        raise InvalidRequest(f"the golden set {path} is invalid: {_describe(exc, data)}") from exc


def _describe(exc: ValidationError, data: object) -> str:
    rows = data.get("items") if isinstance(data, dict) else None
    problems = []
    for error in exc.errors()[:5]:
        loc = error["loc"]
        where = ".".join(str(part) for part in loc) or "file"
        if len(loc) >= 2 and loc[0] == "items" and isinstance(loc[1], int) and isinstance(rows, list):
            row = rows[loc[1]]
            name = f" ({row['id']})" if isinstance(row, dict) and "id" in row else ""
            where = f"item {loc[1] + 1}{name}" + "".join(f".{part}" for part in loc[2:])
        cause = (error.get("ctx") or {}).get("error")
        message = str(cause) if error["type"] == "value_error" and cause else error["msg"]
        problems.append(f"{where}: {message}")
    return "; ".join(problems)


def select_items(
    golden: GoldenSet, *, ids: tuple[str, ...] = (), kinds: tuple[ItemKind, ...] = (), limit: int | None = None
) -> list[GoldenItem]:
    """Return the items to run: those named (all when none), of the kinds asked for, at most `limit`."""
    unknown = set(ids) - {item.id for item in golden.items}
    if unknown:
        raise InvalidRequest(f"no item with id {', '.join(sorted(unknown))} in the golden set")
    chosen = [item for item in golden.items if (not ids or item.id in ids) and (not kinds or item.kind in kinds)]
    return chosen[:limit] if limit is not None else chosen


@dataclass(frozen=True, slots=True)
class StaleItem:
    """An item the vault no longer bears out, and why."""

    item_id: str
    problem: str


STALE_ITEMS_SHOWN = 20


class _VaultWords:
    """The words of the vault's notes, read once each; None for a path that is no note inside the vault."""

    def __init__(self, vault: Path) -> None:
        self._root = vault.resolve()
        self._read: dict[str, list[str] | None] = {}

    def of(self, path: str) -> list[str] | None:
        if path not in self._read:
            file = (self._root / path).resolve()
            is_note = file.is_relative_to(self._root) and file.is_file()
            self._read[path] = tokens(file.read_text(encoding="utf-8", errors="replace")) if is_note else None
        return self._read[path]


def stale_items(golden: GoldenSet, vault: Path) -> list[StaleItem]:
    """Return what the vault contradicts: missing expected notes, quotes in none of them, edits on absent notes.

    A quote counts as present when its words and numbers occur in a row in one expected note (markup, case and
    punctuation ignored, as facts are matched), so a golden set written for another vault, or one the notes have
    moved away from, is caught before a run scores it.
    """
    words = _VaultWords(vault)
    stale: list[StaleItem] = []
    for item in golden.items:
        if item.kind == "answer":
            stale += _answer_problems(item, words)
        elif item.edit is not None and (problem := _edit_problem(item.edit, words)):
            stale.append(StaleItem(item.id, problem))
    return stale


def _answer_problems(item: GoldenItem, words: _VaultWords) -> list[StaleItem]:
    notes = [note for path in item.expected if (note := words.of(path)) is not None]
    missing = [path for path in item.expected if words.of(path) is None]
    # With no expected note there is nothing to quote from: the missing notes say it all.
    unquoted = [quote for quote in item.evidence if notes and not any(has_phrase(note, quote) for note in notes)]
    return [StaleItem(item.id, f"expected note not in the vault: {path}") for path in missing] + [
        StaleItem(item.id, f"evidence in no expected note: {quote!r}") for quote in unquoted
    ]


def _edit_problem(edit: ExpectedEdit, words: _VaultWords) -> str | None:
    creates = edit.operations == ("create",)
    if (words.of(edit.path) is not None) != creates:
        return None
    return f"the note to create already exists: {edit.path}" if creates else f"no such note to edit: {edit.path}"


def check_against_vault(golden: GoldenSet, vault: Path, *, source: Path) -> None:
    """Raise InvalidRequest listing the stale items when the vault does not bear out the golden set `source`."""
    stale = stale_items(golden, vault)
    if not stale:
        return
    lines = [f"  {entry.item_id}: {entry.problem}" for entry in stale[:STALE_ITEMS_SHOWN]]
    if len(stale) > STALE_ITEMS_SHOWN:
        lines.append(f"  ... and {len(stale) - STALE_ITEMS_SHOWN} more")
    items = len({entry.item_id for entry in stale})
    raise InvalidRequest(
        f"the golden set {source} does not match the vault {vault} ({items} stale item{'s' * (items != 1)}; "
        "fix the items or give the vault it was written for):\n" + "\n".join(lines)
    )
