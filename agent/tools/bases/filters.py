"""Bases filters evaluated per file: file fields and functions, properties, links, `this`, comparisons, and/or/not.

Anything outside this subset (formulas, date arithmetic, most functions) is reported as not evaluated; in a
filter tree it counts as unknown (three-valued logic), so a query still runs and says what it could not check.
`this` is the file the base is shown in; callers pass the base file itself (the base opened on its own).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

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
from agent.tools.bases.files import file_method, file_property, link_method
from agent.tools.bases.values import FileRef, LinkValue, is_link_like, is_wikilink_text, make_link, same_value
from agent.tools.snapshot import VaultSnapshot, property_value

_ORDER = {">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le}
Verdict = bool | None  # None: could not be evaluated here


@dataclass(frozen=True, slots=True)
class Row:
    """The file an expression is evaluated for, and the file `this` names (None: unknown, `this` is unsupported)."""

    snapshot: VaultSnapshot
    path: str
    today: date
    this_path: str | None = None


@dataclass(frozen=True, slots=True)
class _Properties:
    """`note` (or `this.note`): the frontmatter of the file at `path`, read by `.name`."""

    path: str


@dataclass(frozen=True, slots=True)
class _This:
    """The `this` object: a file (in `contains(this)`, `hasLink(this)`) with `.file`, `.note` and properties."""

    path: str


def _property(row: Row, path: str, name: str) -> object:
    note = row.snapshot.notes.get(path)
    return property_value(note, name)[1] if note else None


def _plain(value: object) -> object:
    """Return a value as functions and comparisons take it: `this` is its file; bare `note` is no value."""
    if isinstance(value, _This):
        return FileRef(value.path)
    if isinstance(value, _Properties):
        raise UnsupportedExpression("note")
    return value


def _contains(row: Row, value: object, needle: object) -> bool:
    if isinstance(value, list):
        for item in value:
            same = same_value(row.snapshot, row.path, item, needle)
            if same if same is not None else str(item) == str(needle):
                return True
        return False
    if is_link_like(needle) and is_wikilink_text(value):  # `categories: "[[People]]"`, one link not in a list
        return same_value(row.snapshot, row.path, value, needle) is True
    return str(needle) in ("" if value is None else str(value))


def _value_method(row: Row, value: object, name: str, args: Sequence[object]) -> object:
    if name == "isEmpty" and not args:
        return value in (None, "", [], {})
    if name in ("contains", "containsAny", "containsAll") and args:
        found = [_contains(row, value, needle) for needle in args]
        return all(found) if name == "containsAll" else any(found)
    if name in ("startsWith", "endsWith") and len(args) == 1:
        if isinstance(value, list):
            return False
        text = "" if value is None else str(value)
        return text.startswith(str(args[0])) if name == "startsWith" else text.endswith(str(args[0]))
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
    if name == "link" and len(args) in (1, 2):
        return make_link(row.snapshot, row.path, *args)
    if name == "list" and len(args) == 1:
        return args[0] if isinstance(args[0], list) else [] if args[0] is None else [args[0]]
    if name == "file" and len(args) == 1:
        path = make_link(row.snapshot, row.path, args[0]).path
        return FileRef(path) if path else None
    raise UnsupportedExpression(f"{name}()")


def _compare(row: Row, op: str, left: object, right: object) -> bool:
    same = same_value(row.snapshot, row.path, left, right) if op in ("==", "!=") else None
    if same is not None:
        return same == (op == "==")
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
    if name == "file":
        return FileRef(row.path)
    if name == "note":
        return _Properties(row.path)
    if name == "this":
        if row.this_path is None:
            raise UnsupportedExpression("this: the file showing the base is not known here")
        return _This(row.this_path)
    if name == "formula":
        raise UnsupportedExpression("formulas are not computed")
    return _property(row, row.path, name)


def _attribute(owner: object, name: str, row: Row) -> object:
    if isinstance(owner, FileRef):
        return file_property(row.snapshot, owner.path, name)
    if isinstance(owner, _This) and name in ("file", "note"):
        return FileRef(owner.path) if name == "file" else _Properties(owner.path)
    if isinstance(owner, _This | _Properties):
        return _property(row, owner.path, name)
    if name == "length" and isinstance(owner, str | list):
        return len(owner)
    raise UnsupportedExpression(f".{name}")


def _call(owner: object, name: str, args: list[object], row: Row) -> object:
    if isinstance(owner, FileRef):
        return file_method(row.snapshot, owner.path, name, args)
    if isinstance(owner, LinkValue) and name in ("asFile", "linksTo"):
        return link_method(row.snapshot, owner, name, args)
    return _value_method(row, owner, name, args)


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
            return _global(row, name, [_plain(evaluate(arg, row)) for arg in args])
        case Call(owner, name, args) if owner is not None:
            target = _plain(evaluate(owner, row))
            return _call(target, name, [_plain(evaluate(arg, row)) for arg in args], row)
        case Not(operand):
            return not _truthy(evaluate(operand, row))
        case Logic(op, left, right):
            first = _truthy(evaluate(left, row))
            return first if first == (op == "||") else _truthy(evaluate(right, row))
        case Compare(op, left, right):
            return _compare(row, op, _plain(evaluate(left, row)), _plain(evaluate(right, row)))
    raise UnsupportedExpression(f"{node!r}")


def _truthy(value: object) -> bool:
    value = _plain(value)
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
    return _plain(evaluate(parse_expression(prop), row))


def _names(node: Node) -> set[str]:
    match node:
        case Name(name):
            return {name}
        case Attr(owner, _) | Not(owner):
            return _names(owner)
        case Call(owner, _, args):
            return set().union(*(_names(item) for item in (*args, *([owner] if owner else []))))
        case Logic(_, left, right) | Compare(_, left, right):
            return _names(left) | _names(right)
    return set()


def uses_this(filters: object) -> bool:
    """Return True when a filter tree refers to `this` anywhere (unparsable parts do not count)."""
    if isinstance(filters, str):
        try:
            return "this" in _names(parse_expression(filters))
        except UnsupportedExpression:
            return False
    if isinstance(filters, list):
        return any(uses_this(item) for item in filters)
    if isinstance(filters, dict):
        return any(uses_this(item) for item in filters.values())
    return False
