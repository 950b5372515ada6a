"""The change log and undo over HTTP: GET /v1/changes, GET /v1/undo (the plan), POST /v1/undo (confirm by id)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.wiring import Services
from core.settings import Settings
from tests.integration.edit_flow_support import SERVICE_KEY, Librarian, librarian_factory
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

GARLIC = "Areas/Garden/Garlic.md"
COMPOSTING = "Areas/Garden/Composting.md"


@pytest.fixture(params=["files", "rest"])
def librarian(
    request: pytest.FixtureRequest, settings: Settings, services: Services, llm: ScriptedLLMServer
) -> Iterator[Librarian]:
    with librarian_factory(settings, services, llm, request.param) as factory:
        yield factory.start(api_key=SERVICE_KEY)


def apply_in_chat(librarian: Librarian, llm: ScriptedLLMServer, note: str, line: str) -> str:
    """Propose appending `line` to `note` in a new chat, approve it, and return the applied change set id."""
    llm.add(
        Turn.tool_call("edit_note", {"command": "append", "path": note, "content": line}),
        Turn.text("Proposed."),
    )
    chat = librarian.chat()
    chat.say(f"Add '{line}' to {note}")
    assert "Applied 1 change" in chat.say("yes")
    return str(librarian.http.get("/v1/changes").json()["changes"][0]["change_set_id"])


FILES_ONLY = pytest.mark.parametrize("librarian", ["files"], indirect=True)  # no writer is involved


@FILES_ONLY
def test_nothing_to_undo_gives_a_null_change_set_and_confirming_is_a_conflict(librarian: Librarian) -> None:
    assert librarian.http.get("/v1/changes").json() == {"changes": []}
    assert librarian.http.get("/v1/undo").json() == {
        "change_set_id": None,
        "applied": False,
        "has_writes": False,
        "steps": [],
        "warnings": [],
    }
    assert librarian.http.post("/v1/undo", json={"change_set_id": "abc123abc123"}).status_code == 409


def test_the_plan_changes_nothing_and_confirming_it_restores_the_note(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path, services: Services
) -> None:
    original = (vault / GARLIC).read_bytes()
    change_set = apply_in_chat(librarian, llm, GARLIC, "- Wombatmulch in April")
    changed = (vault / GARLIC).read_bytes()

    plan = librarian.http.get("/v1/undo").json()

    assert plan["change_set_id"] == change_set and plan["applied"] is False
    assert [(s["path"], s["action"]) for s in plan["steps"]] == [(GARLIC, "restore")]
    assert (vault / GARLIC).read_bytes() == changed

    done = librarian.http.post("/v1/undo", json={"change_set_id": change_set})

    assert done.status_code == 200 and done.json()["applied"] is True
    assert (vault / GARLIC).read_bytes() == original
    changes = librarian.http.get("/v1/changes").json()["changes"]
    assert changes[0]["undoes"] == change_set and changes[-1]["status"] == "undone"
    stored = services.docstore.get(GARLIC)
    assert stored is not None and "Wombatmulch" not in stored.markdown  # re-indexed after the undo
    assert librarian.http.get("/v1/undo").json()["change_set_id"] is None


def test_a_stale_change_set_id_is_a_conflict_and_changes_nothing(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path
) -> None:
    first = apply_in_chat(librarian, llm, GARLIC, "- First reminder")
    second = apply_in_chat(librarian, llm, COMPOSTING, "- Second reminder")
    garlic, compost = (vault / GARLIC).read_bytes(), (vault / COMPOSTING).read_bytes()
    log_before = librarian.http.get("/v1/changes").json()

    stale = librarian.http.post("/v1/undo", json={"change_set_id": first})

    assert stale.status_code == 409 and stale.json()["error"]["code"] == "edit_conflict"
    assert f"the last change set is now {second}, not {first}; nothing was undone" in stale.json()["error"]["message"]
    assert (vault / GARLIC).read_bytes() == garlic and (vault / COMPOSTING).read_bytes() == compost
    assert librarian.http.get("/v1/changes").json() == log_before
    assert librarian.http.get("/v1/undo").json()["change_set_id"] == second


def test_undoing_in_order_walks_back_through_the_change_sets(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path
) -> None:
    garlic, compost = (vault / GARLIC).read_bytes(), (vault / COMPOSTING).read_bytes()
    first = apply_in_chat(librarian, llm, GARLIC, "- First reminder")
    second = apply_in_chat(librarian, llm, COMPOSTING, "- Second reminder")

    assert librarian.http.post("/v1/undo", json={"change_set_id": second}).status_code == 200
    assert librarian.http.get("/v1/undo").json()["change_set_id"] == first
    assert librarian.http.post("/v1/undo", json={"change_set_id": first}).status_code == 200

    assert (vault / GARLIC).read_bytes() == garlic and (vault / COMPOSTING).read_bytes() == compost


def test_an_undo_that_could_only_overwrite_an_edit_made_since_is_not_applied_and_stays_undoable(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path
) -> None:
    original = (vault / GARLIC).read_bytes()
    change_set = apply_in_chat(librarian, llm, GARLIC, "- A reminder")
    applied = (vault / GARLIC).read_text(encoding="utf-8")
    users_edit = applied + "My own line.\n"
    (vault / GARLIC).write_text(users_edit, encoding="utf-8")

    plan = librarian.http.get("/v1/undo").json()
    done = librarian.http.post("/v1/undo", json={"change_set_id": change_set}).json()

    assert plan["has_writes"] is False and [s["action"] for s in plan["steps"]] == ["conflict"]
    assert done["applied"] is False and done["has_writes"] is False
    assert done["warnings"] and "edited since" in done["warnings"][0]
    assert (vault / GARLIC).read_text(encoding="utf-8") == users_edit
    assert all(change["undoes"] is None for change in librarian.http.get("/v1/changes").json()["changes"])

    (vault / GARLIC).write_text(applied, encoding="utf-8")  # the user takes their line back out
    again = librarian.http.post("/v1/undo", json={"change_set_id": change_set}).json()

    assert again["applied"] is True and again["has_writes"] is True
    assert (vault / GARLIC).read_bytes() == original


BAD_BODIES = [
    {},
    {"change_set_id": ""},
    {"change_set_id": 7},
    {"change_set_id": "x" * 65},
    {"change_set_id": "a", "x": 1},
]


@FILES_ONLY
def test_a_bad_body_is_a_client_error_and_undoes_nothing(
    librarian: Librarian, llm: ScriptedLLMServer, vault: Path
) -> None:
    apply_in_chat(librarian, llm, GARLIC, "- A reminder")
    changed = (vault / GARLIC).read_bytes()

    for body in BAD_BODIES:
        response = librarian.http.post("/v1/undo", json=body)
        assert response.status_code == 400 and response.json()["error"]["type"] == "invalid_request_error", body
    not_json = librarian.http.post("/v1/undo", content=b"{not", headers={"Content-Type": "application/json"})

    assert not_json.status_code == 400
    assert (vault / GARLIC).read_bytes() == changed
    assert len(librarian.http.get("/v1/changes").json()["changes"]) == 1


@FILES_ONLY
def test_the_change_routes_need_the_api_key(librarian: Librarian) -> None:
    base_url = str(librarian.http.base_url)
    with httpx.Client(base_url=base_url) as anonymous:
        assert anonymous.get("/v1/changes").status_code == 401
        assert anonymous.get("/v1/undo").status_code == 401
        assert anonymous.post("/v1/undo", json={"change_set_id": "abc"}).status_code == 401
