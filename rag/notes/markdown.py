"""Parse one Obsidian note into a `core.domain.Note`: frontmatter, tags, links, headings, tasks, sections.

Section text maps line for line onto the file: a heading section's text starts on the line after its
heading (after the underline for setext headings), the preamble's text on `line_start`; comments are
removed but their newlines kept; trailing blank lines are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from core.domain import BlockId, Heading, Link, Note, Section, Task
from rag.notes.budget import NoteBudget
from rag.notes.frontmatter import frontmatter_aliases, frontmatter_tags, read_frontmatter
from rag.notes.inline import find_block_id, find_links, find_tags, find_task
from rag.notes.scanner import BUDGET_CHECK_LINES, HeadingSpan, Scan, ScannedLine, scan_lines, split_lines

# Comments (%%...%% and <!-- -->) are hidden in reading view and are not sources of tags, links or tasks.
# Obsidian's own cache skips block comments and HTML comments but does read tags and links inside an inline
# %%...%% (observed in obsidian-tasks-demo); we exclude all comments unless asked.
INCLUDE_COMMENTS = False


def dedupe_casefold(items: Iterable[str]) -> tuple[str, ...]:
    """Return items without case-insensitive duplicates, keeping the first casing and order."""
    seen: set[str] = set()
    kept: list[str] = []
    for item in items:
        key = item.casefold()
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return tuple(kept)


def join_text(lines: Iterable[ScannedLine]) -> str:
    """Join the visible text of scanned lines, dropping trailing blank lines."""
    return "\n".join(line.visible for line in lines).rstrip()


def _inline(scan: Scan, budget: NoteBudget | None) -> tuple[list[Link], list[str], list[BlockId], list[Task]]:
    links: list[Link] = []
    tags: list[str] = []
    block_ids: list[BlockId] = []
    tasks: list[Task] = []
    for index, line in enumerate(scan.lines):
        if budget is not None and index % BUDGET_CHECK_LINES == 0:
            budget.check("reading links and tags")
        if line.kind == "code" or not line.masked.strip():
            continue
        line_links, masked = find_links(line.visible, line.masked, line.number)
        links.extend(line_links)
        tags.extend(find_tags(masked))
        block_id = find_block_id(line.masked, line.number)
        if block_id is not None:
            block_ids.append(block_id)
        task = None if line.is_continued else find_task(line.visible, line.number)
        if task is not None:
            tasks.append(task)
    return links, tags, block_ids, tasks


def heading_paths(headings: Sequence[HeadingSpan]) -> list[tuple[str, ...]]:
    """Return the heading path of each heading, built with a level stack (skipped levels allowed)."""
    stack: list[tuple[int, str]] = []
    paths: list[tuple[str, ...]] = []
    for heading in headings:
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        stack.append((heading.level, heading.text))
        paths.append(tuple(text for _, text in stack))
    return paths


def build_sections(scan: Scan) -> list[Section]:
    """Split a scanned body into the preamble and one section per heading (sub-sections excluded)."""
    lines = scan.lines
    if not lines:
        return []
    sections: list[Section] = []
    first_heading = scan.headings[0].first if scan.headings else len(lines)
    preamble = join_text(lines[:first_heading])
    if preamble.strip():
        sections.append(
            Section((), 0, lines[0].number, lines[first_heading - 1].number, preamble, body_line=lines[0].number)
        )
    paths = heading_paths(scan.headings)
    for position, heading in enumerate(scan.headings):
        end = scan.headings[position + 1].first if position + 1 < len(scan.headings) else len(lines)
        text = join_text(lines[heading.last + 1 : end])
        sections.append(
            Section(
                paths[position],
                heading.level,
                lines[heading.first].number,
                lines[end - 1].number,
                text,
                body_line=lines[heading.last].number + 1,
            )
        )
    return sections


def parse_note(
    path: str, text: str, *, include_comments: bool = INCLUDE_COMMENTS, budget: NoteBudget | None = None
) -> Note:
    """Parse an Obsidian note given its vault-relative POSIX path and its text.

    Args:
        path: vault-relative POSIX path, e.g. "Projects/Alpha.md"; the title is its stem.
        text: the note's markdown.
        include_comments: treat `%%comments%%` as text (a source of tags and links) instead of removing them.
        budget: what the note may cost; NoteTooCostly is raised once it is spent.

    """
    lines = split_lines(text)
    frontmatter = read_frontmatter(lines)
    warnings: list[str] = []
    if frontmatter.error is not None:
        warnings.append(frontmatter.error)
    elif frontmatter.body_start == 0 and lines and lines[0].rstrip() == "---":
        warnings.append("frontmatter opened on line 1 is not closed; the note is read as body text")
    body = lines[frontmatter.body_start :]
    scan = scan_lines(body, first_line=frontmatter.body_start + 1, include_comments=include_comments, budget=budget)
    warnings.extend(scan.warnings)
    links, body_tags, block_ids, tasks = _inline(scan, budget)
    headings = [Heading(span.level, span.text, scan.lines[span.first].number) for span in scan.headings]
    return Note(
        path=path,
        title=PurePosixPath(path).stem,
        frontmatter=frontmatter.data,
        frontmatter_error=frontmatter.error,
        aliases=dedupe_casefold(frontmatter_aliases(frontmatter.data)),
        tags=dedupe_casefold([*frontmatter_tags(frontmatter.data), *body_tags]),
        headings=tuple(headings),
        links=(*frontmatter.links, *links),
        block_ids=tuple(block_ids),
        tasks=tuple(tasks),
        sections=tuple(build_sections(scan)),
        warnings=tuple(warnings),
    )
