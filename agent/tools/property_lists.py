"""The notes whose property holds a value ("Which notes have status active?", "… a rating of 7 or higher?").

Properties are what modern vaults keep their facts in (`status`, `rating`, `author`), and a note's properties are no
words a search weighs: asked "Which notes have status active?" over sample_vault, the 0.5B named one project and
quoted a line about folders. The property is looked up in every note (by name, any case, as Obsidian does), and its
value compared by code: equal (case ignored; a link by its target, "[[Frank Herbert]]" is "Frank Herbert"; a number
as a number), a number compared ("7 or higher", "over 3", "at most 2"), or any value ("Which notes have a due date?").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from agent.tools.outcome import format_value
from agent.tools.snapshot import VaultSnapshot, parse_note_ref, property_value

# Words standing for "any value": "a due date", "a rating set".
_ANY_VALUE = frozenset({"date", "value", "set", "entry", "field", "property", "one", "any value"})
_MAX_VALUES = 8  # values named when none matches, most used first
_COMPARED = re.compile(
    r"^(?:(?P<before>at\s+least|over|above|more\s+than|greater\s+than|higher\s+than|at\s+most|below|under"
    r"|less\s+than|lower\s+than|fewer\s+than)\s+)?(?P<number>-?\d+(?:[.,]\d+)?)"
    r"(?:\s+or\s+(?P<after>higher|more|above|greater|better|lower|less|below|fewer|worse))?$",
    re.IGNORECASE,
)
_DOWN = ("most", "below", "under", "less", "lower", "fewer", "worse")
# The value asked for as the best or the worst: "Which books did I rate highest?" (read as the value "highest", no
# note's, it was answered "None of the books has rating: highest").
_HIGHEST = frozenset({"highest", "the highest", "best", "the best", "top", "the top", "most", "the most"})
_LOWEST = frozenset({"lowest", "the lowest", "worst", "the worst", "least", "the least"})


@dataclass(frozen=True, slots=True)
class PropertyNotes:
    """The notes found for a property and value: each note's path and value as shown, by path."""

    asked: str  # "status: active", "rating 7 or higher", "due"
    notes: list[tuple[str, str]]
    shows_values: bool  # the values differ from what was asked (any value, a number compared): shown beside each note
    values: str = ""  # with no note found: the property's values, most used first ("active (2), done (3)")
    kind_size: int = 0  # the notes of the kind asked of ("movies"), 0 for any note


def notes_by_property(
    snapshot: VaultSnapshot, name: str, value: str, of: str = "", *, templates: str | None = None
) -> PropertyNotes | None:
    """Return the notes whose property `name` holds `value` ("" for any), or None when no note has the property.

    "a due date" reads as the property "due date" where notes have one, else `due` with any value. `of`: only the
    notes of that kind ("movies", see `kind_members`; `templates`: the templates folder, whose notes are none); None
    too when no note of it has the property.
    """
    among = kind_members(snapshot, of, templates) if of else None
    if of and not among:
        return None
    holders = _holders(snapshot, f"{name} {value}", among) if value else []
    if holders:
        name, value = f"{name} {value}", ""
    else:
        holders = _holders(snapshot, name, among)
    if not holders:
        return None
    if value.casefold() in _ANY_VALUE:
        value = ""
    size = len(among or ())
    if (extreme := value.strip().casefold()) in _HIGHEST | _LOWEST and (
        ranked := _extremes(holders, highest=extreme in _HIGHEST)
    ):
        bound, found = ranked
        asked = f"the {'highest' if extreme in _HIGHEST else 'lowest'} {name} ({bound})"
        return PropertyNotes(asked, found, shows_values=False, kind_size=size)
    test, is_equal = value_test(value)
    asked = f"{name}: {value}" if is_equal else f"{name} {value}".strip()
    found = [(path, format_value(held)) for path, held in holders if test(held)]
    if found:
        return PropertyNotes(asked, found, shows_values=not is_equal, kind_size=size)
    counts = Counter(format_value(item) for _, held in holders for item in _items(held))
    values = ", ".join(f"{shown} ({count})" for shown, count in counts.most_common(_MAX_VALUES))
    return PropertyNotes(asked, [], shows_values=False, values=values, kind_size=size)


def value_test(value: str) -> tuple[Callable[[object], bool], bool]:
    """Return the test a property's value must pass for `value`, and whether it is equality.

    Any value for "", a number compared for "7 or higher", "over 3", "at most 2", else equal to `value`.
    """
    if not value:
        return (lambda held: held not in (None, "", [])), False
    compared = _COMPARED.match(value.strip())
    if compared is None or not (compared["before"] or compared["after"]):
        wanted, number = _plain(value), _number(value)

        def equal(held: object) -> bool:
            return any(_plain(format_value(item)) == wanted or _is(number, _number(item)) for item in _items(held))

        return equal, True
    bound = float(compared["number"].replace(",", "."))
    words = (compared["before"] or compared["after"]).casefold()
    down = any(word in words for word in _DOWN)
    inclusive = bool(compared["after"]) or "least" in words or "most" in words

    def beyond(held: object) -> bool:
        numbers = property_numbers(held)
        return any((n < bound if down else n > bound) or (inclusive and n == bound) for n in numbers)

    return beyond, False


def kind_members(snapshot: VaultSnapshot, kind: str, templates: str | None) -> set[str]:
    """Return the notes of the kind `kind` names, as `notes_of_kind` finds them, but its own note and the templates.

    The kind's own note ("Books") lists them; a template (kepano-obsidian's Book Template) is filed as one to be
    copied.
    """
    own = _forms(kind)
    return {
        path
        for path in notes_of_kind(snapshot, kind)
        if snapshot.notes[path].title.casefold() not in own and not (templates and snapshot.in_folder(path, templates))
    }


# Properties linking a note to another it is related to, not one it is of: "related", "see also".
_RELATED_KEYS = frozenset({"related", "see also", "seealso", "similar", "siehe auch"})


def notes_of_kind(snapshot: VaultSnapshot, word: str) -> set[str]:
    """Return the notes of the kind a plural names ("movies", "books", "people"), as vaults file them.

    A note linking to the kind's own note in a property (`categories: [[Movies]]`, `type: [[Book]]`: kepano's
    vault, Bases), a tag (`#movie`, `#books/read`) or a folder (`Movies/`), singular or plural. Not a property saying
    the notes are related only: kepano's category note Podcasts has `related: [[Podcast episodes]]`, and is none.
    """
    forms = _forms(word)
    found: set[str] = set()
    for path, note in snapshot.notes.items():
        linked = (
            _plain(format_value(item))
            for key, held in note.frontmatter.items()
            if " ".join(str(key).casefold().replace("_", " ").replace("-", " ").split()) not in _RELATED_KEYS
            for item in _items(held)
        )
        folders = (part.casefold() for part in path.split("/")[:-1])
        if (
            any(text in forms for text in linked)
            or any(tag.casefold().split("/")[0] in forms for tag in note.tags)
            or any(folder in forms for folder in folders)
        ):
            found.add(path)
    return found


def _forms(word: str) -> frozenset[str]:
    """Return a plural's forms a vault may file by: "movies", "movie"; "people", "person"; "series"."""
    plural = word.casefold()
    forms = {plural, _IRREGULAR.get(plural, plural)}
    if plural.endswith("s") and not plural.endswith("ss"):
        forms.add(plural[:-1])  # "movies": "movie"
    if plural.endswith("ies"):
        forms.add(plural[:-3] + "y")  # "stories": "story"
    if plural.endswith(("ches", "shes", "sses", "xes")):
        forms.add(plural[:-2])  # "boxes": "box"
    return frozenset(forms)


_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman"}


def _holders(snapshot: VaultSnapshot, name: str, among: set[str] | None = None) -> list[tuple[str, object]]:
    """Return the notes (of `among`, else all) having the property `name` (any case), with its value, by path."""
    found = []
    for path in sorted(among if among is not None else snapshot.notes, key=str.lower):
        present, held = property_value(snapshot.notes[path], name)
        if present:
            found.append((path, held))
    return found


def _extremes(holders: list[tuple[str, object]], *, highest: bool) -> tuple[str, list[tuple[str, str]]] | None:
    """Return the highest (or lowest) number the holders' values give, as shown, and the notes holding it.

    None when no value is a number: "the best status" is no ranking.
    """
    numbered = [(path, number, held) for path, held in holders for number in property_numbers(held)]
    if not numbered:
        return None
    bound = (max if highest else min)(number for _, number, _ in numbered)
    found = dict.fromkeys((path, format_value(held)) for path, number, held in numbered if number == bound)
    return (f"{bound:g}", list(found))


def property_numbers(held: object) -> list[float]:
    """Return the numbers a property's value holds: each item read whole as a number ("7", 4.5; not "8/10", "nan")."""
    return [number for item in _items(held) if (number := _number(item)) is not None and math.isfinite(number)]


def _items(held: object) -> list[object]:
    return list(held) if isinstance(held, list) else [held]


def _plain(text: str) -> str:
    """Return a value as compared: a link as its target, without quotes, case or surrounding spaces."""
    text = text.strip().strip("\"'“”")
    is_link = text.startswith("[[") and text.endswith("]]")
    return (parse_note_ref(text)[0] if is_link else text).strip().casefold()


def _number(item: object) -> float | None:
    if isinstance(item, bool):
        return None
    if isinstance(item, int | float):
        return float(item)
    try:
        return float(str(item).strip().replace(",", "."))
    except ValueError:
        return None


def _is(wanted: float | None, held: float | None) -> bool:
    return wanted is not None and held == wanted
