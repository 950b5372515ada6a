"""The `librarian` CLI end to end: the real bundled embedder over a small vault written by the test."""

from __future__ import annotations

import json
import os
import re
import shutil
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from app.cli.main import cli
from app.process.ownership import DataDirOwnership
from core.settings import BUNDLED_EMBED_MODEL
from tests.conftest import SETTINGS_ENV

NOTES = {
    "Sourdough.md": """
        ---
        tags: [baking]
        ---
        # Sourdough

        ## Starter
        Feed the sourdough starter with rye flour and water every morning; it doubles in six hours.

        ## Baking
        Bake the loaf in a preheated Dutch oven at 250 degrees for twenty minutes with the lid on.
        """,
    "Recipes/Red Lentil Dal.md": """
        ---
        tags: [cooking]
        ---
        # Red Lentil Dal

        ## Spices
        Temper cumin seeds, mustard seeds and turmeric in hot ghee before adding the lentils.

        ## Serving
        Serve the dal with basmati rice and a squeeze of lime.
        """,
    "Recipes/Chili Oil.md": """
        ---
        tags: [cooking, spicy]
        ---
        # Chili Oil

        ## Infusion
        Heat neutral oil with Sichuan pepper, star anise and chili flakes, then let it steep overnight.
        """,
    "Garden/Tomatoes.md": """
        # Tomatoes #garden

        ## Watering
        Water the tomato plants deeply twice a week; straw mulch keeps the soil moist in July.

        ## Varieties
        San Marzano for sauce, Sungold cherries for snacking straight from the vine.
        """,
    "Health/Running Log.md": """
        # Running Log #health

        ## Week 12
        Ran a half marathon in 1:52; the knee felt fine after stretching the hamstrings.
        """,
}
INDEXED = len(NOTES)
BIG_NOTE = "Big.md"  # larger than MAX_NOTE_BYTES below: one file with an error in every run
MAX_NOTE_BYTES = 4000
DAL = "Recipes/Red Lentil Dal.md"

runner = CliRunner()


def write_vault(root: Path) -> Path:
    for rel, text in NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    (root / BIG_NOTE).write_text("# Big\n\n" + "filler words " * 400, encoding="utf-8")
    return root


def cli_env(vault: Path, data_dir: Path, **extra: str) -> dict[str, str | None]:
    """Return the environment for one CLI run: only these settings, whatever the developer's shell has."""
    env: dict[str, str | None] = dict.fromkeys(SETTINGS_ENV)
    env.update(
        VAULT_PATH=str(vault),
        DATA_DIR=str(data_dir),
        MAX_NOTE_BYTES=str(MAX_NOTE_BYTES),
        HF_HUB_OFFLINE="1",
        COLUMNS="250",  # rich wraps at 80 columns when not on a terminal, which would split long paths
    )
    env.update(extra)
    return env


def invoke(env: Mapping[str, str | None], *args: str) -> Result:
    return runner.invoke(cli, list(args), env=dict(env))


def assert_exit(result: Result, code: int) -> None:
    """Assert the exit code and that no exception escaped as a traceback."""
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


def one_line(text: str) -> str:
    return " ".join(text.split())


def search_json(env: Mapping[str, str | None], query: str, *options: str) -> list[dict[str, object]]:
    result = invoke(env, "search", query, "--json", *options)
    assert_exit(result, 0)
    hits = json.loads(result.stdout)
    assert isinstance(hits, list)
    return hits


@dataclass(frozen=True)
class Indexed:
    vault: Path
    data_dir: Path
    env: dict[str, str | None]
    first: Result
    second: Result


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    """Index the small vault twice through the CLI, once for the whole module."""
    root = tmp_path_factory.mktemp("cli")
    vault = write_vault(root / "vault")
    env = cli_env(vault, root / "data")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)  # away from any .env in the directory pytest was started from
        first = invoke(env, "index")
        second = invoke(env, "index")
    return Indexed(vault=vault, data_dir=root / "data", env=env, first=first, second=second)


def test_index_prints_progress_then_a_summary_of_added_notes_and_errors(indexed: Indexed) -> None:
    assert_exit(indexed.first, 0)
    progress = one_line(indexed.first.stderr)
    assert re.search(rf"done .*{INDEXED}/{INDEXED} notes · \d+ chunks · [\d.]+ chunks/s", progress), progress

    summary = one_line(indexed.first.stdout)
    assert f"+{INDEXED} added ~0 modified -0 deleted =0 unchanged" in summary
    assert re.search(rf"{INDEXED + 1} notes · \d+ chunks written", summary)
    assert "1 file(s) not indexed:" in summary
    assert re.search(rf"✗ {BIG_NOTE}: note is [\d.]+ MB, above the [\d.]+ MB limit \(MAX_NOTE_BYTES\)", summary)


def test_second_index_run_leaves_every_note_unchanged(indexed: Indexed) -> None:
    assert_exit(indexed.second, 0)
    summary = one_line(indexed.second.stdout)
    assert f"+0 added ~0 modified -0 deleted ={INDEXED} unchanged" in summary
    assert "0 chunks written · 0 embedded" in summary
    assert f"✗ {BIG_NOTE}:" in summary  # the error persists, so every run reports it


def test_search_json_ranks_the_matching_section_first_with_citation_fields(indexed: Indexed) -> None:
    hits = search_json(indexed.env, "how do I temper cumin and mustard seeds in ghee")

    assert hits, "no hits"
    for hit in hits:
        assert {"path", "heading", "anchor", "score", "text"} <= hit.keys()
        assert isinstance(hit["score"], float)
        assert str(hit["anchor"]).startswith("[[") and str(hit["anchor"]).endswith("]]")
    scores = [float(hit["score"]) for hit in hits]  # type: ignore[arg-type]
    assert scores == sorted(scores, reverse=True)
    top = hits[0]
    assert (top["path"], top["heading"], top["anchor"]) == (DAL, "Spices", "[[Red Lentil Dal#Spices]]")
    assert "cumin seeds" in str(top["text"])


def test_search_prints_rank_anchor_score_location_and_snippet(indexed: Indexed) -> None:
    result = invoke(indexed.env, "search", "water tomato plants mulch", "--k", "2")

    assert_exit(result, 0)
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"1\. \[\[Tomatoes#Watering\]\]  \d\.\d{4}  Garden/Tomatoes\.md:\d+-\d+", lines[0]), lines
    assert lines[1].strip().startswith("Water the tomato plants deeply")
    assert lines[2].startswith("2. ")
    assert len([line for line in lines if re.match(r"\d+\. ", line)]) == 2


def test_search_folder_keeps_only_notes_in_that_folder(indexed: Indexed) -> None:
    query = "bake the loaf in a Dutch oven"
    assert search_json(indexed.env, query)[0]["path"] == "Sourdough.md"

    for folder in ("Recipes", "/Recipes/"):
        hits = search_json(indexed.env, query, "--folder", folder, "--k", "10")
        assert {hit["path"] for hit in hits} == {DAL, "Recipes/Chili Oil.md"}


def test_search_tag_keeps_only_notes_with_any_of_the_tags(indexed: Indexed) -> None:
    query = "bake the loaf in a Dutch oven"

    garden = search_json(indexed.env, query, "--tag", "#garden", "--k", "10")
    assert {hit["path"] for hit in garden} == {"Garden/Tomatoes.md"}

    either = search_json(indexed.env, query, "--tag", "garden", "--tag", "health", "--k", "10")
    assert {hit["path"] for hit in either} == {"Garden/Tomatoes.md", "Health/Running Log.md"}


def test_search_k_caps_the_hits_and_defaults_to_top_k(indexed: Indexed) -> None:
    query = "food and cooking"
    assert len(search_json(indexed.env, query, "--k", "2")) == 2
    assert len(search_json(indexed.env, query)) == 6  # TOP_K's default
    assert len(search_json({**indexed.env, "TOP_K": "3"}, query)) == 3

    result = invoke(indexed.env, "search", query, "--k", "0")
    assert_exit(result, 2)
    assert "--k" in result.output


def test_search_without_matches_prints_the_query_verbatim_even_with_markup(indexed: Indexed) -> None:
    # Rich would read "[/bold]" as a closing tag and fail with a MarkupError if the query were not escaped.
    # No note in Health is tagged #spicy: both filters name something, together they leave nothing.
    result = invoke(indexed.env, "search", "[/bold] [red]x", "--folder", "Health", "--tag", "spicy")

    assert_exit(result, 0)
    assert one_line(result.stdout) == "no notes match '[/bold] [red]x'"


def test_status_json_matches_what_was_indexed(indexed: Indexed) -> None:
    written = re.search(r"(\d+) chunks written", indexed.first.stdout)
    assert written is not None
    result = invoke(indexed.env, "status", "--json")

    assert_exit(result, 0)
    status = json.loads(result.stdout)
    assert status["notes"] == INDEXED
    assert status["chunks"] == int(written.group(1)) > INDEXED
    assert (status["model"], status["dimensions"]) == (BUNDLED_EMBED_MODEL, 384)
    assert status["last_run"]["unchanged"] == INDEXED  # the second run was the last
    assert status["last_run"]["finished_at"]
    assert [row["path"] for row in status["errors"]] == [BIG_NOTE]
    assert "MAX_NOTE_BYTES" in status["errors"][0]["error"]
    assert status["interrupted"] is False


def test_status_prints_notes_chunks_model_last_run_and_errors(indexed: Indexed) -> None:
    result = invoke(indexed.env, "status")

    assert_exit(result, 0)
    text = result.stdout
    assert re.search(rf"^notes\s+{INDEXED}$", text, re.MULTILINE)
    assert re.search(r"^chunks\s+\d+$", text, re.MULTILINE)
    assert re.search(rf"^model\s+{re.escape(BUNDLED_EMBED_MODEL)} \(384 dimensions\)$", text, re.MULTILINE)
    assert re.search(rf"^last run\s+\d{{4}}-\d\d-\d\dT.* =({INDEXED})$", text, re.MULTILINE)
    assert "1 file(s) with errors:" in text
    assert f"✗ {BIG_NOTE}: note is" in text


def test_index_reports_modified_deleted_and_added_notes(indexed: Indexed, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(indexed.vault, vault)
    env = cli_env(tmp_path / "elsewhere", tmp_path / "data")  # the VAULT argument wins over VAULT_PATH
    assert_exit(invoke(env, "index", str(vault)), 0)
    with (vault / "Sourdough.md").open("a", encoding="utf-8") as note:
        note.write("\n## Scoring\nSlash the dough with a razor blade just before it goes into the oven.\n")
    (vault / "Recipes/Chili Oil.md").unlink()
    (vault / "Garden/Garlic.md").write_text("# Garlic\n\nPlant garlic cloves in October.\n", encoding="utf-8")

    result = invoke(env, "index", str(vault))

    assert_exit(result, 0)
    assert "+1 added ~1 modified -1 deleted =3 unchanged" in one_line(result.stdout)
    rerun = invoke(env, "index", str(vault), "--json")
    assert_exit(rerun, 0)
    report = json.loads(rerun.stdout)
    assert (report["added"], report["modified"], report["deleted"], report["unchanged"]) == ([], [], [], INDEXED)
    assert [path for path, _ in report["errors"]] == [BIG_NOTE]


def test_search_on_an_empty_index_says_to_run_index_first(indexed: Indexed, tmp_path: Path) -> None:
    result = invoke(cli_env(indexed.vault, tmp_path / "data"), "search", "sourdough")

    assert_exit(result, 1)
    assert "the index is empty" in result.stderr
    assert "librarian index" in result.stderr


def test_commands_refuse_the_stores_while_another_command_holds_the_data_dir(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    data_dir = tmp_path / "data"
    env = cli_env(vault, data_dir)
    # flock is per open file, so this process's own hold conflicts with the command's as another process's would.
    held = DataDirOwnership.acquire(data_dir, "index", vault=vault)
    try:
        refused = invoke(env, "index")
        search = invoke(env, "search", "sourdough")
        status = invoke(env, "status", "--json")
    finally:
        held.release()

    assert_exit(refused, 1)
    assert f"DATA_DIR {data_dir} is in use by `librarian index` (pid {os.getpid()})" in one_line(refused.stderr)
    assert "wait for it to finish" in refused.stderr
    assert_exit(search, 1)
    assert_exit(status, 0)  # read from the watermarks alone
    assert json.loads(status.stdout)["held_by"] == f"`librarian index` (pid {os.getpid()})"
    assert not (data_dir / "qdrant-edge").exists()  # no store was opened or created
    assert_exit(invoke(env, "index"), 0)  # free again: the command takes DATA_DIR itself


@pytest.mark.parametrize(
    ("extra", "setting", "message"),
    [
        ({"TOP_K": "0"}, "TOP_K", "Input should be greater than 0"),
        ({"EMBED_BATCH_SIZE": "many"}, "EMBED_BATCH_SIZE", "Input should be a valid integer"),
        ({"RERANK_CANDIDATES": "3", "TOP_K": "5"}, "SETTINGS", "RERANK_CANDIDATES (3) must be >= TOP_K (5)"),
        ({"DATA_DIR": "{vault}/.librarian"}, "SETTINGS", "DATA_DIR ({vault}/.librarian) must not be inside the vault"),
    ],
    ids=["top-k-zero", "batch-size-not-a-number", "candidates-below-top-k", "data-dir-inside-vault"],
)
@pytest.mark.parametrize("command", ["index", "search", "status"])
def test_invalid_settings_exit_2_with_a_message_naming_the_setting(
    tmp_path: Path, command: str, extra: dict[str, str], setting: str, message: str
) -> None:
    vault = write_vault(tmp_path / "vault")
    env = cli_env(vault, tmp_path / "data", **{key: value.format(vault=vault) for key, value in extra.items()})
    args = [command, "sourdough"] if command == "search" else [command]

    result = invoke(env, *args)

    assert_exit(result, 2)
    assert f"configuration error ({setting}): {message.format(vault=vault)}" in one_line(result.stderr)
    assert "Value error" not in result.stderr
    assert not (tmp_path / "data").exists() and not (vault / ".librarian").exists()


def test_status_lists_each_warning_with_its_file_and_reason(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    broken = "---\ntags: [unclosed\n---\n# Broken\n\nThe body still counts.\n"
    (vault / "Broken.md").write_text(broken, encoding="utf-8")
    env = cli_env(vault, tmp_path / "data")
    assert_exit(invoke(env, "index"), 0)

    as_json = invoke(env, "status", "--json")
    as_text = invoke(env, "status")

    assert_exit(as_json, 0)
    warnings = [row for row in json.loads(as_json.stdout)["warnings"] if row["path"] == "Broken.md"]
    assert warnings and "frontmatter" in warnings[0]["warning"].lower()
    assert_exit(as_text, 0)
    assert re.search(r"\d+ warning\(s\):", as_text.stdout)
    assert f"! Broken.md: {warnings[0]['warning']}" in one_line(as_text.stdout)


@pytest.mark.parametrize(("command", "argument"), [("search", "QUERY"), ("ask", "QUESTION"), ("index", "[VAULT]")])
def test_help_names_arguments_in_capitals_without_type_brackets(command: str, argument: str) -> None:
    result = invoke({}, command, "--help")

    assert_exit(result, 0)
    assert f"[OPTIONS] {argument}" in one_line(result.stdout)
    assert "{" not in result.stdout and "<bool>" not in result.stdout and "<str>" not in result.stdout
