"""run.md as Obsidian reads it: what the log quotes from the model or the notes never becomes live Markdown."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt

from crews.logs.run_state import RunState, TaskState
from crews.logs.runlog import RUN_NOTE, RunStore, inert, render_run_note

COPIED = "Renew the passport\n- [ ] #task Buy milk 📅 2026-12-01\n# Shopping\n> quote\n1. first [[Home]] ![[Secret]]"
# What the Tasks plugin takes for a task, and Obsidian for a tag, on a raw line (their parsers read lines, not HTML).
TASK_LINE = re.compile(r"^[\s>]*([-*+]|\d+[.)])\s+\[.\]")
TAG = re.compile(r"(?<![\\\w#])#[^\s#\\]+")
HEADING = re.compile(r"^#{1,6}\s")


def state(**changes: object) -> RunState:
    run = RunState(
        id="20261201-070000-summarize-1a2b",
        crew="Summarize",
        team_path="_crews/Summarize.md",
        trigger="cli",
        dry_run=True,
        started="2026-12-01T07:00:00",
        status="failed",
        finished="2026-12-01T07:01:00",
        error=f"the model's reply did not validate: {COPIED}",
        tasks=[TaskState("summarize", "llm", "Summarizer -> frontmatter.set", "failed", [f"rejected x: {COPIED}"])],
    )
    for key, value in changes.items():
        setattr(run, key, value)
    return run


def body_lines(text: str) -> list[str]:
    return text.split("\n---\n", 1)[1].splitlines()


def test_quoted_model_text_becomes_no_task_heading_tag_or_embed() -> None:
    planned = {"action": "frontmatter.set", "path": "TaskNotes/A.md", "summary": f"set summary: {COPIED}", "diff": ""}
    text = render_run_note(state(planned=[planned]))
    lines = body_lines(text)
    assert not [line for line in lines if TASK_LINE.match(line)]
    assert [line for line in lines if HEADING.match(line)] == [
        "# Summarize: run of 2026-12-01T07:00:00 (dry run)",
        "## summarize (llm: Summarizer -\\> frontmatter.set): failed",
        "## Planned changes (dry run)",
        "### frontmatter.set TaskNotes/A.md",
    ]
    assert not [line for line in lines if "```" not in line and TAG.search(line)]
    tokens = MarkdownIt("commonmark").parse("\n".join(lines))
    assert not [t for t in tokens if t.type in ("blockquote_open", "ordered_list_open", "html_block", "html_inline")]
    assert len([t for t in tokens if t.type == "heading_open"]) == 4  # the log's own
    rendered = MarkdownIt("commonmark").render("\n".join(lines))
    assert "Buy milk" in rendered and "<h1>Shopping" not in rendered and "[[Home]]" in rendered


def test_inert_keeps_the_text_readable_on_one_line() -> None:
    assert inert("- [ ] #task a:: b\r\nnext") == "\\- \\[ \\] \\#task a\\:\\: b ⏎ next"
    assert inert("3. step") == "3\\. step"
    assert MarkdownIt("commonmark").renderInline(inert("**x** `y` <b>z</b> [[A|b]]")) == (
        "**x** `y` &lt;b&gt;z&lt;/b&gt; [[A|b]]"
    )


def test_a_dry_run_diff_holding_a_fence_stays_inside_its_own_fence() -> None:
    diff = "--- a/N.md\n+++ b/N.md\n@@ -1,3 +1,4 @@\n   ```\n code\n+````\n ~~~\n+## Summary"
    planned = {"action": "section.replace", "path": "N.md", "summary": "replace section Summary", "diff": diff}
    text = render_run_note(state(planned=[planned]))
    fences = [t for t in MarkdownIt("commonmark").parse(text.split("\n---\n", 1)[1]) if t.type == "fence"]
    assert [(fence.info, fence.content) for fence in fences] == [("diff", diff + "\n")]


def test_a_secret_is_redacted_in_run_md_although_escaping_changes_its_spelling(tmp_path: Path) -> None:
    secret = "sk_live_token*with#marks"
    store = RunStore(tmp_path, secrets=[secret])
    run = state(tasks=[TaskState("summarize", "llm", "x", "failed", [f"the gateway said: {secret}"])])
    store.save(run)
    text = (tmp_path / run.id / RUN_NOTE).read_text(encoding="utf-8")
    assert "REDACTED" in text
    assert not [part for part in ("sk_live", "sk\\_live", "with#marks", "with\\#marks") if part in text]
