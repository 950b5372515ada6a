"""`librarian serve` stops on SIGTERM while an answer waits on a slow model: after SHUTDOWN_GRACE_SECONDS, not
when the model is done (minutes with LLM_READ_TIMEOUT_SECONDS=900), and the client is told why."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.integration.test_data_dir_owner import (
    SERVER_KEY,
    base_env,
    librarian,
    serve_process,
    wait_until,
    write_notes,
)
from tests.scripted_llm import ScriptedLLMServer, Turn

ANSWER = "Plant the garlic cloves in October, pointy end up."


@dataclass
class Asked:
    """A chat request sent from a thread, and what came back."""

    response: httpx.Response | None = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


def ask_in_thread(url: str, *, stream: bool = False) -> Asked:
    asked = Asked()
    body = {
        "model": "librarian",
        "messages": [{"role": "user", "content": "When do I plant garlic?"}],
        "stream": stream,
    }

    def run() -> None:
        try:
            with httpx.stream(
                "POST",
                f"{url}/v1/chat/completions",
                json=body,
                headers={"Authorization": f"Bearer {SERVER_KEY}"},
                timeout=300,
            ) as response:
                response.read()
            asked.response = response
        except httpx.HTTPError as exc:
            asked.error = exc
        finally:
            asked.done.set()

    threading.Thread(target=run, daemon=True).start()
    return asked


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault")


@contextmanager
def serving(
    vault: Path, data_dir: Path, llm: ScriptedLLMServer, grace: int
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Run `librarian serve` answering with `llm`; yield its URL and process once its first index is done."""
    with serve_process(
        vault,
        data_dir,
        LLM_BASE_URL=llm.base_url,
        LLM_WARM_UP="false",
        LLM_READ_TIMEOUT_SECONDS="900",
        RELEVANCE_FLOOR="-1",  # every question reaches the model
        SHUTDOWN_GRACE_SECONDS=str(grace),
    ) as (url, process, _env):
        yield url, process


def stop_while_answering(process: subprocess.Popen[str], llm: ScriptedLLMServer, asked: Asked) -> str:
    """Send SIGTERM once the model has the question; return the server's output after it exited."""
    wait_until(lambda: bool(llm.chat_requests), what="the question to reach the model", timeout=60)
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=120)  # without a grace it would wait for the model (400 s)
    assert asked.done.wait(timeout=30)
    return output


def test_an_answer_held_by_a_slow_model_is_cut_short_with_a_503_after_the_grace(vault: Path, tmp_path: Path) -> None:
    slow = ScriptedLLMServer(lambda _body: Turn.text("word " * 400), delay_per_token=1.0)
    with slow as llm, serving(vault, tmp_path / "data", llm, grace=1) as (url, process):
        asked = ask_in_thread(url)
        output = stop_while_answering(process, llm, asked)

    assert process.returncode in (0, -signal.SIGTERM), output
    assert asked.error is None and asked.response is not None
    assert asked.response.status_code == 503
    error = asked.response.json()["error"]
    assert error["code"] == "shutting_down" and "shutting down" in error["message"]
    assert "Traceback" not in output and "Application shutdown failed" not in output
    assert "Application shutdown complete" in output  # the stores were closed, after the request unwound
    status = librarian(base_env(vault, tmp_path / "data"), "status", "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["consistency"]["ok"] is True  # the index was left whole


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_an_answer_that_ends_within_the_grace_is_delivered_whole(vault: Path, tmp_path: Path, stream: bool) -> None:
    short = ScriptedLLMServer(lambda _body: Turn.text(ANSWER), delay_per_token=0.2)
    with short as llm, serving(vault, tmp_path / "data", llm, grace=60) as (url, process):
        asked = ask_in_thread(url, stream=stream)
        output = stop_while_answering(process, llm, asked)

    assert process.returncode in (0, -signal.SIGTERM), output
    assert asked.response is not None and asked.response.status_code == 200, asked.error
    if stream:
        lines = [line[6:] for line in asked.response.text.splitlines() if line.startswith("data: ")]
        assert lines[-1] == "[DONE]"  # the stream was not cut at the signal
        chunks = [json.loads(line) for line in lines[:-1]]
        text = "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in chunks if chunk["choices"])
    else:
        text = asked.response.json()["choices"][0]["message"]["content"]
    assert ANSWER in text
    assert "Traceback" not in output
