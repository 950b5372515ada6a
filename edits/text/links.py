"""Links kept working across a move: rewrite, in a note's text, every link that the move would break (pure text).

A link is rewritten only when it would resolve elsewhere (or nowhere) after the move: a `[[Name]]` whose name stays
unique keeps working wherever the note goes and is left alone, so diffs stay minimal. A rewritten link keeps its
kind (wikilink, embed, markdown link), its `#subpath`, `|alias`, `<...>` destination and `.md` as written, and its
style: a name stays the shortest unambiguous name (Obsidian's default "shortest path when possible"), a vault path
stays a vault path, a `./` or `../` path stays relative. Links in code, inline code, math and comments are never
touched; links in frontmatter property values (`up: "[[Home]]"`) are, as Obsidian does.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from rag.notes.frontmatter import read_frontmatter
from rag.notes.inline import WIKILINK, LinkSpan, find_link_spans, wikilink_span
from rag.notes.line_views import MASK
from rag.notes.links import LinkResolver
from rag.notes.scanner import ScannedLine, scan_lines, split_lines

_COMMENT_OPEN = re.compile(r"(?<!\\)(?:%%|<!--)")
_COMMENT_CLOSE = {"%%": "%%", "<!--": "-->"}
_ENCODED_NON_ASCII = re.compile(r"%[89A-Fa-f][0-9A-Fa-f]")
# What a bare markdown destination cannot hold as is; everything else (letters of any script) stays readable.
_MARKDOWN_ESCAPES = {"%": "%25", " ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E"}


@dataclass(frozen=True, slots=True)
class LinkMove:
    """One note moving from `old_path` to `new_path`, and the vault's files resolved before and after it."""

    old_path: str
    new_path: str
    before: LinkResolver
    after: LinkResolver

    @classmethod
    def between(cls, paths: Iterable[str], old_path: str, new_path: str) -> LinkMove:
        """Return the move of `old_path` to `new_path` in a vault holding `paths` (every file, notes or not)."""
        before = set(paths) | {old_path}
        after = (before - {old_path}) | {new_path}
        return cls(old_path, new_path, LinkResolver(before), LinkResolver(after))

    def source_after(self, source: str) -> str:
        """Return where a note is after the move (only the moved note itself changes place)."""
        return self.new_path if source == self.old_path else source


@dataclass(frozen=True, slots=True)
class WrittenLink:
    """A link as written in a note: the line it is on (0-based, after any BOM), its span, and where it sits."""

    line: int
    span: LinkSpan
    is_frontmatter: bool = False


def find_written_links(text: str) -> list[WrittenLink]:
    """Return every link of a note that Obsidian would follow, in order, with its exact place in the text.

    Frontmatter wikilinks count only inside string values (`up: "[[Home]]"`; unquoted `[[x]]` is a YAML list);
    body links in code blocks, inline code, math and `%%` / `<!-- -->` comments do not count.
    """
    lines = split_lines(text)
    frontmatter = read_frontmatter(lines)
    found: list[WrittenLink] = []
    if frontmatter.body_start and frontmatter.error is None:
        found.extend(_frontmatter_links(lines[1 : frontmatter.body_start - 1], frontmatter.data))
    scan = scan_lines(lines[frontmatter.body_start :], first_line=frontmatter.body_start + 1, include_comments=True)
    for line, masked in zip(scan.lines, _mask_comments(scan.lines), strict=True):
        if masked.strip():
            spans = find_link_spans(line.visible, masked, line.number)
            found.extend(WrittenLink(line.number - 1, span) for span in spans)
    return found


def rewrite_links(text: str, *, source: str, move: LinkMove) -> str:
    """Return the note at `source` with every link the move would break pointed at the same file again.

    Args:
        text: the note's exact text before the move (BOM and line endings are kept).
        source: the note's path before the move (the moved note itself is `move.old_path`).
        move: the move and the vault resolved before and after it.

    """
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    raw_lines = text.removeprefix("\ufeff").split("\n")  # the same lines as split_lines, "\r" left at their ends
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for written in find_written_links(text):
        replacement = _replacement(written, raw_lines[written.line], source=source, move=move)
        if replacement is not None:
            edits.setdefault(written.line, []).append((written.span.path_start, written.span.path_end, replacement))
    for index, line_edits in edits.items():
        line = raw_lines[index]
        for start, end, replacement in sorted(line_edits, reverse=True):
            line = line[:start] + replacement + line[end:]
        raw_lines[index] = line
    return bom + "\n".join(raw_lines)


def _replacement(written: WrittenLink, line: str, *, source: str, move: LinkMove) -> str | None:
    """Return the new link path to write in place of the old one, or None when the link keeps working."""
    link = written.span.link
    after_source = move.source_after(source)
    before = move.before.resolve(link.target, source_path=source).path if link.target else source
    if before is None:
        return None  # unresolved before the move: nothing to keep pointing at
    expected = move.source_after(before)
    after = move.after.resolve(link.target, source_path=after_source).path if link.target else after_source
    if after == expected:
        return None
    path = _link_path(link.target, expected, source=after_source, resolver=move.after)
    if path is None:
        return None
    written_path = line[written.span.path_start : written.span.path_end]
    if written.is_frontmatter:
        return _yaml_escaped(path, line[: written.span.start])
    if link.kind == "markdown" and not line[: written.span.path_start].rstrip(" \t").endswith("<"):
        return _url_encoded(path, like=written_path)
    return path


def _link_path(target: str, expected: str, *, source: str, resolver: LinkResolver) -> str | None:
    """Return a link path in the style of `target` that resolves to `expected` from `source`, else None."""
    keeps_md = target.lower().endswith(".md")

    def shown(path: str) -> str:
        return path[:-3] if path.lower().endswith(".md") and not keeps_md else path

    candidates = []
    if target.startswith(("./", "../")):
        relative = posixpath.relpath(expected, posixpath.dirname(source) or ".")
        prefix = "./" if target.startswith("./") and not relative.startswith("../") else ""
        candidates.append(shown(prefix + relative))
    elif "/" in target.lstrip("/"):
        candidates.append(("/" if target.startswith("/") else "") + shown(expected))
    else:
        shortest = resolver.link_text_for(expected)  # the name when unique in the vault, else the full path
        candidates.append(shortest + ".md" if keeps_md and not shortest.lower().endswith(".md") else shortest)
    candidates.append(shown(expected))  # the full vault path, when the style's own form is ambiguous
    for candidate in candidates:
        if resolver.resolve(candidate, source_path=source).path == expected:
            return candidate
    return None


def _url_encoded(path: str, *, like: str) -> str:
    """Return `path` encoded for a bare markdown destination, as fully as the link it replaces was encoded."""
    if _ENCODED_NON_ASCII.search(like):
        return quote(path, safe="/")
    return "".join(_MARKDOWN_ESCAPES.get(char, char) for char in path)


def _yaml_escaped(path: str, before_link: str) -> str:
    """Return `path` escaped for the YAML scalar it is written in (a quote inside quotes must be escaped)."""
    quote_char = _open_quote(before_link)
    if quote_char == "'":
        return path.replace("'", "''")
    if quote_char == '"':
        return path.replace("\\", "\\\\").replace('"', '\\"')
    return path


def _open_quote(text: str) -> str:
    """Return the quote character still open at the end of a YAML line's beginning, or ""."""
    open_quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if (open_quote == '"' and char == "\\") or (open_quote == "'" and text.startswith("''", index)):
            index += 1  # an escaped character, or a doubled quote, inside the quotes
        elif char in "'\"" and (not open_quote or open_quote == char):
            open_quote = "" if open_quote else char
        index += 1
    return open_quote


def _frontmatter_links(yaml_lines: Sequence[str], data: Mapping[str, object]) -> Iterator[WrittenLink]:
    """Yield the wikilinks written in frontmatter string values (line 0 is the opening `---`)."""
    in_values = {match[0] for text in _string_values(data) for match in WIKILINK.finditer(text)}
    for index, line in enumerate(yaml_lines, start=1):
        if line.lstrip().startswith("#"):
            continue
        for match in WIKILINK.finditer(line):
            span = _frontmatter_span(match, line, index + 1, in_values)
            if span is not None:
                yield WrittenLink(index, span, is_frontmatter=True)


def _frontmatter_span(match: re.Match[str], line: str, number: int, in_values: set[str]) -> LinkSpan | None:
    """Return a frontmatter wikilink's span (offsets as written) if it is in a string value, else None.

    In a single-quoted YAML scalar a quote is written doubled (`'[[Bob''s Notes]]'`): the link is the unescaped
    text, while the offsets stay those of the line so a rewrite replaces exactly what is written.
    """
    if _open_quote(line[: match.start()]) != "'" or "''" not in match[0]:
        return wikilink_span(match, line, number) if match[0] in in_values else None
    unescaped = match[0].replace("''", "'")
    value_match = WIKILINK.fullmatch(unescaped)
    written = wikilink_span(match, line, number)
    value = wikilink_span(value_match, unescaped, number) if value_match and unescaped in in_values else None
    if value is None or written is None:
        return None
    return LinkSpan(value.link, written.start, written.end, written.path_start, written.path_end)


def _string_values(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _string_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _string_values(item)


def _mask_comments(lines: Sequence[ScannedLine]) -> list[str]:
    """Return each line's masked text with `%%...%%` and `<!--...-->` comments masked too (same offsets).

    The lines come from a scan that kept comments as text, so `visible` is the line exactly as written and a link's
    offsets are offsets into the note; comments are masked here instead, across lines like Obsidian's.
    """
    close = ""
    masked_lines: list[str] = []
    for line in lines:
        if line.kind == "code":
            masked_lines.append("")
            continue
        text, pos = line.masked, 0
        parts: list[str] = []
        while pos < len(text):
            if not close:
                opener = _COMMENT_OPEN.search(text, pos)
                if opener is None:
                    parts.append(text[pos:])
                    break
                parts.append(text[pos : opener.start()] + MASK * len(opener[0]))
                close, pos = _COMMENT_CLOSE[opener[0]], opener.end()
                continue
            end = text.find(close, pos)
            stop = len(text) if end < 0 else end + len(close)
            parts.append(MASK * (stop - pos))
            pos = stop
            if end >= 0:
                close = ""
        masked_lines.append("".join(parts))
    return masked_lines
