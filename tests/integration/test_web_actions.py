"""What the web UI's forms do (without a browser): undo any change set after its plan, and the crew pages."""

from __future__ import annotations

import html
import json
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from crews.service import ABORT_REQUESTED
from llm_client import OpenAICompatibleChatModel
from tests.crew_support import crew_world, schema_answer
from tests.live_server import serve_in_thread
from tests.scripted_llm_turns import Turn
from tests.vault_state import vault_hashes
from tests.web_support import csrf_of, propose_locally

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

LOOPBACK = "http://127.0.0.1"
SAME_SITE = {"Origin": LOOPBACK}
GARDEN = "Areas/Garden/Garden Plan 2027.md"
QUICK = "Inbox/Quick capture.md"
LONG_BRIEFING = "\n".join(f"- task {n} is due soon" for n in range(40))


def apply_on_the_page(client: TestClient, ids: list[str]) -> str:
    token = csrf_of(client.get("/proposals").text)
    applied = client.post("/proposals/apply", data={"ids": ids, "csrf": token}, headers=SAME_SITE)
    assert applied.status_code == 200, applied.text
    change_sets = client.get("/v1/changes").json()["changes"]
    return str(change_sets[0]["change_set_id"])


def test_an_older_change_set_is_undone_after_its_plan_and_a_note_edited_since_is_flagged_and_kept(
    settings: Settings, services: Services, vault: Path
) -> None:
    garden_before = (vault / GARDEN).read_text(encoding="utf-8")
    app = create_app(settings.model_copy(update={"write_backend": "files", "watch": False}), services)
    with TestClient(app, base_url=LOOPBACK, follow_redirects=False) as client:
        first = apply_on_the_page(
            client, [propose_locally(settings, "- first set"), propose_locally(settings, "- first set", GARDEN)]
        )
        apply_on_the_page(client, [propose_locally(settings, "- second set")])  # the newest set: first is older
        edited = (vault / QUICK).read_text(encoding="utf-8") + "my own line\n"
        (vault / QUICK).write_text(edited, encoding="utf-8")  # the user's edit after both sets

        listed = client.get("/changes").text
        plan = client.get(f"/changes/{first}/undo").text
        token = csrf_of(plan)
        undone = client.post(f"/changes/{first}/undo", data={"csrf": token}, headers=SAME_SITE)
        again = client.post(f"/changes/{first}/undo", data={"csrf": token}, headers=SAME_SITE)
        after = client.get("/changes").text

    assert f"/changes/{first}/undo" in listed and listed.count("Undo…") == 2
    assert "edited since: left as is" in plan and GARDEN in plan and "1 note(s) were edited since" in plan
    assert undone.status_code == 200 and "Undone" in undone.text
    assert (vault / GARDEN).read_text(encoding="utf-8") == garden_before
    assert (vault / QUICK).read_text(encoding="utf-8") == edited  # kept, with both sets' lines and the user's
    assert again.status_code == 409 and "already" in again.text
    assert f"undo of <code>{first}</code>" in after and after.count("Undo…") == 1


def events_until(client: httpx.Client, path: str, wanted: str | None) -> list[dict[str, Any]]:
    """Read a run's server-sent events until one of type `wanted` (None: to the stream's end)."""
    seen: list[dict[str, Any]] = []
    with client.stream("GET", path) as stream:
        for line in stream.iter_lines():
            if line.startswith("data:"):
                seen.append(json.loads(line[5:]))
                if seen[-1]["type"] == wanted:
                    break
    return seen


def test_the_crew_pages_enable_a_schedule_start_a_run_follow_it_and_abort_it(settings: Settings, vault: Path) -> None:
    release = threading.Event()

    def answer(body: dict[str, Any]) -> Turn:
        return replace(schema_answer(body, briefing=LONG_BRIEFING), hold=release, hold_after=40)

    with crew_world(settings, script=answer, watch=False) as world:
        (vault / "_crews" / "Broken.md").write_text("---\ncrew-kind: team\ntasks: []\n---\n", encoding="utf-8")
        before = vault_hashes(vault)
        model = OpenAICompatibleChatModel(world.settings.llm.model_copy(update={"base_urls": (world.llm.base_url,)}))
        app = create_app(world.settings, world.services, chat_model=model)
        with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=60, follow_redirects=False) as client:
            same_site = {"Origin": url}
            crews = client.get("/crews").text
            token = csrf_of(crews)
            enabled = client.post("/crews/Daily-Briefing/enable", data={"csrf": token}, headers=same_site).text
            jobs = dict(app.state.runtime.crew_schedule.jobs)
            disabled = client.post("/crews/Daily-Briefing/disable", data={"csrf": token}, headers=same_site).text
            started = client.post("/crews/Daily-Briefing/runs", data={"csrf": token, "dry_run": "0"}, headers=same_site)
            assert started.status_code == 303, started.text
            run_page = started.headers["location"]
            going = events_until(client, f"{run_page}/events", "tokens")  # the model is replying
            late = events_until(client, f"{run_page}/events", "tokens")  # a watcher that comes in now
            running = client.get(run_page).text
            aborted = client.post(f"{run_page}/abort", data={"csrf": token}, headers=same_site).text
            release.set()
            ended = events_until(client, f"{run_page}/events", None)
            final = client.get(run_page).text

    assert "Daily-Briefing" in crews and "Task-Triage" in crews
    assert "_crews/Broken.md" in crews and "cannot run" in crews
    assert "The schedule of Daily-Briefing (0 7 * * *) is enabled." in enabled
    assert jobs == {"Daily-Briefing": "0 7 * * *"}
    assert "The schedule of Daily-Briefing is disabled." in disabled
    assert started.status_code == 303 and run_page.startswith("/crews/runs/")
    assert going[-1]["task"] == "briefing" and going[-1]["task_tokens"] > 0
    # It learns first how each task stands, the collector that ended before it came included.
    assert {e["task"]: e["status"] for e in late if e["type"] == "task"} == {
        "open-tasks": "ok",
        "briefing": "running",
        "write": "waiting",
    }
    assert '<noscript><meta http-equiv="refresh"' in running and f'data-run-events="{run_page}/events"' in running
    assert "Abort the run" in running
    assert ABORT_REQUESTED in html.unescape(aborted)
    assert ended[-1]["type"] == "run" and ended[-1]["status"] == "aborted"
    assert "data-run-status>aborted<" in final and "Abort the run" not in final and "noscript" not in final
    assert {p: h for p, h in vault_hashes(vault).items() if not p.startswith("_crews/")} == {
        p: h for p, h in before.items() if not p.startswith("_crews/")
    }
