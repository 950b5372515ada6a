"""Bases filters evaluated per file: file.inFolder/hasTag/hasLink, properties, comparisons, and/or/not.

Anything outside this subset (formulas, date arithmetic, most functions) is reported as not evaluated; in a
filter tree it counts as unknown (three-valued logic), so a query still runs and says what it could not check.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import PurePosixPath

from agent.tools.bases.expressions import (
    Attr,
    Call,
    Compare,
    Lit,
    Logic,
    Name,
    Node,
    Not,
    UnsupportedExpression,
    parse_expression,
)
from agent.tools.snapshot import VaultSnapshot, has_tag, parse_note_ref, property_value

_ORDER = {">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le}
Verdict = bool | None  # None: could not be evaluated here


@dataclass(frozen=True, slots=True)
class Row:
    """The file an expression is evaluated for."""

    snapshot: VaultSnapshot
    path: str
    today: date


class _Scope:
    """Marks `file` and `note` while evaluating `file.x` and `note.x`."""

    def __init__(self, name: str) -> None:
        self.name = name


_FILE, _NOTE = _Scope("file"), _Scope("note")


def _file_property(row: Row, name: str) -> object:
    path = PurePosixPath(row.path)
    note = row.snapshot.notes.get(row.path)
    stat = row.snapshot.stats.get(row.path)
    values: dict[str, object] = {
        "name": path.name,
        "basename": path.stem,
        "path": row.path,
        "folder": str(path.parent) if str(path.parent) != "." else "/",
        "ext": path.suffix.lstrip("."),
        "tags": list(note.tags) if note else [],
        "mtime": datetime.fromtimestamp(stat.mtime_ns / 1e9).isoformat(timespec="minutes") if stat else None,
        "size": stat.size if stat else None,
    }
    if name not in values:
        raise UnsupportedExpression(f"file.{name}")
    return values[name]


def _file_method(row: Row, name: str, args: Sequence[object]) -> object:
    note = row.snapshot.notes.get(row.path)
    texts = [str(arg) for arg in args]
    if name == "inFolder" and len(texts) == 1:
        return row.snapshot.in_folder(row.path, texts[0].strip("/"))
    if name == "hasTag":
        return note is not None and any(has_tag(note.tags, tag) for tag in texts)
    if name == "hasProperty" and len(texts) == 1:
        return note is not None and property_value(note, texts[0])[0]
    if name == "hasLink" and len(texts) == 1:
        target = row.snapshot.resolver.resolve(parse_note_ref(texts[0])[0], source_path=row.path).path
        return target is not None and any(item.path == target for item in row.snapshot.outgoing.get(row.path, ()))
    raise UnsupportedExpression(f"file.{name}()")


def _value_method(value: object, name: str, args: Sequence[object]) -> object:
    if name == "isEmpty" and not args:
        return value in (None, "", [], {})
    if name in ("contains", "startsWith", "endsWith", "containsAny") and args:
        needles = [str(arg) for arg in args]
        if isinstance(value, list):
            items = [str(item) for item in value]
            return any(needle in items for needle in needles) if name in ("contains", "containsAny") else False
        text = "" if value is None else str(value)
        if name == "startsWith":
            return text.startswith(needles[0])
        if name == "endsWith":
            return text.endswith(needles[0])
        return any(needle in text for needle in needles)
    if name == "lower" and not args:
        return str(value).lower()
    if name == "toString" and not args:
        return "" if value is None else str(value)
    raise UnsupportedExpression(f".{name}()")


def _global(row: Row, name: str, args: Sequence[object]) -> object:
    if name == "today" and not args:
        return row.today.isoformat()  # dates compare as ISO strings, as properties hold them
    if name == "date" and len(args) == 1 and isinstance(args[0], str):
        return args[0][:10]
    raise UnsupportedExpression(f"{name}()")


def _compare(op: str, left: object, right: object) -> bool:
    if isinstance(left, int | float) != isinstance(right, int | float) and None not in (left, right):
        try:  # "64" vs 64: YAML and expressions disagree on quoting more often than on meaning
            left, right = float(str(left)), float(str(right))
        except ValueError:
            left, right = str(left), str(right)
    if op == "==":
        return left == right
    if op == "!=":
        return left != right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return bool(_ORDER[op](left, right))
    if isinstance(left, str) and isinstance(right, str):  # ISO dates order correctly as text
        return bool(_ORDER[op](left, right))
    return False  # a date against a number, or a missing value: no row, as in Obsidian


def _name(name: str, row: Row) -> object:
    if name in ("file", "note"):
        return _FILE if name == "file" else _NOTE
    if name in ("formula", "this"):
        raise UnsupportedExpression("formulas are not computed" if name == "formula" else name)
    note = row.snapshot.notes.get(row.path)
    return property_value(note, name)[1] if note else None


def _attribute(owner: object, name: str, row: Row) -> object:
    if owner is _FILE:
        return _file_property(row, name)
    if owner is _NOTE:
        note = row.snapshot.notes.get(row.path)
        return property_value(note, name)[1] if note else None
    if name == "length" and isinstance(owner, str | list):
        return len(owner)
    raise UnsupportedExpression(f".{name}")


def evaluate(node: Node, row: Row) -> object:
    """Return the value of a parsed expression for one file, or raise UnsupportedExpression."""
    match node:
        case Lit(value):
            return value
        case Name(name):
            return _name(name, row)
        case Attr(owner, name):
            return _attribute(evaluate(owner, row), name, row)
        case Call(None, name, args):
            return _global(row, name, [evaluate(arg, row) for arg in args])
        case Call(owner, name, args) if owner is not None:
            target = evaluate(owner, row)
            values = [evaluate(arg, row) for arg in args]
            return _file_method(row, name, values) if target is _FILE else _value_method(target, name, values)
        case Not(operand):
            return not _truthy(evaluate(operand, row))
        case Logic(op, left, right):
            first = _truthy(evaluate(left, row))
            return first if first == (op == "||") else _truthy(evaluate(right, row))
        case Compare(op, left, right):
            return _compare(op, evaluate(left, row), evaluate(right, row))
    raise UnsupportedExpression(f"{node!r}")


def _truthy(value: object) -> bool:
    if isinstance(value, _Scope):
        raise UnsupportedExpression(value.name)
    return value not in (None, "", [], {}, False, 0)


def matches(filters: object, row: Row, problems: set[str]) -> Verdict:
    """Evaluate a Bases filter tree (a string, or and/or/not lists) for one file; None when it cannot tell."""
    if filters is None:
        return True
    if isinstance(filters, str):
        try:
            return _truthy(evaluate(parse_expression(filters), row))
        except UnsupportedExpression as exc:
            problems.add(f"{filters!r} ({exc})")
            return None
    if isinstance(filters, list):
        return _all([matches(item, row, problems) for item in filters])
    if isinstance(filters, dict) and len(filters) == 1:
        ((key, items),) = filters.items()
        verdicts = [matches(item, row, problems) for item in (items if isinstance(items, list) else [items])]
        if key == "and":
            return _all(verdicts)
        if key == "or":
            return _any(verdicts)
        if key == "not":
            found = _any(verdicts)
            return None if found is None else not found
    problems.add(f"{filters!r} (not a filter: expected a string or one of and/or/not)")
    return None


def _all(verdicts: list[Verdict]) -> Verdict:
    if False in verdicts:
        return False
    return None if None in verdicts else True


def _any(verdicts: list[Verdict]) -> Verdict:
    if True in verdicts:
        return True
    return None if None in verdicts else False


def column_value(prop: str, row: Row) -> object:
    """Return the value a view column shows ("file.name", "status", "note.due"), or raise UnsupportedExpression."""
    return evaluate(parse_expression(prop), row)
