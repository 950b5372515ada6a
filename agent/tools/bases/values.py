"""Values of the Bases expression language beyond YAML scalars: files and links, and when two of them are equal.

Obsidian compares links by the file they resolve to, so `link("Books")`, `"[[Books]]"`, `"[[Categories/Books|my
books]]"` and the file `Categories/Books.md` are all the same value; display text and headings do not count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.tools.snapshot import VaultSnapshot, parse_note_ref
from rag.notes.inline import parse_wikilink
from rag.notes.links import link_key

_WIKILINK = re.compile(r"!?\[\[[^\[\]\n]+\]\]")


@dataclass(frozen=True, slots=True)
class FileRef:
    """A vault file as a value: `file`, `file.file`, `this.file`, or what a link resolves to."""

    path: str

    def __str__(self) -> str:
        return self.path


@dataclass(frozen=True, slots=True)
class LinkValue:
    """A link: its target as written, optional display text, and the vault path it resolves to (None: unresolved)."""

    target: str
    display: str | None
    path: str | None

    def __str__(self) -> str:
        return f"[[{self.target}|{self.display}]]" if self.display else f"[[{self.target}]]"


def is_wikilink_text(value: object) -> bool:
    """Return True for a string that is exactly one wikilink, as frontmatter holds links: `"[[Books]]"`."""
    return isinstance(value, str) and _WIKILINK.fullmatch(value.strip()) is not None


def make_link(snapshot: VaultSnapshot, source: str, value: object, display: object = None) -> LinkValue:
    """Return `link(value, display)`: a path, a name, `"[[...]]"` text, a file or a link, resolved from `source`."""
    shown = None if display is None else str(display)
    if isinstance(value, LinkValue):
        return LinkValue(value.target, shown or value.display, value.path)
    if isinstance(value, FileRef):
        return LinkValue(snapshot.resolver.link_text_for(value.path), shown, value.path)
    text = "" if value is None else str(value).strip()
    written = parse_wikilink(text.lstrip("!")[2:-2], is_embed=False, line=0) if is_wikilink_text(text) else None
    target = written.target if written else parse_note_ref(text)[0]
    path = snapshot.resolver.resolve(target, source_path=source).path if target else None
    if written is not None and not target:
        path = source  # "[[#Heading]]" links to the note it is written in
    return LinkValue(target, shown or (written.alias if written else None), path)


def as_link(snapshot: VaultSnapshot, source: str, value: object) -> LinkValue | None:
    """Return `value` as a link when it is one (a link, a file, `"[[...]]"` text), else None."""
    if isinstance(value, LinkValue | FileRef) or is_wikilink_text(value):
        return make_link(snapshot, source, value)
    return None


def is_link_like(value: object) -> bool:
    """Return True for the values that compare as links: links and files."""
    return isinstance(value, LinkValue | FileRef)


def links_equal(first: LinkValue, second: LinkValue) -> bool:
    """Return True when both links name the same file (or, both unresolved, the same target)."""
    if first.path is not None or second.path is not None:
        return first.path == second.path
    return link_key(first.target) == link_key(second.target)


def same_value(snapshot: VaultSnapshot, source: str, first: object, second: object) -> bool | None:
    """Return whether two values are equal as links, or None when neither is a link or file (compare them as data).

    A link never equals plain text: `link("Books") == "Books"` is false, as in Obsidian, but `"[[Books]]"` text
    (how frontmatter stores links) is read as the link it writes.
    """
    if not (is_link_like(first) or is_link_like(second)):
        return None
    left, right = as_link(snapshot, source, first), as_link(snapshot, source, second)
    return left is not None and right is not None and links_equal(left, right)
