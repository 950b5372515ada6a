"""Binding a frontmatter.set reply to the material: every path, key and value the model names must already exist.

A path is one of the collected notes the model was shown (spelled loosely: `[[Note]]`, without `.md`, by its
unique title); a key is one of the task's allowed_keys; a value, for a key the folder already uses, one of the
folder's values (list values item by item). Anything else is rejected with a reason, never guessed.
A list property (tags, contexts) is added to, never replaced: the bound value is the note's list plus the new items,
so a proposal cannot drop what the user set.
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence

from crews.contract.placeholders import PATH, VALUE, copied_example
from crews.model import FrontmatterChange, FrontmatterValue, Material, Rejection

ALLOWED_VALUES_SHOWN = 40  # per key in the prompt; the schema and the binding still hold all of them
MAX_TEXT_VALUE_CHARS = 200
MAX_LIST_ITEMS = 20
MAX_REASON_CHARS = 120
# Properties Obsidian and TaskNotes keep as lists, for keys no collected note has a value for yet.
LIST_KEYS = frozenset({"tags", "aliases", "cssclasses", "contexts", "projects"})
_SHOWN_CHARS = 120
Scalar = str | int | float | bool


def known_values(key: str, material: Material) -> frozenset[str]:
    """Return the values the folder already uses for `key` (empty: the key is bound by its type only)."""
    return material.folder_values.get(key, frozenset())


def key_kinds(keys: Iterable[str], material: Material) -> dict[str, str]:
    """Return per key "list" or "scalar": as the collected notes hold it, else lists only for Obsidian's list keys."""
    kinds = {}
    for key in keys:
        present = [item.frontmatter[key] for item in material.items if item.frontmatter.get(key) not in (None, "")]
        if present:
            kinds[key] = "list" if any(isinstance(value, list) for value in present) else "scalar"
        else:
            kinds[key] = "list" if key.casefold() in LIST_KEYS else "scalar"
    return kinds


def bind_changes(
    changes: Sequence[Mapping[str, object]], allowed_keys: Sequence[str], material: Material, shown: Sequence[str]
) -> tuple[tuple[FrontmatterChange, ...], tuple[Rejection, ...]]:
    """Return the changes bound to the material (merged per note) and a Rejection per invented path, key or value."""
    paths = _Paths(shown, material)
    binder = _ValueBinder(allowed_keys, material)
    merged: dict[str, dict[str, FrontmatterValue]] = {}
    reasons: dict[str, str] = {}
    for change in changes:
        given = str(change["path"])
        path = paths.resolve(given)
        if path is None:
            binder.reject(_clip(given), "invented path: no such note in the collected material")
            continue
        values = merged.setdefault(path, {})
        set_values = change["set"]
        for key, value in set_values.items() if isinstance(set_values, Mapping) else ():
            bound = binder.bind(path, str(key), value)
            if bound is None:
                continue
            name, result = bound
            if name in values and values[name] != result:
                binder.reject(f"{path}: {name}", "set twice with different values; the first one is kept")
                continue
            values[name] = result
        reason = change.get("reason")
        if isinstance(reason, str) and reason.strip():
            reasons.setdefault(path, reason.strip()[:MAX_REASON_CHARS])
    bound_changes = tuple(FrontmatterChange(path, v, reasons.get(path, "")) for path, v in merged.items() if v)
    return bound_changes, tuple(binder.rejected)


class _Paths:
    """Resolve a path as the model wrote it to one the model was shown, or None."""

    def __init__(self, shown: Sequence[str], material: Material) -> None:
        self._shown = set(shown)
        self._folded = _unique((path.casefold(), path) for path in shown)
        titles = ((item.title.casefold(), item.path) for item in material.items if item.path in self._shown)
        stems = ((posixpath.splitext(posixpath.basename(path))[0].casefold(), path) for path in shown)
        self._names = _unique([*titles, *stems])

    def resolve(self, given: str) -> str | None:
        text = unicodedata.normalize("NFC", given).strip().strip("`'\"").strip()
        if text.startswith("[[") and text.endswith("]]"):
            text = text[2:-2].split("|", 1)[0].strip()
        text = text.replace("\\", "/").removeprefix("./").lstrip("/")
        for candidate in (text, f"{text}.md"):
            if candidate in self._shown:
                return candidate
            if (found := self._folded.get(candidate.casefold())) is not None:
                return found
        return self._names.get(text.casefold().removesuffix(".md"))


def _unique(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Return key -> path for keys naming exactly one path (an ambiguous name binds to nothing)."""
    seen: dict[str, set[str]] = {}
    for key, path in pairs:
        seen.setdefault(key, set()).add(path)
    return {key: next(iter(paths)) for key, paths in seen.items() if len(paths) == 1}


class _ValueBinder:
    """Bind one `key: value` of a change to an allowed key and, where the folder has values, to one of them."""

    def __init__(self, allowed_keys: Sequence[str], material: Material) -> None:
        self.allowed = tuple(allowed_keys)
        self.material = material
        self.kinds = key_kinds(allowed_keys, material)
        self.rejected: list[Rejection] = []

    def reject(self, what: str, reason: str) -> None:
        self.rejected.append(Rejection(what, reason))

    def bind(self, path: str, key: str, value: object) -> tuple[str, FrontmatterValue] | None:
        name = self._key(key)
        if name is None:
            self.reject(f"{path}: {_clip(key)}", f"key not allowed (allowed: {', '.join(self.allowed)})")
            return None
        given = value if isinstance(value, list) else [value]
        if any(item is not None and not isinstance(item, Scalar) for item in given):
            self.reject(f"{path}: {name}", "not a text, number or yes/no value (or a list of them)")
            return None
        items = [item for item in given if isinstance(item, Scalar)]
        kept = [bound for item in items if (bound := self._item(path, name, item)) is not None]
        if not kept:
            if not any(_text(item) for item in items):
                self.reject(f"{path}: {name}", "empty value")
            return None
        shaped = self._shaped(path, name, kept)
        return None if shaped is None else (name, shaped)

    def _key(self, key: str) -> str | None:
        if key in self.allowed:
            return key
        matches = [allowed for allowed in self.allowed if allowed.casefold() == key.strip().casefold()]
        return matches[0] if len(matches) == 1 else None

    def _item(self, path: str, name: str, item: Scalar) -> Scalar | None:
        text = _text(item)
        if not text:
            return None
        values = known_values(name, self.material)
        if not values:
            problem = _free_text_problem(text)
            if problem:
                self.reject(f"{path}: {name}", problem)
                return None
            return item.strip() if isinstance(item, str) else item
        match = next((v for v in sorted(values) if v.casefold() == text.casefold()), None)
        if match is None:
            used = ", ".join(sorted(values)[:ALLOWED_VALUES_SHOWN])
            self.reject(f"{path}: {name}={_clip(text)}", f"not a value the folder uses ({used})")
            return None
        return self._typed(name, match)

    def _typed(self, name: str, text: str) -> Scalar:
        """Return the value as the notes hold it (priority: 1 stays a number), else the folder's spelling."""
        for item in self.material.items:
            value = item.frontmatter.get(name)
            if isinstance(value, Scalar) and not isinstance(value, str) and _text(value) == text:
                return value
        return text

    def _shaped(self, path: str, name: str, kept: list[Scalar]) -> FrontmatterValue | None:
        unique = list(dict.fromkeys(kept))
        if self.kinds[name] == "list":
            return self._added(path, name, [_text(item) for item in unique])
        if len(unique) > 1:
            self.reject(f"{path}: {name}", f"takes one value, got {len(unique)}")
            return None
        return unique[0]

    def _added(self, path: str, name: str, proposed: list[str]) -> list[str] | None:
        """Return the note's list with the proposed items added (a list is added to, never replaced), or None."""
        item = self.material.item(path)
        current = item.frontmatter.get(name) if item is not None else None
        existing = [_text(v) for v in (current if isinstance(current, list) else [current]) if isinstance(v, Scalar)]
        present = {value.casefold() for value in existing}
        new = [value for value in proposed if value.casefold() not in present]
        if len(new) > MAX_LIST_ITEMS:
            self.reject(f"{path}: {name}", f"more than {MAX_LIST_ITEMS} new values; the first {MAX_LIST_ITEMS} kept")
            new = new[:MAX_LIST_ITEMS]
        return [*existing, *new] if new else None


def _free_text_problem(text: str) -> str:
    """Return why a value bound by its type only cannot be a property, or "" when it can."""
    if len(text) > MAX_TEXT_VALUE_CHARS:
        return f"value longer than {MAX_TEXT_VALUE_CHARS} characters"
    lines = len(text.splitlines())
    if lines > 1:  # copied note text: its task lines and headings would be live wherever the value is quoted
        return f"a property value is one line of text, this one has {lines} lines"
    if copied_example(text, (VALUE, PATH)):  # the contract's `"<value>"`, not a value
        return "copies the example of the reply's shape, not a value"
    return ""


def _text(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).strip()


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def paths_of(material: Material, shown: Collection[str] | None) -> tuple[str, ...]:
    """Return the material's paths in order, only those in `shown` when given."""
    if shown is None:
        return tuple(item.path for item in material.items)
    return tuple(item.path for item in material.items if item.path in shown)
