"""`librarian proposals` without a server: list, show, discard, and apply only after a yes typed on a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from core.settings import Settings
from tests.conftest import ROOT, SETTINGS_ENV
from tests.integration.mcp_support import proposal_ids
from tests.web_support import propose_locally, run_write_tool_locally

NOTE = "Inbox/Quick capture.md"
runner = CliRunner()


def env_of(settings: Settings) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS_ENV}
    return {**env, "VAULT_PATH": str(settings.vault_path), "DATA_DIR": str(settings.data_dir), "COLUMNS": "200"}


def apply_on_a_terminal(settings: Settings, proposal_id: str, answer: str) -> str:
    """Run `librarian proposals apply ID` with a terminal for stdin, type `answer`, return what it printed."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "proposals", "apply", proposal_id],
        env=env_of(settings),
        cwd=ROOT,
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    os.close(terminal)
    time.sleep(0.5)  # the answer waits in the terminal until the prompt reads it
    os.write(controller, f"{answer}\n".encode())
    output, _ = process.communicate(timeout=120)
    os.close(controller)
    assert process.returncode == 0, output
    return output


def test_proposals_are_listed_and_shown_with_their_diff(settings: Settings) -> None:
    proposal_id = propose_locally(settings, "- listed")

    listed = runner.invoke(cli, ["proposals"], env=env_of(settings))
    shown = runner.invoke(cli, ["proposals", "show", proposal_id], env=env_of(settings))

    assert listed.exit_code == 0 and proposal_id in listed.stdout and "+- listed" in listed.stdout
    assert shown.exit_code == 0 and f"{proposal_id} · append · {NOTE}" in shown.stdout and "pending" in shown.stdout


def test_a_move_says_where_the_note_goes_and_that_its_text_stays_never_a_bare_diff_header(
    settings: Settings, vault: Path
) -> None:
    (vault / "Inbox" / "platypus.MD").write_text("# Platypus\n\nLays eggs.\n", encoding="utf-8")  # any case of .md
    arguments = {"path": "Inbox/platypus.MD", "new_path": "Resources/"}

    reply = run_write_tool_locally(settings, "move_note", arguments)  # what the MCP client's model reads
    (proposal_id,) = proposal_ids(reply)
    listed = runner.invoke(cli, ["proposals"], env=env_of(settings))
    shown = runner.invoke(cli, ["proposals", "show", proposal_id], env=env_of(settings))

    moved = "Moves `Inbox/platypus.MD` to `Resources/platypus.MD`; its text stays the same."
    for text in (reply, listed.stdout, shown.stdout):
        assert moved in text and "+++ b/" not in text, text


def test_apply_asks_on_a_terminal_and_a_pipe_cannot_answer(settings: Settings, vault: Path) -> None:
    before = (vault / NOTE).read_bytes()
    proposal_id = propose_locally(settings, "- typed yes")

    piped = subprocess.run(
        [sys.executable, "-m", "app.cli", "proposals", "apply", proposal_id],
        env=env_of(settings),
        cwd=ROOT,
        input="y\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert piped.returncode == 1 and "on a terminal" in piped.stderr
    assert (vault / NOTE).read_bytes() == before

    declined = apply_on_a_terminal(settings, proposal_id, "n")
    assert "nothing was applied" in declined and (vault / NOTE).read_bytes() == before

    accepted = apply_on_a_terminal(settings, proposal_id, "y")
    assert "+- typed yes" in accepted and "✓ Inbox/Quick capture.md" in accepted and "librarian undo" in accepted
    assert (vault / NOTE).read_text(encoding="utf-8").endswith("- typed yes\n")


def test_discard_leaves_the_note_alone_and_the_proposal_cannot_be_applied(settings: Settings, vault: Path) -> None:
    before = (vault / NOTE).read_bytes()
    proposal_id = propose_locally(settings, "- discarded")

    discarded = runner.invoke(cli, ["proposals", "discard", proposal_id], env=env_of(settings))
    again = runner.invoke(cli, ["proposals", "discard", proposal_id], env=env_of(settings))
    listed = runner.invoke(cli, ["proposals"], env=env_of(settings))

    assert discarded.exit_code == 0 and f"discarded {proposal_id}" in discarded.stdout
    assert again.exit_code == 1 and f"no pending proposal {proposal_id}; nothing was discarded" in again.stderr
    assert "no proposals are waiting" in listed.stdout
    assert (vault / NOTE).read_bytes() == before


def test_unknown_ids_are_an_error_for_apply_and_discard_alike(settings: Settings, vault: Path) -> None:
    proposal_id = propose_locally(settings, "- kept")

    applied = runner.invoke(cli, ["proposals", "apply", "abc"], env=env_of(settings))
    discarded = runner.invoke(cli, ["proposals", "discard", proposal_id, "abc"], env=env_of(settings))
    listed = runner.invoke(cli, ["proposals", "list"], env=env_of(settings))

    assert applied.exit_code == 1 and "no pending proposal abc; nothing was applied" in applied.stderr
    assert discarded.exit_code == 1 and "no pending proposal abc; nothing was discarded" in discarded.stderr
    assert listed.exit_code == 0 and proposal_id in listed.stdout  # the known one of the pair was kept too


def test_proposals_list_is_the_bare_command(settings: Settings) -> None:
    proposal_id = propose_locally(settings, "- listed twice")

    bare = runner.invoke(cli, ["proposals"], env=env_of(settings))
    listed = runner.invoke(cli, ["proposals", "list"], env=env_of(settings))
    helped = runner.invoke(cli, ["proposals", "--help"], env=env_of(settings))

    assert listed.exit_code == 0 and listed.stdout == bare.stdout and proposal_id in listed.stdout
    assert "list" in helped.stdout
