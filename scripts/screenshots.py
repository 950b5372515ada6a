"""Take screenshots of the web UI's pages into docs/screenshots/ (for the README and a look at the pages).

Serves a fresh copy of sample_vault (example crews installed, a scripted model), fills it with a little history
(proposals, an applied change, crew runs), and photographs each page in headless Debian Chromium:

    python scripts/screenshots.py [--out docs/screenshots]

Needs /usr/bin/chromium (`apt-get install chromium`) and the dev extras (`pip install -e .[dev]`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# As the tests run: no model found by probing, no warm-up request, no model downloads.
os.environ.update(HF_HUB_OFFLINE="1", LLM_PROBE_LOCAL_PORTS="false", LLM_WARM_UP="false")

import httpx  # noqa: E402

from tests.crew_support import schema_answer  # noqa: E402
from tests.scripted_llm_turns import Turn  # noqa: E402
from tests.web_support import API_KEY, CHROMIUM, chromium_page, log_in, web_world  # noqa: E402

GARDEN = "Areas/Garden/Garden Plan 2027.md"
BRIEFING = "\n".join(
    [
        "- Overdue: renew the passport (due 12 Nov)",
        "- Due this week: book the car service, water the tomatoes",
        "- Waiting on: the quote for the garden shed roof",
    ]
)


class Model:
    """The scripted model: answers each crew's schema; holds its reply mid-stream while `hold` is set."""

    def __init__(self) -> None:
        self.hold: threading.Event | None = None

    def __call__(self, body: dict[str, Any]) -> Turn:
        """Answer the request."""
        turn = schema_answer(body, briefing=BRIEFING + "\n" + "\n".join(f"- note {n}" for n in range(30)))
        return replace(turn, hold=self.hold, hold_after=36) if self.hold is not None else turn


def prepare(url: str, world: Any) -> dict[str, str]:
    """Give the vault a little history: proposals waiting, one applied, crew runs; return ids for the shots."""
    headers = {"Authorization": f"Bearer {API_KEY}"}
    with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
        applied = [
            world.propose_over_mcp("- ordered seed trays and a propagator"),
            world.propose_over_mcp("- [ ] sow the chili seeds indoors", path=GARDEN),
        ]
        client.post("/v1/proposals/apply", json={"ids": applied}).raise_for_status()
        garden = world.vault / GARDEN
        garden.write_text(garden.read_text(encoding="utf-8") + "- my own line, written after\n", encoding="utf-8")
        world.propose_over_mcp("- call the garage about the service on Friday")
        world.propose_over_mcp("- ask Jonas about the bike trailer", path="Inbox/Bike Repair Notes.md")
        client.post("/v1/crews/Daily-Briefing/enable").raise_for_status()
        run = client.post("/v1/crews/Daily-Briefing/runs", json={}).json()["run"]["id"]
        with client.stream("GET", f"/v1/crews/runs/{run}/events") as stream:
            for _line in stream.iter_lines():
                pass
        dry = client.post("/v1/crews/Task-Triage/runs", json={"dry_run": True}).json()["run"]["id"]
        with client.stream("GET", f"/v1/crews/runs/{dry}/events") as stream:
            for _line in stream.iter_lines():
                pass
        change_set = client.get("/v1/changes").json()["changes"][-1]["change_set_id"]
    return {"run": run, "dry": dry, "change_set": change_set}


def shoot(page: Any, out: Path, name: str) -> None:
    """Save the whole page as `name`.png."""
    page.screenshot(path=str(out / f"{name}.png"), full_page=True)
    print(f"wrote {out / name}.png")  # noqa: T201


def main() -> None:
    """Serve the world and photograph each page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    out = parser.parse_args().out
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is missing: apt-get install chromium")
    out.mkdir(parents=True, exist_ok=True)
    model = Model()
    with tempfile.TemporaryDirectory() as root, web_world(Path(root), script=model) as world:
        ids = prepare(world.url, world)
        with chromium_page(width=1200, height=800) as page:
            page.goto(f"{world.url}/login")
            shoot(page, out, "login")
            log_in(page, world.url, "/")
            page.goto(f"{world.url}/?q=when+do+I+plant+out+the+tomatoes&k=6")
            shoot(page, out, "index")
            page.goto(f"{world.url}/proposals")
            shoot(page, out, "proposals")
            page.goto(f"{world.url}/changes")
            shoot(page, out, "changes")
            page.goto(f"{world.url}/changes/{ids['change_set']}/undo")
            shoot(page, out, "undo")
            page.goto(f"{world.url}/crews")
            shoot(page, out, "crews")
            page.goto(f"{world.url}/crews/runs/{ids['dry']}")
            shoot(page, out, "run-dry")
            model.hold = threading.Event()
            page.goto(f"{world.url}/crews")
            page.locator("tr[data-crew='Daily-Briefing']").get_by_role("button", name="Run", exact=True).click()
            page.wait_for_url(re.compile(r"/crews/runs/"))
            page.locator("[data-task='briefing'] [data-task-tokens]").filter(has_text="tokens").wait_for()
            shoot(page, out, "run-live")
            model.hold.set()
            page.locator("[data-run-status]").filter(has_text="ok").wait_for()
            page.goto(f"{world.url}/crews/runs/{ids['run']}")
            shoot(page, out, "run")
        with chromium_page(width=1200, height=800, dark=True) as page:
            log_in(page, world.url, "/proposals")
            shoot(page, out, "proposals-dark")


if __name__ == "__main__":
    main()
