"""Count how often a real model's edit requests become proposals, and whether a reply ever shows a call as JSON.

Usage:
  python -m bench.text_tool_calls                      # the recorded replies in tests/fixtures/small_model_replies
  python -m bench.text_tool_calls --llm http://127.0.0.1:8081/v1 [--record DIR] [--vault sample_vault]

Without --llm, each recorded model call is read as the service reads it now: a structured call (all the service
understood before), a call written as text (run now), a call of a tool that was not offered (never run; the model
is told), an unusable reply (answered again without tools), or text. With --llm (a model is needed; never a test),
each edit request of EDIT_REQUESTS is sent through the real HTTP API of the service over a private copy of the
vault, behind bench.recording_proxy (every model call saved to --record): the table says whether a proposal was
made, whether the reply shows JSON, and that the vault is unchanged (proposals only).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from bench.recording_proxy import RecordingProxy
from llm_client.replies.text_tool_calls import Reading, TextCalls, read_text_calls
from tests.recorded_replies import RecordedReply, all_recorded, load_recording
from tests.scripted_llm import free_port
from tests.vault_state import vault_hashes

ROOT = Path(__file__).resolve().parents[1]
EDIT_REQUESTS = (
    "Add the tag baking to the Sourdough note.",
    'Add a task "buy rye flour" to the Sourdough note.',
    "Set the status property of the Renew passport note to done.",
    "Add the tag recipe to the Chili Oil note.",
    "Tag the Garlic note with #garden.",
    "Add the line 'Order more compost' to the Composting note.",
)
PROPOSAL = re.compile(r"`[0-9a-f]{4,32}` · ")  # how the edit gate's proposals block starts each proposal
SHOWN_CALL = re.compile(r"""["'](?:name|arguments|parameters)["']\s*:|<tool_call>|\[TOOL_CALLS\]""")


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", help="OpenAI-compatible base URL of a real model; without it, read the fixtures")
    parser.add_argument("--record", type=Path, help="save every model call here (default: a temporary folder)")
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--ask", action="append", help="a request to send instead of EDIT_REQUESTS (repeatable)")
    return parser.parse_args()


def reading_of(reply: RecordedReply) -> str:
    """Return how the service reads one recorded reply now."""
    if reply.calls:
        return "structured call: " + ", ".join(call.name for call in reply.calls)
    read = read_with_parameters(reply)
    names = ", ".join(call.name for call in read.calls)
    return f"{read.reading.value}{': ' + names if names else ''}"


def read_with_parameters(reply: RecordedReply) -> TextCalls:
    """Read a recorded reply as the agent does: with the offered tools' names and parameter names."""
    tools = [tool["function"] for tool in reply.request.get("tools", [])]
    parameters = {name for tool in tools for name in (tool.get("parameters") or {}).get("properties", {})}
    return read_text_calls(reply.text, reply.offered, parameters=parameters)


def report_fixtures() -> None:
    """Print how each recorded model call reads, and the totals for first replies to edit requests."""
    replies = all_recorded()
    print(f"{'fixture':<34} {'tools':>5}  {'reading':<40} text")
    for reply in replies:
        text = json.dumps(reply.text)[:60]
        print(f"{reply.name:<34} {len(reply.offered):>5}  {reading_of(reply):<40} {text}")
    first = [r for r in replies if "edit-" in r.name and r.name.endswith(".1")]
    structured = sum(bool(r.calls) for r in first)
    readings = [read_with_parameters(r).reading for r in first]
    as_text = sum(reading in (Reading.CALLS, Reading.UNOFFERED) for reading in readings)
    offered = sum(reading is Reading.CALLS for reading in readings)
    print(f"first replies to edit requests: {len(first)}; structured calls (all the service ran before): "
          f"{structured}; calls written as text (read now): {as_text}, of an offered tool: {offered}")  # fmt: skip


def run_live(args: argparse.Namespace) -> None:
    """Ask each edit request through the service with a real model; print what became of it."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from app.http.main import create_app
    from app.wiring import build_services
    from core.settings import Settings
    from llm_client import OpenAICompatibleChatModel
    from tests.live_server import serve_in_thread

    with tempfile.TemporaryDirectory(prefix="text-calls-") as scratch:
        vault = Path(scratch) / "vault"
        shutil.copytree(args.vault, vault, ignore=shutil.ignore_patterns(".git"))
        record = args.record or Path(scratch) / "record"
        record.mkdir(parents=True, exist_ok=True)
        upstream = args.llm.rstrip("/").removesuffix("/v1")
        proxy = RecordingProxy(free_port(), upstream, record)
        threading.Thread(target=proxy.serve_forever, daemon=True).start()
        settings = Settings(
            _env_file=None,
            vault_path=vault,
            data_dir=Path(scratch) / "data",
            watch=False,
            write_backend="files",
            llm_base_url=(f"http://127.0.0.1:{proxy.server_address[1]}/v1",),
            llm_read_timeout_seconds=3600,
        )
        services = build_services(settings)
        services.reindexer.run_once()
        before = vault_hashes(vault)
        app = create_app(settings, services, chat_model=OpenAICompatibleChatModel(settings.llm))
        rows = []
        try:
            with serve_in_thread(app) as base_url, httpx.Client(base_url=base_url, timeout=3600) as http:
                for request in args.ask or EDIT_REQUESTS:
                    rows.append(ask_one(http, request, record))
                    print(format_row(rows[-1]), flush=True)
        finally:
            proxy.shutdown()
            services.close()
        made = sum(bool(row["proposed"]) for row in rows)
        shown = sum(bool(row["shows_json"]) for row in rows)
        print(f"edit requests: {len(rows)}; proposals made: {made}; replies showing a call as JSON: {shown}; "
              f"vault unchanged: {vault_hashes(vault) == before}; model calls saved in {record}")  # fmt: skip


def ask_one(http: httpx.Client, request: str, record: Path) -> dict[str, Any]:
    """Send one edit request; return what the user saw and what the model calls were."""
    saved = set(record.glob("*.json"))
    started = time.perf_counter()
    body = {"model": "vault-librarian", "messages": [{"role": "user", "content": request}]}
    response = http.post("/v1/chat/completions", json=body, headers={"X-Conversation-Id": uuid.uuid4().hex})
    reply = response.json()["choices"][0]["message"]["content"] if response.is_success else response.text
    calls = sorted(set(record.glob("*.json")) - saved)
    return {
        "request": request,
        "seconds": time.perf_counter() - started,
        "proposed": len(PROPOSAL.findall(reply)),
        "shows_json": bool(SHOWN_CALL.search(reply)),
        "model_calls": [reading_of(load_recording(path)) for path in calls],
        "reply": reply,
    }


def format_row(row: dict[str, Any]) -> str:
    """Return one table line."""
    calls = " -> ".join(row["model_calls"])
    shown = json.dumps(row["reply"][:100], ensure_ascii=False)
    return (
        f"{row['request'][:58]:<58} {row['seconds']:>6.0f} s  proposals {row['proposed']}  "
        f"json shown {'yes' if row['shows_json'] else 'no '}  model: {calls}\n    the user saw: {shown}"
    )


def main() -> None:
    """Read the fixtures, or run against a real model."""
    args = parse_args()
    if args.llm:
        run_live(args)
    else:
        report_fixtures()


if __name__ == "__main__":
    main()
