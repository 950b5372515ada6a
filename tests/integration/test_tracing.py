"""Tracing over the real HTTP API: span trees of turns and crew runs, no note text by default, OTLP export.

The turns run tools, a proposal, an apply and an undo against the scripted LLM; the spans are read from the SDK's
in-memory exporter, from a real OTLP/HTTP endpoint, and (OTEL_EXPORTER_OTLP_ENDPOINT unset) not made at all.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import StatusCode

from agent.fallback import DEGRADED_MODE, UNREACHABLE_NOTICE
from app.http.main import create_app
from app.process.tracing import TURN_SPAN, conversation_hash
from app.wiring import Services
from core.settings import Settings
from core.tracing import is_tracing
from llm_client import OpenAICompatibleChatModel
from tests.crew_support import crew_world
from tests.integration.edit_flow_support import LLM_KEY, Chat, LibrarianFactory, librarian_factory
from tests.live_server import serve_in_thread
from tests.otlp_collector import OtlpCollector
from tests.scripted_llm import ScriptedLLMServer, Turn
from tests.span_recording import recording

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

ROOT = Path(__file__).resolve().parents[2]
GARLIC = "Areas/Garden/Garlic.md"
ASK = "Add a fertiliser reminder to my Garlic note"
ADDED = "- Side-dress with quokkablend fertiliser in March"
CHAT = "chat scripted-model"
USAGES = ((321, 12), (402, 25), (377, 8), (515, 30))  # (prompt, completion) the scripted server reports per call


@pytest.fixture
def factory(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[LibrarianFactory]:
    with librarian_factory(settings, services, llm, "files") as made:
        yield made


def script_edit_turn(llm: ScriptedLLMServer) -> None:
    """One turn: a failing read, a search, a proposal, then the model's closing words (each call's usage set)."""
    llm.add(
        Turn.tool_call("read_note", {"note": "No Such Note"}, usage=USAGES[0]),
        Turn.tool_call("search_notes", {"query": "garlic fertiliser"}, usage=USAGES[1]),
        Turn.tool_call("edit_note", {"command": "append", "path": "Garlic", "content": ADDED}, usage=USAGES[2]),
        Turn.text("I proposed the change; it is shown below.", usage=USAGES[3]),
    )


def turns(spans: tuple[ReadableSpan, ...]) -> list[ReadableSpan]:
    """Return the turn spans (roots), in the order the turns started."""
    return sorted((s for s in spans if s.parent is None and s.name == TURN_SPAN), key=lambda s: s.start_time or 0)


def children(spans: tuple[ReadableSpan, ...], parent: ReadableSpan) -> list[ReadableSpan]:
    """Return the spans whose parent is `parent`, in start order."""
    span_id = parent.context.span_id if parent.context else None
    found = [s for s in spans if s.parent is not None and s.parent.span_id == span_id]
    return sorted(found, key=lambda s: s.start_time or 0)


def attrs(span: ReadableSpan) -> dict[str, Any]:
    """Return a span's attributes."""
    return dict(span.attributes or {})


def attribute_texts(spans: tuple[ReadableSpan, ...]) -> list[str]:
    """Return every string held by any span: names, attribute values and status descriptions."""
    texts: list[str] = []
    for span in spans:
        texts += [span.name, span.status.description or ""]
        for value in (span.attributes or {}).values():
            texts += [v for v in (value if isinstance(value, tuple) else (value,)) if isinstance(v, str)]
    return texts


def private_lines(llm: ScriptedLLMServer, chat: Chat, vault: Path) -> set[str]:
    """Return the lines of every prompt, tool result, reply and note involved: what spans must not hold by default."""
    texts = [message["content"] or "" for request in llm.chat_requests for message in request.messages]
    texts += [message["content"] for message in chat.messages]
    texts += [(vault / GARLIC).read_text(encoding="utf-8"), ADDED]
    lines = {line.strip() for text in texts for line in text.splitlines()}
    return {line for line in lines if len(line) >= 16 and " " in line}  # paths and ids may be in spans, prose not


def check_model_calls(calls: list[ReadableSpan], llm: ScriptedLLMServer) -> None:
    """Check each model call's span against what the scripted server received and reported."""
    for call, (prompt, completion), request in zip(calls, USAGES, llm.chat_requests, strict=True):
        attributes = attrs(call)
        assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (
            prompt,
            completion,
        )
        assert attributes["gen_ai.operation.name"] == "chat" and attributes["gen_ai.request.model"] == "scripted-model"
        assert (attributes["server.address"], attributes["server.port"]) == ("127.0.0.1", llm.port)
        assert attributes["gen_ai.request.stream"] is True
        assert attributes["librarian.llm.tools_offered"] == len(request.json.get("tools", []))
        duration = ((call.end_time or 0) - (call.start_time or 0)) / 1e9
        assert 0 < attributes["gen_ai.response.time_to_first_chunk"] < duration
    assert [attrs(c)["gen_ai.response.finish_reasons"] for c in calls] == [("tool_calls",)] * 3 + [("stop",)]


def test_a_turn_is_one_span_tree_with_model_calls_tools_proposal_apply_and_undo(
    factory: LibrarianFactory, llm: ScriptedLLMServer, vault: Path
) -> None:
    librarian = factory.start()
    script_edit_turn(llm)
    chat = librarian.chat(stream=True)
    with recording(librarian.settings) as exporter:
        assert "nothing is written yet" in chat.say(ASK)
        assert "Applied 1 change" in chat.say("yes")
        chat.say("undo")
        assert chat.say("yes").startswith("Undone change set")
    spans = exporter.get_finished_spans()

    ask, approve, plan, undo = turns(spans)
    steps = children(spans, ask)
    assert [s.name for s in steps] == [
        "embeddings",
        "retrieval vault",  # the edit request skips the relevance gate
        CHAT,
        "execute_tool read_note",
        CHAT,
        "execute_tool search_notes",
        CHAT,
        "execute_tool edit_note",
        CHAT,
    ]
    check_model_calls([s for s in steps if s.name == CHAT], llm)
    failed, searched, proposed = (s for s in steps if s.name.startswith("execute_tool"))
    assert failed.status.status_code is StatusCode.ERROR and attrs(failed)["error.type"] == "NotFound"
    assert searched.status.status_code is StatusCode.UNSET
    assert attrs(searched)["librarian.tool.result_chars"] > 0
    assert [s.name for s in children(spans, searched)] == ["retrieval vault"]
    (proposal,) = children(spans, proposed)
    assert proposal.name == "propose_edit" and attrs(proposal)["librarian.edit.path"] == GARLIC
    turn = attrs(ask)
    assert turn["gen_ai.usage.input_tokens"] == sum(p for p, _ in USAGES)
    assert turn["gen_ai.usage.output_tokens"] == sum(c for _, c in USAGES)
    assert turn["librarian.turn.mode"] == "agent" and turn["gen_ai.response.finish_reasons"] == ("stop",)

    logged = librarian.http.get("/v1/changes").json()["changes"]
    (change_set,) = {c["change_set_id"] for c in logged if c["undoes"] is None}
    (applied,) = children(spans, approve)
    assert applied.name == "apply_changes" and attrs(applied) == {
        "librarian.change_set.id": change_set,
        "librarian.edit.files": (GARLIC,),
        "librarian.edit.written": 1,
        "librarian.edit.conflicts": 0,
    }
    assert [s.name for s in children(spans, plan)] == ["plan_undo"]
    (undone,) = children(spans, undo)
    assert undone.name == "undo_changes"
    assert attrs(undone)["librarian.change_set.id"] == change_set
    assert attrs(undone)["librarian.undo.is_applied"] is True
    conversation = {attrs(t)["gen_ai.conversation.id"] for t in (ask, approve, plan, undo)}
    assert conversation == {conversation_hash(f"h:{chat.conversation}")}

    texts = attribute_texts(spans)
    leaked = {line for line in private_lines(llm, chat, vault) if any(line in text for text in texts)}
    assert not leaked
    assert not any(chat.conversation in text for text in texts)


def test_trace_content_puts_prompts_replies_and_tool_io_in_spans_with_secrets_masked(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    librarian = factory.start(trace_content=True)
    llm.add(
        Turn.tool_call("search_notes", {"query": "garlic planting"}),
        Turn.text("You planted 42 cloves [[Garlic]]."),
    )
    question = f"How many garlic cloves did I plant? (my key is {LLM_KEY})"
    with recording(librarian.settings) as exporter:
        librarian.chat().say(question)
    spans = exporter.get_finished_spans()

    (turn,) = turns(spans)
    asked = attrs(turn)["librarian.turn.question"]
    assert asked == "How many garlic cloves did I plant? (my key is [REDACTED])"
    assert "You planted 42 cloves [[Garlic]]." in attrs(turn)["librarian.turn.answer"]
    first, second = (s for s in children(spans, turn) if s.name == CHAT)
    prompt = json.loads(attrs(first)["gen_ai.input.messages"])
    sent = llm.chat_requests[0].messages
    assert [message["role"] for message in prompt] == [message["role"] for message in sent]
    assert prompt[-1]["parts"] == [{"type": "text", "content": sent[-1]["content"].replace(LLM_KEY, "[REDACTED]")}]
    assert "How many garlic cloves did I plant? (my key is [REDACTED])" in prompt[-1]["parts"][0]["content"]
    reply = json.loads(attrs(second)["gen_ai.output.messages"])
    assert reply == [{"role": "assistant", "parts": [{"type": "text", "content": "You planted 42 cloves [[Garlic]]."}]}]
    (tool,) = (s for s in children(spans, turn) if s.name == "execute_tool search_notes")
    assert json.loads(attrs(tool)["gen_ai.tool.call.arguments"]) == {"query": "garlic planting"}
    sent_to_model = llm.chat_requests[1].messages[-1]
    assert sent_to_model["role"] == "tool"
    assert attrs(tool)["gen_ai.tool.call.result"] == sent_to_model["content"]
    assert not any(LLM_KEY in text for text in attribute_texts(spans))


def test_a_client_that_goes_away_mid_stream_ends_its_turn_and_model_spans_as_cancelled(
    factory: LibrarianFactory, llm: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    librarian = factory.start(answer_check=False)  # shown as it comes: no note bears these words out
    llm.add(Turn.text([f" word{i}" for i in range(400)], delay_per_token=0.05))  # 20 s if nobody stops it
    with recording(librarian.settings) as exporter:
        stream = librarian.client.chat.completions.create(
            model="vault-librarian", messages=[{"role": "user", "content": "How many garlic cloves?"}], stream=True
        )
        for chunk in stream:
            if chunk.choices and "word3" in (chunk.choices[0].delta.content or ""):
                break
        stream.close()
        deadline = time.monotonic() + 10
        while not (turns(exporter.get_finished_spans()) and llm.abandoned_streams) and time.monotonic() < deadline:
            time.sleep(0.05)
        spans = exporter.get_finished_spans()

    (turn,) = turns(spans)
    (call,) = (span for span in children(spans, turn) if span.name == CHAT)
    assert attrs(turn)["librarian.cancelled"] is True
    assert attrs(call)["librarian.cancelled"] is True
    assert turn.status.status_code is StatusCode.UNSET  # the user leaving is no failure
    assert llm.abandoned_streams == 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]  # e.g. "Failed to detach context"


def test_a_failed_model_call_is_an_error_span_saying_why_and_the_turn_records_its_fallback(
    factory: LibrarianFactory, llm: ScriptedLLMServer
) -> None:
    librarian = factory.start()
    llm.add(Turn.error(500, echo_headers=True))  # a crashed worker, echoing the request's Authorization header
    with recording(librarian.settings) as exporter:
        reply = librarian.chat().say("How many garlic cloves did I plant?")
    spans = exporter.get_finished_spans()

    assert reply.startswith(UNREACHABLE_NOTICE)
    (turn,) = turns(spans)
    (call,) = (span for span in children(spans, turn) if span.name == CHAT)
    assert call.status.status_code is StatusCode.ERROR and attrs(call)["error.type"] == "UpstreamUnavailable"
    assert "HTTP 500" in (call.status.description or "") and LLM_KEY not in (call.status.description or "")
    assert attrs(turn)["librarian.turn.mode"] == DEGRADED_MODE


def test_a_crew_run_is_a_workflow_span_with_a_span_per_task_holding_its_model_call_and_writes(
    settings: Settings,
) -> None:
    with crew_world(settings) as world, recording(world.settings) as exporter:
        state = world.run("Daily-Briefing")
    spans = exporter.get_finished_spans()

    assert state["status"] == "ok", state
    (run,) = (span for span in spans if span.parent is None)
    assert run.name == "invoke_workflow Daily-Briefing"
    assert attrs(run) == {
        "gen_ai.operation.name": "invoke_workflow",
        "librarian.crew.run_id": state["id"],
        "librarian.crew.trigger": "cli",
        "librarian.crew.dry_run": False,
    }
    tasks = children(spans, run)
    assert [task.name for task in tasks] == [f"crew_task {task['id']}" for task in state["tasks"]]
    below = {name for task in tasks for name in (span.name for span in children(spans, task))}
    assert {CHAT, "apply_changes"} <= below
    (applied,) = (span for span in spans if span.name == "apply_changes")
    assert attrs(applied)["librarian.change_set.id"] == state["change_set_id"]
    (call,) = (span for span in spans if span.name == CHAT)
    assert attrs(call)["gen_ai.usage.input_tokens"] > 0 and attrs(call)["gen_ai.response.finish_reasons"] == ("stop",)


def test_spans_reach_an_otlp_http_endpoint_with_the_configured_headers_and_service_name(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    services.reindexer.run_once()
    llm.add(Turn.tool_call("search_notes", {"query": "garlic"}, usage=(210, 9)), Turn.text("42 cloves [[Garlic]]."))
    with OtlpCollector() as collector:
        configured = settings.model_copy(
            update={
                "llm_base_url": (llm.base_url,),
                "watch": False,
                "relevance_floor": -1.0,
                "otel_exporter_otlp_endpoint": collector.endpoint,
                "otel_exporter_otlp_headers": "x-collector-key=c0llect0r,Authorization=Basic%20dXNlcjpwYXNz",
                "otel_service_name": "librarian-under-test",
            }
        )
        configured = Settings.model_validate(configured.model_dump())  # headers become a SecretStr as from the env
        app = create_app(configured, services, chat_model=OpenAICompatibleChatModel(configured.llm))
        with serve_in_thread(app) as base_url:
            client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
            client.chat.completions.create(
                model="vault-librarian", messages=[{"role": "user", "content": "How many garlic cloves?"}]
            )
            assert is_tracing()
        assert not is_tracing()  # the shutdown exported the queued spans and took the tracer out
        exports = collector.exports

    assert exports and all(e.headers["x-collector-key"] == "c0llect0r" for e in exports)
    assert all(e.headers["authorization"] == "Basic dXNlcjpwYXNz" for e in exports)
    spans = [span for export in exports for span in export.spans]
    assert {span.service_name for span in spans} == {"librarian-under-test"}
    (turn,) = (span for span in spans if span.name == TURN_SPAN)
    assert turn.parent_span_id == "" and {span.trace_id for span in spans} == {turn.trace_id}
    under_turn = sorted(span.name for span in spans if span.parent_span_id == turn.span_id)
    assert under_turn == sorted(
        ["embeddings", "relevance_gate", "retrieval vault", CHAT, "execute_tool search_notes", CHAT]
    )
    first_call = next(span for span in spans if span.name == CHAT)
    assert first_call.attributes["gen_ai.usage.input_tokens"] == 210  # the agent streams even a non-streamed turn
    assert first_call.attributes["gen_ai.request.stream"] is True


OFF_SCRIPT = """
import json, sys
import openai
from app.http.main import create_app
from app.wiring import build_services
from core.settings import Settings
from core.tracing import is_tracing
from llm_client import OpenAICompatibleChatModel
from tests.fakes import HashingEmbedder
from tests.live_server import serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

vault, data = sys.argv[1:3]
script = [Turn.tool_call("search_notes", {"query": "garlic"}), Turn.text("42 cloves [[Garlic]].")]
with ScriptedLLMServer(script) as llm:
    settings = Settings(_env_file=None, vault_path=vault, data_dir=data, llm_base_url=llm.base_url,
                        watch=False, relevance_floor=-1.0)
    services = build_services(settings, embedder=HashingEmbedder())
    services.reindexer.run_once()
    app = create_app(settings, services, chat_model=OpenAICompatibleChatModel(settings.llm))
    with serve_in_thread(app) as url:
        reply = openai.OpenAI(base_url=url + "/v1", api_key="x", max_retries=0).chat.completions.create(
            model="vault-librarian", messages=[{"role": "user", "content": "How many garlic cloves?"}])
    services.close()
from opentelemetry import trace
print(json.dumps({
    "reply": reply.choices[0].message.content,
    "llm_calls": len(llm.chat_requests),
    "is_tracing": is_tracing(),
    "export_modules": sorted(
        m for m in sys.modules if m.startswith(("opentelemetry.exporter", "app.process.otel_tracer"))
    ),
    "provider": type(trace.get_tracer_provider()).__name__,
}))
"""


def test_without_an_otlp_endpoint_no_tracer_is_installed_and_no_exporter_is_imported(
    vault: Path, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env |= {"PYTHONPATH": str(ROOT), "TRACE_CONTENT": "true", "OTEL_SERVICE_NAME": "unused"}
    done = subprocess.run(
        [sys.executable, "-c", OFF_SCRIPT, str(vault), str(tmp_path / "data")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert "42 cloves" in result["reply"] and result["llm_calls"] == 2  # a real turn, tools and all, ran
    assert result["is_tracing"] is False
    # (langsmith, under LangGraph, imports the SDK's TracerProvider class when it is installed; it creates none.)
    assert result["export_modules"] == []
    assert result["provider"] == "ProxyTracerProvider"  # OpenTelemetry's default: nothing recorded, nothing sent
