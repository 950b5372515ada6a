"""Obsidian link resolution over the vault's file paths, link text for citations, and heading keys."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

_LINK_UNSAFE = re.compile(r"%%|\[\[|\]\]|[#|^:\r\n]")  # "Invalid characters" for links (help) + newlines
# Obsidian's stripHeading: headings compare equal for link matching after this punctuation becomes spaces
_HEADING_PUNCT = re.compile(r"[!\"#$%&()*+,.:;<=>?@^`{|}~/\[\]\\\r\n]")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where a link target points: one path, none (unresolved), or a pick among several candidates."""

    path: str | None
    candidates: tuple[str, ...] = ()
    is_ambiguous: bool = False


def _strip_md(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def _name(path: str) -> str:
    return path.rpartition("/")[2]


def link_key(target: str) -> str:
    """Return the lookup key of a raw link target: lowercase, no leading '/', no '.md'."""
    return _strip_md(target.strip().lstrip("/")).lower()


def backlink_keys(path: str) -> frozenset[str]:
    """Return every `link_key` a link could have when it names `path` by file name or path suffix.

    For "Projects/Alpha.md" that is {"alpha", "projects/alpha"}; for "img/a.png", {"a.png", "img/a.png"}.
    Relative links ("../x") are not covered: resolve those with `LinkResolver.resolve`.
    """
    parts = link_key(path).split("/")
    return frozenset("/".join(parts[start:]) for start in range(len(parts)))


def strip_heading_for_link(heading: str) -> str:
    """Return a heading as it can be written in a link: characters that break links become single spaces."""
    return _SPACES.sub(" ", _LINK_UNSAFE.sub(" ", heading)).strip()


def heading_key(heading: str) -> str:
    """Return the key Obsidian compares headings by: punctuation to spaces, spaces collapsed, case folded."""
    return _SPACES.sub(" ", _HEADING_PUNCT.sub(" ", heading)).strip().casefold()


class LinkResolver:
    """Resolve link targets the way Obsidian does, over a fixed set of vault-relative file paths."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths = frozenset(paths)
        self._by_lower: dict[str, list[str]] = defaultdict(list)
        self._by_key_name: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self._paths):
            self._by_lower[path.lower()].append(path)
            self._by_key_name[link_key(_name(path))].append(path)

    def _exact(self, linkpath: str) -> list[str]:
        for candidate in (linkpath, f"{linkpath}.md"):
            if candidate in self._paths:
                return [candidate]
        for candidate in (linkpath, f"{linkpath}.md"):
            matches = self._by_lower.get(candidate.lower())
            if matches:
                return matches
        return []

    def _by_suffix(self, linkpath: str) -> list[str]:
        """Return files whose name matches the link's last segment and whose path ends with the link."""
        wanted = linkpath.lower()
        wanted_md = f"{wanted}.md"
        matches = []
        for path in self._by_key_name.get(link_key(_name(linkpath)), []):
            lower = path.lower()
            if any(lower == key or lower.endswith(f"/{key}") for key in (wanted, wanted_md)):
                matches.append(path)
        return matches

    def candidates(self, target: str, *, source_path: str) -> list[str]:
        """Return every path a link target could mean, best first (same folder, then shortest path).

        Order of rules: "" is the source itself; `./` and `../` paths resolve against the source's folder
        only; otherwise the exact vault path (with or without ".md", case-sensitive first), then the path
        relative to the source's folder, then every file whose name and path suffix match, ignoring case.
        """
        linkpath = target.strip()
        if not linkpath:
            return [source_path]
        source_folder = _folder(source_path)
        relative = posixpath.normpath(posixpath.join(source_folder, linkpath))
        if relative.startswith("../") or relative == "..":
            relative = ""  # points outside the vault
        if linkpath.startswith(("./", "../")):
            return self._exact(relative) if relative else []
        linkpath = linkpath.lstrip("/")
        found = self._exact(linkpath)
        if not found and "/" in linkpath and relative:
            found = self._exact(relative)  # "Sub/Note" written with the "relative path" link format
        if not found:
            found = self._by_suffix(linkpath)
        return sorted(found, key=lambda path: (_folder(path) != source_folder, path.count("/"), len(path), path))

    def resolve(self, target: str, *, source_path: str) -> Resolution:
        """Resolve a link target (as written, without `#subpath`) from the note at `source_path`."""
        found = self.candidates(target, source_path=source_path)
        if not found:
            return Resolution(None)
        return Resolution(found[0], tuple(found), len(found) > 1)

    def link_text_for(self, path: str) -> str:
        """Return the shortest link text naming exactly `path`: its name if unique, else its full path."""
        for text in (_strip_md(_name(path)), _strip_md(path)):
            if self.candidates(text, source_path="") in ([path], []):  # [] for a path not in the vault (yet)
                return text
        return path

    def anchor_for(self, path: str, heading: str | None = None) -> str:
        """Return a wikilink to `path` (and a heading in it) that resolves in Obsidian: [[Note#Heading]]."""
        text = self.link_text_for(path)
        subpath = strip_heading_for_link(heading) if heading else ""
        return f"[[{text}#{subpath}]]" if subpath else f"[[{text}]]"
