"""The golden set: answerable, unanswerable and edit items, with the notes, quotes and facts each one expects."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

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

    @field_validator("facts", mode="before")
    @classmethod
    def _wordings(cls, value: object) -> object:
        if not isinstance(value, list | tuple):
            return value
        return [[fact] if isinstance(fact, str) else fact for fact in value]

    @model_validator(mode="after")
    def _fields_fit_the_kind(self) -> Self:
        if self.kind == "answer" and not (self.expected and self.evidence and self.facts):
            raise ValueError("an answer item needs expected notes, evidence quotes and facts")
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
