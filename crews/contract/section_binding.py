"""Binding a section.write reply: the model's Markdown checked before it can become a section of a note.

The text must be the model's own (not the contract's shape example, not the material's delimiters copied back),
Markdown rather than the HTML a small model writes (converted, text kept), within max_chars, and link only notes
the material has: a [[link]] is a path, and one that names no collected note, nor stands in the material itself,
was invented. Likewise a #tag: one no collected note has would tag the note written (the 0.5B wrote "#feed the
baby" for the task "Feed the baby" in a briefing).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date

from crews.contract.day_labels import foreign_dates, misplaced_by_day
from crews.contract.placeholders import copied_example, section_example
from crews.model import Material
from llm_client.replies.reply_json import OutputInvalid
from rag.notes.frontmatter import frontmatter_tags
from rag.notes.markdown import parse_note

# The material's own delimiters and the HTML block tags a small model writes instead of Markdown.
_ECHO = re.compile(r"</?\s*(?:note|material)\b", re.IGNORECASE)
_DELIMITER_TAG = re.compile(r"[ \t]*</?\s*(?:note|material)\b[^<>\n]*>[ \t]*\n?", re.IGNORECASE)
_HTML_TAG = re.compile(r"<\s*(/?)\s*(a|p|div|span|br|ul|ol|li|h[1-6]|html|body|strong|em|b|i)\b[^>]*>", re.IGNORECASE)
_LINK = re.compile(r"!?\[\[([^\]|#^]+)(?:[#^][^\]|]*)?(?:\|[^\]]*)?\]\]")  # the target of [[Note#Heading|alias]]
_EMPTY_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+\[.\])?[ \t]*(?:\n|$)", re.MULTILINE)
# What code writes into the material where it leaves text out (crews/contract/material.py, crews/collectors/notes.py):
# "… [1,234 more characters not shown]", "… [3 more task(s) of this note not shown, to fit the model's context]".
_OMISSION_MARK = re.compile(
    r"[ \t]*…?[ \t]*\[(?:shortened to fit the model's context: )?[\d,]+ more (?:characters|note\(s\)|task\(s\))"
    r"[^\[\]\n]*\bnot shown\b[^\[\]\n]*\]"
)
_COMMENT_OR_LINK = re.compile(r"<(?:!--|https?://|mailto:)", re.IGNORECASE)  # a comment, an autolink: kept


def bind_section(text: str, *, limit: int, material: Material) -> str:
    """Return the reply's Markdown checked and cleaned, or raise OutputInvalid saying what to write instead."""
    markdown = text.strip()
    if not markdown:
        raise OutputInvalid("markdown is empty: write the section's text")
    if len(markdown) > limit:
        words = f"markdown has {len(markdown)} characters, more than the {limit} allowed: write a shorter text"
        raise OutputInvalid(_with_misplaced(words, markdown, material))
    if copied_example(markdown, (section_example(limit),)):  # it would land in the note as it is
        raise OutputInvalid("markdown copies the example of the reply's shape: write the section's own text")
    # Whole delimiter tags copied around the text carry nothing: drop them. Any part of one left is copied data.
    markdown = _DELIMITER_TAG.sub("", markdown).strip()
    echo = _ECHO.search(markdown)
    if echo:  # the material's own delimiters: the model copied the data instead of writing the section
        raise OutputInvalid(f"markdown holds {echo[0]!r}: write plain Markdown bullets, not the material's tags")
    markdown = _unwrapped(markdown)
    markdown = html_to_markdown(markdown)  # small models write <h1>, <p>, <li>: the same text, as Markdown
    markdown = _without_empty_items(_without_omission_marks(markdown))
    if not markdown:
        raise OutputInvalid(
            "markdown is empty once its HTML tags and empty list items are taken out: write the section's text"
        )
    known = _linkable(material)
    invented = sorted({link for link in _LINK.findall(markdown) if link.strip().casefold() not in known})
    if invented:
        shown = ", ".join(f"[[{link}]]" for link in invented[:5])
        raise OutputInvalid(f"markdown links {shown}, which are not among the notes given: link only those")
    known_tags = _tags_in(*_material_texts(material)) | {
        tag.casefold() for item in material.items for tag in frontmatter_tags(item.frontmatter)
    }
    new_tags = sorted(_tags_in(markdown) - known_tags)
    if new_tags:  # written into a note, "#feed the baby" tags it "feed": a tag the user never made
        shown = ", ".join(f"#{tag}" for tag in new_tags[:5])
        raise OutputInvalid(f"markdown tags {shown}, which no note given has: write no '#' before words")
    if (today := _as_of(material)) and (misplaced := misplaced_by_day(markdown, today)):  # "Due Today:", overdue
        raise OutputInvalid(misplaced)
    if foreign := foreign_dates(markdown, material):  # "… due 2021-08-22, OVERDUE …** - 2026-12-14"
        raise OutputInvalid(foreign)
    return markdown


def too_long(raw: str, *, limit: int, material: Material) -> str:
    """Return the repair's words for a reply cut off past `limit` characters of Markdown (`raw`: what came of it).

    With the tasks it lists under another day's label, if its text so far shows any: the 1.5B's briefing over
    obsidian-tasks-demo ran past 3,000 characters listing its overdue tasks again under "Due Today" and once more
    under "Tasks Due Next Week", and told only to write less, did so again.
    """
    words = f"markdown has more than the {limit} characters allowed (the reply was cut off there): write a shorter text"
    return _with_misplaced(words, markdown_so_far(raw), material)


def _with_misplaced(words: str, markdown: str, material: Material) -> str:
    """Return `words` asking for a shorter text, and what `markdown` lists under another day's label, if anything.

    The 1.5B's briefing ran past the limit listing its overdue tasks a second time, under "Due Today".
    """
    today = _as_of(material)
    misplaced = misplaced_by_day(markdown, today) if today else ""
    return f"{words}; {misplaced}" if misplaced else words


def _as_of(material: Material) -> date | None:
    """Return the day the material was collected on, as its tasks' standing reads (None: not said)."""
    return date.fromisoformat(material.as_of) if material.as_of else None


_MARKDOWN_VALUE = re.compile(r'"markdown"\s*:\s*"((?:[^"\\]|\\.)*)')  # a JSON string, up to its end or the cut
_OPEN_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{0,3}$")


def markdown_so_far(raw: str) -> str:
    """Return the "markdown" string of a JSON reply cut off inside it, as far as it came ("" for none)."""
    found = _MARKDOWN_VALUE.search(raw)
    if found is None:
        return ""
    try:
        return str(json.loads(f'"{_OPEN_ESCAPE.sub("", found.group(1))}"'))
    except ValueError:
        return ""


def _without_omission_marks(markdown: str) -> str:
    """Return `markdown` without the marks code wrote where it left material out, and the lines that held only one.

    A small model copies what it is shown; written into a note, "… [1,234 more characters not shown]" would be code's
    words in the user's text.
    """
    if not _OMISSION_MARK.search(markdown):
        return markdown
    lines = [(line, _OMISSION_MARK.sub("", line)) for line in markdown.split("\n")]
    return "\n".join(kept for line, kept in lines if kept.strip() or not line.strip())


def _without_empty_items(markdown: str) -> str:
    """Return `markdown` without its list items that hold nothing ("-", "2.", "- [ ]"), which say nothing in a note.

    The 1.5B's briefing over obsidian-tasks-demo listed "Due tomorrow:" over two bare "-" lines.
    """
    kept = _EMPTY_ITEM.sub("", markdown)
    return re.sub(r"\n{3,}", "\n\n", kept).strip() if kept != markdown else markdown


def _unwrapped(markdown: str) -> str:
    """Return `markdown` without the angle brackets a small model wraps it, or its lines, in ("<task A 1 … >").

    Rendered, "<task A 1 Some task …>" is an unknown HTML element whose words are its attributes: the whole briefing
    shows as nothing (the 0.5B on obsidian-tasks-demo; another reply opened every line with "<"). A line opening
    with an HTML tag is left to `html_to_markdown`, a comment or an autolink ("<https://…>") as it is.
    """
    if "\n" not in markdown:
        return _unwrapped_line(markdown)
    lines = markdown.split("\n")
    whole = _unwrapped_line(" ".join(lines))  # one pair of brackets around all the lines
    if whole != " ".join(lines):
        lines[0], lines[-1] = lines[0].removeprefix("<"), lines[-1].removesuffix(">")
    return "\n".join(_unwrapped_line(line) for line in lines).strip()


def _unwrapped_line(line: str) -> str:
    if not line.startswith("<") or _HTML_TAG.match(line) or _COMMENT_OR_LINK.match(line) or _DELIMITER_TAG.match(line):
        return line
    inner = line[1:].removesuffix(">")
    return line if "<" in inner or ">" in inner else inner  # "<bullet>Due today": a tag of its own, kept as text


def _tags_in(*texts: str) -> set[str]:
    """Return the tags `texts` write as Obsidian reads them (not in code or links), casefolded as it compares them."""
    # A leading blank line: a text opening with "---" is body text here, not properties.
    return {tag.casefold() for text in texts for tag in parse_note("section.md", f"\n{text}").tags}


def _linkable(material: Material) -> set[str]:
    """Return the link targets a section may use (casefolded): the collected notes, and the material's own links.

    A link the user wrote in a task line or a note is their own text, copied as the prompt asks, even when no note
    of that name exists (yet): it was not invented.
    """
    names = ((item.title, item.path, item.path.removesuffix(".md")) for item in material.items)
    known = {name.casefold() for group in names for name in group}  # Obsidian resolves all three spellings
    for text in _material_texts(material):
        known.update(link.strip().casefold() for link in _LINK.findall(text))
    return known


def _material_texts(material: Material) -> Iterator[str]:
    for item in material.items:
        yield item.text or ""
        yield from (task.text for task in item.tasks)
        for value in item.frontmatter.values():  # `project: "[[Home]]"`, `related: ["[[A]]", "[[B]]"]`
            yield from (str(part) for part in (value if isinstance(value, list) else [value]))


def html_to_markdown(text: str) -> str:
    """Return `text` with the HTML block tags a small model writes turned into Markdown (text kept, tags gone)."""

    def replace(match: re.Match[str]) -> str:
        closing, tag = match[1], match[2].lower()
        if tag == "li":
            return "" if closing else "\n- "
        if tag in ("strong", "b"):
            return "**"
        if tag in ("em", "i"):
            return "*"
        if tag == "br" or closing and tag in ("p", "div", "ul", "ol") or tag.startswith("h"):
            return "\n"
        return ""

    lines = [line.rstrip() for line in _HTML_TAG.sub(replace, text).splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
