"""Whether hits are reranked: said only with its condition (README, docs, help), shown by /ready and the status."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient
from rich.console import Console

from app.cli.console import print_status
from app.cli.main import search as search_command
from app.http.main import create_app
from app.http.routes.index import search as search_route
from app.services.index_access import cli_status
from app.wiring import Services
from core.settings import Settings
from sync.index_status import read_stored_status
from tests.fakes import ScriptedAnswerer

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# What names a configured reranker: RERANKER_MODEL_DIR (and RERANKER_MODEL where it is offered).
CONDITION = "RERANKER_MODEL"


def sentences(text: str) -> list[str]:
    """Return the text's sentences, each on one line (a sentence may wrap across lines of the README)."""
    joined = re.sub(r"\s*\n\s*", " ", text)
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+(?=[A-Z`(\"])", joined) if part.strip()]


def test_every_sentence_saying_hits_are_reranked_names_the_setting_it_takes() -> None:
    text = "\n\n".join(path.read_text(encoding="utf-8") for path in DOCS)
    claims = [s for s in sentences(text) if re.search(r"\breranked\b", s, re.I)]

    assert claims  # the README does describe reranking
    assert [claim for claim in claims if CONDITION not in claim] == []


def test_the_search_help_and_the_api_description_say_reranking_needs_a_reranker() -> None:
    for text in (search_command.__doc__ or "", search_route.__doc__ or ""):
        assert "reranked" not in text or CONDITION in text, text


def test_ready_says_no_reranker_is_active_without_one(settings: Settings, services: Services) -> None:
    app = create_app(settings.model_copy(update={"watch": False}), services, answerer=ScriptedAnswerer())
    with TestClient(app, base_url="http://127.0.0.1") as client:
        body = client.get("/ready").json()

    assert body["retrieval"] == {"reranker": None}


def test_ready_names_the_configured_reranker(settings: Settings, services: Services, tmp_path: Path) -> None:
    folder = tmp_path / "ms-marco-MiniLM-L-6-v2"
    configured = settings.model_copy(update={"watch": False, "reranker_model_dir": folder})
    app = create_app(configured, services, answerer=ScriptedAnswerer())
    with TestClient(app, base_url="http://127.0.0.1") as client:
        body = client.get("/ready").json()

    assert body["retrieval"] == {"reranker": str(folder)}


def test_status_says_whether_hits_are_reranked(settings: Settings, services: Services, tmp_path: Path) -> None:
    stored = read_stored_status(services.watermarks, services.store, services.docstore).to_json()
    folder = tmp_path / "ms-marco-MiniLM-L-6-v2"

    printed = []
    for configured in (settings, settings.model_copy(update={"reranker_model_dir": folder})):
        data = cli_status(configured, stored, configured_model=None)
        console = Console(record=True, width=200)
        print_status(console, data)
        printed.append((data["reranker"], console.export_text()))

    (none, none_text), (named, named_text) = printed
    assert none is None
    assert "reranker   none (RERANKER_MODEL_DIR unset): hits keep their fused order" in none_text
    assert named == str(folder)
    assert f"reranker   {folder}" in named_text
