"""The web UI in headless Chromium: approve a proposal an MCP client made, undo it, follow a crew run live.

Skipped, with the reason, where Debian's Chromium is not installed (.ci/run installs it, so CI runs these).
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.crew_support import daily_note_of, schema_answer
from tests.scripted_llm_turns import Turn
from tests.vault_state import vault_hashes
from tests.web_support import CHROMIUM, NO_BROWSER, NOTE, chromium_page, log_in, web_world

NO_PLAYWRIGHT = "the playwright package is missing (pip install -e .[dev])"
expect = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT).expect
LONG_BRIEFING = "\n".join(f"- task {n} is due soon" for n in range(40))


@pytest.fixture(autouse=True)
def browser_or_skip() -> None:
    if CHROMIUM.exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{NO_BROWSER}. CI is set, so the browser tests must run.")
    pytest.skip(NO_BROWSER)


def test_a_proposal_is_applied_on_its_page_and_undone_from_the_changes_page(tmp_path: Path) -> None:
    with web_world(tmp_path, script=schema_answer) as world:
        before = (world.vault / NOTE).read_bytes()
        proposal_id = world.propose_over_mcp("- bought more seed trays")
        with chromium_page() as page:
            log_in(page, world.url, "/proposals")
            card = page.locator(f"[data-proposal='{proposal_id}']")
            expect(card.locator(".diff .add")).to_contain_text("+- bought more seed trays")
            expect(page.locator("nav .count")).to_have_text("1")
            card.get_by_role("button", name="Apply").click()
            expect(page.locator("h1")).to_have_text("Applied")
            applied = (world.vault / NOTE).read_text(encoding="utf-8")

            page.get_by_role("navigation").get_by_role("link", name="Changes").click()
            page.get_by_role("link", name="Undo…").first.click()
            expect(page.locator(".steps")).to_contain_text(NOTE)
            expect(page.locator(".steps")).to_contain_text("restore")
            page.get_by_role("button", name="Undo these changes").click()
            expect(page.locator("h1")).to_contain_text("Undone")
            page.get_by_role("link", name="Back to the changes").click()
            states = page.locator("table.changes .badge").all_inner_texts()

    assert applied.endswith("- bought more seed trays\n")
    assert (world.vault / NOTE).read_bytes() == before
    assert states[0].startswith("undo of") and states[1] == "undone", states


def test_a_crew_run_is_followed_live_on_its_page_then_undone(tmp_path: Path) -> None:
    release = threading.Event()

    def answer(body: dict[str, Any]) -> Turn:
        # Holds the reply after 40 streamed tokens until the test has seen the run going.
        return replace(schema_answer(body, briefing=LONG_BRIEFING), hold=release, hold_after=40)

    with web_world(tmp_path, script=answer) as world:
        untouched = {p: h for p, h in vault_hashes(world.vault).items() if not p.startswith(("_crews/", ".trash/"))}
        with chromium_page() as page:
            log_in(page, world.url, "/crews")
            row = page.locator("tr[data-crew='Daily-Briefing']")
            row.get_by_role("button", name="Enable schedule").click()
            expect(row.locator(".schedule-status .badge")).to_have_text("enabled")
            expect(row.locator(".next-run")).to_contain_text("07:00:00")
            expect(page.locator(".alert.ok")).to_contain_text("0 7 * * *")

            page.locator("tr[data-crew='Daily-Briefing']").get_by_role("button", name="Run", exact=True).click()
            page.wait_for_url(re.compile(r"/crews/runs/"))
            page.evaluate("window.notReloaded = true")  # gone if the page reloads: what follows came over SSE
            task = page.locator("[data-task='briefing']")
            expect(task.locator("[data-task-status]")).to_have_text("running")
            expect(task.locator("[data-task-tokens]")).to_have_text(re.compile(r"^[1-9]\d* tokens$"))
            live_tokens = task.locator("[data-task-tokens]").inner_text()
            assert page.evaluate("window.notReloaded") is True
            release.set()

            expect(page.locator("[data-run-status]")).to_have_text("ok")  # the end of the run reloads the page
            expect(page.locator("[data-run-writes]")).to_have_text("1")
            written = daily_note_of(world.vault).read_text(encoding="utf-8")
            page.get_by_role("link", name="Undo this run…").click()
            expect(page.locator(".steps")).to_contain_text(daily_note_of(world.vault).name)
            page.get_by_role("button", name="Undo these changes").click()
            expect(page.locator("h1")).to_contain_text("Undone")

    assert "- task 39 is due soon" in written and int(live_tokens.split()[0]) < 80
    assert not daily_note_of(world.vault).exists()
    after = {p: h for p, h in vault_hashes(world.vault).items() if not p.startswith(("_crews/", ".trash/"))}
    assert after == untouched
