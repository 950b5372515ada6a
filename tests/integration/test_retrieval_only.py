"""Retrieval-only mode through the HTTP edge: passages with citations without an LLM, or the refusal."""

from __future__ import annotations

import json
import logging
import threading
import time

import pytest
from fastapi.testclient import TestClient

from agent.source_question import CAME_FROM, NO_ANSWER_BEFORE
from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from rag.answer.context import REFUSAL
from rag.answer.passages import NO_MODEL_CHANGES, NO_MODEL_NOTICE, PASSAGE_HEAD, retrieval_only_reply
from rag.retrieve import INDEX_BUILDING

QUESTION = "How do I feed the sourdough starter before a bake?"


def reply_to(client: TestClient, messages: list[dict[str, str]]) -> str:
    """Return the reply, not streamed, to a conversation (the client's whole history, this question last)."""
    response = client.post("/v1/chat/completions", json={"model": "vault-librarian", "messages": messages})
    assert response.status_code == 200
    return str(response.json()["choices"][0]["message"]["content"])


def ask(client: TestClient, question: str, *, stream: bool = False) -> str:
    if not stream:
        return reply_to(client, [{"role": "user", "content": question}])
    body = {"model": "vault-librarian", "messages": [{"role": "user", "content": question}], "stream": True}
    with client.stream("POST", "/v1/chat/completions", json=body) as response:
        payloads = [line[6:] for line in response.read().decode().splitlines() if line.startswith("data: ")]
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    pieces = [c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"]]
    assert sum(1 for piece in pieces if piece) > 2  # it arrives in pieces, not as one block
    return "".join(pieces)


def test_without_an_llm_the_reply_is_cited_passages(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"relevance_floor": -1.0, "watch": False}), services)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        reply = ask(client, QUESTION)
        streamed = ask(client, QUESTION, stream=True)
        ready = client.get("/ready").json()

    assert reply.splitlines()[0] == NO_MODEL_NOTICE
    assert "[[Sourdough#" in reply
    assert streamed == reply
    assert ready["mode"] == "retrieval-only" and ready["checks"]["llm"].startswith("not configured")


def test_a_question_starting_with_an_edit_verb_gets_passages_and_a_change_request_does_not(
    settings: Settings, services: Services
) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"relevance_floor": -1.0, "watch": False}), services)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        question = ask(client, "Update on the sourdough starter feeding?")  # read as a change request before
        request = ask(client, "Update the sourdough note with the new feeding schedule")

    assert question.splitlines()[0] == NO_MODEL_NOTICE and "[[Sourdough#" in question
    assert request == NO_MODEL_CHANGES


def test_a_follow_up_is_searched_after_the_question_before_it(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"relevance_floor": -1.0, "watch": False}), services)
    earlier = "What did I think of The Overstory by Richard Powers?"
    messages = [
        {"role": "user", "content": earlier},
        {"role": "assistant", "content": "(passages)"},
        {"role": "user", "content": "Why?"},
    ]
    with TestClient(app, base_url="http://127.0.0.1") as client:
        reply = reply_to(client, messages)
        alone = ask(client, "Why?")

    retriever = services.retriever
    in_context = retrieval_only_reply("Why?", retriever.search_for(retriever.prepare("Why?", earlier)), covered=True)
    assert reply == in_context != alone


def test_tell_me_more_is_searched_in_the_context_of_the_question_before_it(
    settings: Settings, services: Services
) -> None:
    # Searched alone too, "tell me more" after a question on evergreen notes (kepano-obsidian) showed The Machine
    # Stops, a list of advice and a tart recipe.
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"relevance_floor": -1.0, "watch": False}), services)
    earlier = "What did I think of The Overstory by Richard Powers?"
    messages = [
        {"role": "user", "content": earlier},
        {"role": "assistant", "content": "(passages)"},
        {"role": "user", "content": "Tell me more"},
    ]
    with TestClient(app, base_url="http://127.0.0.1") as client:
        reply = reply_to(client, messages)
        first = ask(client, "Tell me more")
        marks = ask(client, "???")

    retriever = services.retriever
    in_context = retriever.search(f"{earlier}\nTell me more")
    expected = retrieval_only_reply("Tell me more", in_context, covered=True)
    assert reply == expected
    assert first.startswith(REFUSAL) and marks.startswith(REFUSAL)  # nothing to say more of, nothing to search
    assert "[[" not in first and "[[" not in marks  # and no nearest notes of nothing


def test_without_coverage_the_reply_is_the_refusal(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"relevance_floor": 0.999, "watch": False}), services)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        reply = ask(client, "What is the capital of Australia?")

    assert reply.startswith(REFUSAL)
    refusal, searched = reply.split("\n\nNotes searched:\n")  # the nearest sections, no passage of them
    assert "[[" not in refusal and searched.count("- [[") == 3


def test_index_status_reports_counts_and_last_run(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"watch": False}), services)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        status = client.get("/v1/index/status").json()

    assert status["notes"] >= 60 and status["chunks"] > status["notes"]
    assert status["last_report"] is not None
    assert status["watcher"] == {"running": False, "error": "disabled (WATCH=false)"}


def test_index_status_shows_the_watcher(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    with TestClient(create_app(settings, services), base_url="http://127.0.0.1") as client:
        status = client.get("/v1/index/status").json()

    assert status["watcher"] == {"running": True, "error": None}


def test_while_the_first_index_runs_the_reply_says_so(
    settings: Settings, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    real_run = services.reindexer.run_once

    def slow_first_run(*args: object, **kwargs: object) -> object:
        release.wait(timeout=30)
        return real_run()

    monkeypatch.setattr(services.reindexer, "run_once", slow_first_run)
    app = create_app(settings.model_copy(update={"watch": False}), services)
    try:
        with TestClient(app, base_url="http://127.0.0.1") as client:
            reply = ask(client, QUESTION)
            release.set()
    finally:
        release.set()

    assert reply == INDEX_BUILDING


def test_an_empty_vault_says_so_instead_of_still_being_indexed(settings: Settings, services: Services) -> None:
    for note in settings.vault_path.rglob("*"):
        if note.is_file():
            note.unlink()
    app = create_app(settings.model_copy(update={"watch": False}), services)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        status = client.get("/v1/index/status").json()
        for _ in range(200):  # the lifespan's first run fails at once on an empty vault
            if status["runs_failed"]:
                break
            time.sleep(0.02)
            status = client.get("/v1/index/status").json()
        reply = ask(client, QUESTION)

    assert status["vault_empty"] == str(settings.vault_path.resolve())
    assert status["next_retry_at"] is None  # nothing to retry until a note appears
    assert reply.startswith(f"No notes found in {settings.vault_path.resolve()}: there is nothing to search yet.")


def test_starting_without_an_llm_says_so_once(
    settings: Settings, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with TestClient(create_app(settings.model_copy(update={"watch": False}), services), base_url="http://127.0.0.1"):
        pass

    said = [record for record in caplog.records if "retrieval-only" in record.getMessage()]
    assert [record.levelno for record in said] == [logging.WARNING]


def test_which_note_says_that_lists_the_notes_of_the_passages_before_it(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"relevance_floor": -1.0, "watch": False}), services)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        first = ask(client, QUESTION)
        messages = [
            {"role": "user", "content": QUESTION},
            {"role": "assistant", "content": first},
            {"role": "user", "content": "Which note is that from?"},
        ]
        reply = reply_to(client, messages)

    second = reply
    heads = list(dict.fromkeys(PASSAGE_HEAD.findall(first)))  # the passages' own links, not the links inside them
    assert heads and second == "\n".join([CAME_FROM, "", "Sources:", *(f"- {link}" for link in heads)])


def test_which_note_says_that_as_the_first_message_says_no_answer_came_before(
    settings: Settings, services: Services
) -> None:
    # Searched, it found notes about notes (tester: three noise passages).
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"relevance_floor": -1.0, "watch": False}), services)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        reply = ask(client, "Which note says that?")

    assert reply == NO_ANSWER_BEFORE


def test_which_note_says_that_lists_no_link_that_names_no_note(settings: Settings, services: Services) -> None:
    # A client sends the earlier reply back, and may have changed it.
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"watch": False}), services)
    messages = [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": "See [[Sourdough#Final recipe]] and [[Fake Note That Does Not Exist]]."},
        {"role": "user", "content": "which note says that?"},
    ]
    with TestClient(app, base_url="http://127.0.0.1") as client:
        reply = reply_to(client, messages)

    assert reply == f"{CAME_FROM}\n\nSources:\n- [[Sourdough#Final recipe]]"
