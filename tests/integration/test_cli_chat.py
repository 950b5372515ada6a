"""`librarian ask` and `librarian serve` from the terminal: answers, retrieval-only mode, refusals to bind."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from app.cli.main import cli
from app.process.log_redaction import install_log_redaction
from core.settings import Settings
from tests.conftest import SETTINGS_ENV
from tests.scripted_llm import ScriptedLLMServer, Turn

NOTES = {
    "Garden/Garlic.md": "# Garlic\n\n## Planting\n\n42 cloves of Germidour planted in bed 3 on 8 November.\n",
    "Kitchen/Bread.md": "# Bread\n\n## Final recipe\n\nAutolyse 45 minutes, bulk 5 hours at 24 degrees.\n",
    "Inbox/Ideas.md": "# Ideas\n\nA weather station on the balcony.\n",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("cli-chat")
    vault = root / "vault"
    for path, text in NOTES.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    env = {"VAULT_PATH": str(vault), "DATA_DIR": str(root / "data"), "LLM_PROBE_LOCAL_PORTS": "false"}
    result = CliRunner().invoke(cli, ["index"], env=env)
    assert result.exit_code == 0, result.output
    return env


def test_ask_without_an_llm_prints_cited_passages(indexed: dict[str, str]) -> None:
    result = CliRunner().invoke(cli, ["ask", "How many garlic cloves did I plant?"], env=indexed)

    assert result.exit_code == 0, result.output
    assert "No language model is configured" in result.stdout
    assert "[[Garlic#Planting]]" in result.stdout


def test_ask_with_an_llm_streams_its_checked_answer(indexed: dict[str, str]) -> None:
    with ScriptedLLMServer([Turn.text("You planted 42 cloves [[Garlic#Planting]] and [[Nowhere#At all]].")]) as llm:
        result = CliRunner().invoke(
            cli, ["ask", "How many garlic cloves did I plant?"], env={**indexed, "LLM_BASE_URL": llm.base_url}
        )

    assert result.exit_code == 0, result.output
    assert "You planted 42 cloves [[Garlic#Planting]]" in result.stdout
    assert "[[Nowhere" not in result.stdout
    assert "Sources:" in result.stdout


def test_ask_answers_with_passages_when_the_llm_is_unreachable(indexed: dict[str, str]) -> None:
    from tests.scripted_llm import free_port

    url = f"http://127.0.0.1:{free_port()}/v1"
    env = {**indexed, "LLM_BASE_URL": url, "LLM_RETRIES": "0"}
    result = CliRunner().invoke(cli, ["ask", "How many garlic cloves did I plant?"], env=env)

    assert result.exit_code == 0, result.output
    assert "The language model is unreachable" in result.stdout and url not in result.stdout  # the log names it
    assert "[[Garlic#Planting]]" in result.stdout and "Traceback" not in result.output


def test_serve_refuses_a_public_address_without_an_api_key(indexed: dict[str, str]) -> None:
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0"], env=indexed)

    assert result.exit_code == 2
    assert "API_KEY" in result.stderr


def test_log_lines_never_show_configured_keys(tmp_path: Path) -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        settings = Settings(
            _env_file=None,
            vault_path=tmp_path / "v",
            data_dir=tmp_path / "d",
            api_key=SecretStr("service-key-123456"),
            llm_api_key=SecretStr("sk-live-abcdef123456"),
        )
        install_log_redaction(settings)
        logging.getLogger("llm_client").warning("calling with %s and %s", "sk-live-abcdef123456", "service-key-123456")
    finally:
        root.removeHandler(handler)

    logged = stream.getvalue()
    assert "calling with" in logged
    assert "sk-live-abcdef123456" not in logged and "service-key-123456" not in logged


def test_ask_in_a_terminal_shows_the_answer_without_raw_log_lines(indexed: dict[str, str], tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS_ENV}
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "ask", "How many garlic cloves did I plant?"],
        env={**env, **indexed, "HF_HUB_OFFLINE": "1"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    assert "[[Garlic#Planting]]" in result.stdout
    assert "WARNING" not in result.stderr and "INFO" not in result.stderr
