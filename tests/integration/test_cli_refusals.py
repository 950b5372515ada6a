"""What the CLI refuses, in one line and before anything is written: a bad DATA_DIR or vault, a missing folder, tag,
query or question, and a change asked of `librarian ask`."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.process.data_dir_vault import VAULT_FILE
from tests.integration.test_cli import assert_exit, cli_env, invoke, one_line, write_vault

ARGS = {
    "index": ["index"],
    "search": ["search", "sourdough"],
    "status": ["status"],
    "ask": ["ask", "what do I feed the starter?"],
    "serve": ["serve", "--port", "1"],  # refused before it binds: no port is taken
    "mcp": ["mcp"],
}


@pytest.mark.parametrize("command", list(ARGS))
def test_a_data_dir_that_is_a_file_is_refused_in_one_line(tmp_path: Path, command: str) -> None:
    vault = write_vault(tmp_path / "vault")
    data_file = tmp_path / "datafile"
    data_file.write_text("", encoding="utf-8")

    result = invoke(cli_env(vault, data_file), *ARGS[command])
    below = invoke(cli_env(vault, data_file / "data"), *ARGS[command])

    assert_exit(result, 2)
    assert f"configuration error (SETTINGS): DATA_DIR {data_file} is not a folder" in one_line(result.stderr)
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert_exit(below, 2)
    assert f"DATA_DIR {data_file / 'data'} cannot be created: {data_file} is a file" in one_line(below.stderr)
    assert data_file.read_text(encoding="utf-8") == ""


@pytest.mark.parametrize("command", ["index", "search", "status", "ask"])
def test_a_missing_vault_claims_no_data_dir(tmp_path: Path, command: str) -> None:
    vault = write_vault(tmp_path / "vault")
    data_dir = tmp_path / "data"
    missing, a_file = tmp_path / "nope", tmp_path / "note.md"
    a_file.write_text("# not a vault\n", encoding="utf-8")

    absent = invoke(cli_env(missing, data_dir), *ARGS[command])
    not_a_folder = invoke(cli_env(a_file, data_dir), *ARGS[command])

    assert_exit(absent, 1)
    assert f"error: the vault folder {missing} does not exist" in one_line(absent.stderr)
    assert "scanning" not in absent.stderr  # refused before the run started
    assert_exit(not_a_folder, 1)
    assert f"error: the vault path {a_file} is not a folder" in one_line(not_a_folder.stderr)
    assert not data_dir.exists()
    assert_exit(invoke(cli_env(vault, data_dir), "index"), 0)  # the real vault is not refused afterwards
    assert str(vault.resolve()) in (data_dir / VAULT_FILE).read_text(encoding="utf-8")


def test_status_without_a_vault_path_fails_like_mcp(tmp_path: Path) -> None:
    # No VAULT_PATH: the default ./sample_vault, which the working directory (the test's tmp_path) does not hold.
    env = {**cli_env(tmp_path / "unused", tmp_path / "data"), "VAULT_PATH": None}

    status = invoke(env, "status")

    assert_exit(status, 1)
    assert "error: the vault folder sample_vault does not exist" in status.stderr
    assert "notes" not in status.stdout and not (tmp_path / "data").exists()


def test_search_in_a_folder_the_vault_does_not_have_says_so(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    env = cli_env(vault, tmp_path / "data")
    assert_exit(invoke(env, "index"), 0)

    missing = invoke(env, "search", "dal", "--folder", "Nope")
    any_case = invoke(env, "search", "cumin seeds in ghee", "--folder", "recipes/", "--json")

    assert_exit(missing, 1)
    assert "error: no folder 'Nope' in the vault" in one_line(missing.stderr)
    assert "no notes match" not in missing.stdout
    assert_exit(any_case, 0)  # spelled as the vault spells it, as the MCP search tool does
    assert '"path": "Recipes/Red Lentil Dal.md"' in any_case.stdout


def test_search_with_a_tag_no_note_has_names_the_tag_not_the_query(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    env = cli_env(vault, tmp_path / "data")
    assert_exit(invoke(env, "index"), 0)

    missing = invoke(env, "search", "note", "--tag", "nosuchtag")
    nested = invoke(env, "search", "cumin seeds in ghee", "--tag", "#Cooking", "--json")

    assert_exit(missing, 1)
    assert "error: no note is tagged #nosuchtag in the vault" in one_line(missing.stderr)
    assert "no notes match" not in missing.stdout
    assert_exit(nested, 0)
    assert '"path": "Recipes/Red Lentil Dal.md"' in nested.stdout


@pytest.mark.parametrize("query", ["", "   "])
def test_search_for_nothing_is_refused_before_the_index_is_opened(tmp_path: Path, query: str) -> None:
    result = invoke(cli_env(write_vault(tmp_path / "vault"), tmp_path / "data"), "search", query)

    assert_exit(result, 1)
    assert one_line(result.stderr) == "error: the search query is empty"
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("question", ["", "   "])
def test_ask_without_a_question_is_a_usage_error(tmp_path: Path, question: str) -> None:
    result = invoke(cli_env(write_vault(tmp_path / "vault"), tmp_path / "data"), "ask", question)

    assert_exit(result, 1)
    assert "error: ask needs a question" in result.stderr
    assert "conversation" not in result.output


@pytest.mark.parametrize(
    "request_text", ["Add a task to the Todo note: buy matcha", "please tag Sourdough #bread", "Can you tag Sourdough?"]
)
def test_ask_refuses_a_change_request_at_once_and_says_where_changes_are_made(
    tmp_path: Path, request_text: str
) -> None:
    vault = write_vault(tmp_path / "vault")
    # An LLM that cannot be reached: the refusal comes before any model or store is opened.
    env = cli_env(vault, tmp_path / "data", LLM_BASE_URL="http://127.0.0.1:9/v1")

    result = invoke(env, "ask", request_text)

    assert_exit(result, 1)
    message = one_line(result.stderr)
    assert "`librarian ask` answers questions and changes no note" in message
    assert "`librarian serve`" in message and "MCP client" in message
    assert not (tmp_path / "data").exists()
