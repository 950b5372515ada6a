"""Every command that reads a vault takes `--vault`: the crew and proposals commands did not, and used VAULT_PATH."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.test_cli import assert_exit, cli_env, invoke, one_line, write_vault


def test_crew_and_proposals_commands_work_on_the_vault_named_not_vault_path(tmp_path: Path) -> None:
    served = write_vault(tmp_path / "served")  # `librarian serve --vault served`, say
    other = write_vault(tmp_path / "other")  # what VAULT_PATH still says in the user's shell
    env = cli_env(other, tmp_path / "data")

    installed = invoke(env, "crew", "install-examples", "--vault", str(served))
    listed = invoke(env, "crew", "list", "--json", "--vault", str(served))
    waiting = invoke(env, "proposals", "--vault", str(served))
    waiting_listed = invoke(env, "proposals", "list", "--vault", str(served))
    runs = invoke(env, "crew", "runs", "--vault", str(served))

    for result in (installed, listed, waiting, waiting_listed, runs):
        assert_exit(result, 0)
    assert (served / "_crews" / "Daily-Briefing.md").is_file()
    assert not (other / "_crews").exists()
    assert "Daily-Briefing" in {crew["name"] for crew in json.loads(listed.stdout)["crews"]}
    assert "no proposals are waiting" in waiting.stdout and "no proposals are waiting" in waiting_listed.stdout


def test_index_takes_the_vault_as_an_argument_or_as_vault_but_not_two_different_ones(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    env = cli_env(tmp_path / "elsewhere", tmp_path / "data")

    both = invoke(env, "index", str(tmp_path / "elsewhere"), "--vault", str(vault))
    named = invoke(env, "index", "--vault", str(vault), "--json")

    assert_exit(both, 2)
    assert "two vaults given" in one_line(both.stderr)
    assert_exit(named, 0)
    assert json.loads(named.stdout)["added"]
