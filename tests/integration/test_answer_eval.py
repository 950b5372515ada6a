"""`librarian eval` against the real service over HTTP, with a scripted LLM replaying answers and a scripted judge.

The scripted model answers one question right with a citation, one wrong with an invented citation, refuses an
answerable and an unanswerable one, and proposes a tag for the edit request; the eval's per-item scores and
totals must say exactly that, and the vault must be untouched.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from rag.answer.context import REFUSAL
from tests.conftest import SAMPLE_VAULT
from tests.live_server import serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

SOURDOUGH = "Areas/Cooking/Sourdough.md"
GOLDEN = """
items:
  - id: retard
    kind: answer
    question: How long does the shaped sourdough loaf rest in the fridge?
    expected: [Areas/Cooking/Sourdough.md]
    evidence: ["Cold retard: 14 hours in the fridge at 4 °C, covered."]
    facts: [[14 hours], [4 °C, 4 degrees]]
  - id: garlic
    kind: answer
    question: How many garlic cloves did I plant, and of which variety?
    expected: [Areas/Garden/Garlic.md]
    evidence: ["42 cloves of 'Germidour' (a French softneck)"]
    facts: ["42", Germidour]
  - id: chili
    kind: answer
    question: At what temperature is the chili oil poured over the flakes?
    expected: [Areas/Cooking/Chili Oil.md]
    evidence: ["Let the oil settle at 120 °C"]
    facts: ["120"]
  - id: cake
    kind: refuse
    question: What are the ingredients of my mom's plum cake?
  - id: tag
    kind: edit
    question: Add the tag baking-log to the Sourdough note.
    edit: {path: Areas/Cooking/Sourdough.md, operations: [add tag], adds: [baking-log]}
"""
ANSWERS = {
    "How long does the shaped sourdough loaf rest in the fridge?": Turn.text(
        "The shaped loaf rests 14 hours in the fridge at 4 °C [[Sourdough#Final recipe]]."
    ),
    "How many garlic cloves did I plant, and of which variety?": Turn.text(
        "You planted 12 cloves of Music [[Garlic Bible#Planting]]."
    ),
    "At what temperature is the chili oil poured over the flakes?": Turn.text(REFUSAL),
    "What are the ingredients of my mom's plum cake?": Turn.text(REFUSAL),
    "Add the tag baking-log to the Sourdough note.": Turn.tool_call(
        "edit_note", {"command": "add_tag", "path": "Sourdough", "value": "baking-log"}
    ),
}


def play(request: dict[str, Any]) -> Turn:
    """Answer by the question asked; after a tool result, say that the proposal is shown."""
    messages = request["messages"]
    if messages[-1]["role"] == "tool":
        return Turn.text("I proposed the tag; the change is shown below.")
    # Found in the user's message, wherever the prompt puts it (passages may share that message).
    asked = " ".join(m["content"] for m in messages if m["role"] == "user")
    return next(turn for question, turn in ANSWERS.items() if question in asked)


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    path = tmp_path / "golden.yaml"
    path.write_text(GOLDEN, encoding="utf-8")
    return path


@pytest.fixture
def indexed(services: Services) -> Services:
    services.reindexer.run_once()
    return services


def serve(settings: Settings, services: Services, llm: ScriptedLLMServer | None, **overrides: Any) -> Any:
    """Serve the librarian (agent with `llm`, else retrieval-only) with writes waiting for a yes."""
    # The eval scores replies as shown; these are scripted to be scored (an invented link, a misread number), not
    # refused by the answer check (tests/integration/test_opening_check.py).
    base = {"relevance_floor": -1.0, "watch": False, "write_backend": "files", "answer_check": False}
    update: dict[str, Any] = base | overrides
    if llm is not None:
        update["llm_base_url"] = (llm.base_url,)
    configured = Settings.model_validate({**settings.model_dump(), **update})
    chat_model = OpenAICompatibleChatModel(configured.llm) if llm is not None else None
    return serve_in_thread(create_app(configured, services, chat_model=chat_model))


@pytest.fixture
def librarian(settings: Settings, indexed: Services) -> Iterator[str]:
    with ScriptedLLMServer(play) as llm, serve(settings, indexed, llm) as base_url:
        yield base_url


def run_eval(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["eval", *args])
    return result.exit_code, result.stdout, result.stderr


def expected_ranking(services: Services, question: str) -> tuple[float, float]:
    """Return (recall, reciprocal rank) of Sourdough in the retriever's own top 6, the oracle for the HTTP path."""
    paths = list(dict.fromkeys(hit.chunk.path for hit in services.retriever.search(question, k=6)))
    rank = paths.index(SOURDOUGH) + 1 if SOURDOUGH in paths else None
    return (1.0, 1 / rank) if rank else (0.0, 0.0)


def test_the_eval_scores_each_scripted_reply_and_totals_them(
    librarian: str, golden: Path, settings: Settings, indexed: Services, tmp_path: Path
) -> None:
    before = (settings.vault_path / SOURDOUGH).read_text(encoding="utf-8")
    report_path = tmp_path / "report.json"
    with ScriptedLLMServer(lambda _request: Turn.text('{"score": 0.9, "reason": "ok"}')) as judge:
        code, stdout, stderr = run_eval(
            str(golden), "--url", f"{librarian}/v1", "--vault", str(settings.vault_path),
            "--judge", judge.base_url, "--json", str(report_path),
        )  # fmt: skip
        judged = len(judge.chat_requests)

    assert code == 0, stderr
    report = json.loads(report_path.read_text(encoding="utf-8"))
    items = {item["id"]: item for item in report["items"]}
    retard, garlic, chili, cake, tag = (items[name] for name in ("retard", "garlic", "chili", "cake", "tag"))

    assert (retard["recall"], retard["reciprocal_rank"]) == expected_ranking(indexed, retard["question"])
    assert retard["passed"] and retard["fact_recall"] == 1.0 and retard["citation_recall"] == 1.0
    # The answer's link, the one under the sentence of the note quoted after it, and the sources list.
    assert retard["links_shown"] == retard["links_valid"] == 3
    assert retard["cited_notes"] == [SOURDOUGH]
    assert retard["prompt_tokens"] > 0 and cake["prompt_tokens"] > 0  # counted by the scripted LLM

    # The invented link reached the user unlinked; the sources list shows what was retrieved instead.
    assert "[[Garlic Bible" not in garlic["reply"] and "Garlic Bible" in garlic["reply"]
    assert not garlic["passed"] and garlic["fact_recall"] == 0.0 and garlic["facts_missing"] == ["42", "Germidour"]
    assert garlic["cited_notes"] == [] and garlic["citation_recall"] == 0.0
    assert garlic["links_shown"] == garlic["links_valid"] >= 1

    assert chili["refused"] and not chili["passed"]
    # The notes searched after a refusal are where the user may look, not citations.
    assert "\n\nNotes searched:\n- [[" in chili["reply"] and chili["cited_notes"] == []
    assert cake["refused"] and cake["passed"] and cake["recall"] is None

    assert tag["passed"] and tag["edit_matches"] and tag["written"] == []
    assert [(p["operation"], p["path"]) for p in tag["proposals"]] == [("add tag", SOURDOUGH)]
    assert "baking-log" in " ".join(tag["proposals"][0]["added"])

    totals = report["totals"]
    assert totals["passed"] == {"count": 3, "total": 5, "value": 0.6}
    assert totals["refusals"]["count"] == totals["refusals"]["total"] == 1
    assert (totals["false_refusals"]["count"], totals["false_refusals"]["total"]) == (1, 3)
    assert totals["fact_recall"] == pytest.approx(1 / 3)
    assert totals["correct"]["count"] == 1 and totals["edits"]["count"] == 1 and totals["written"] == 0
    assert totals["citation_validity"]["value"] == 1.0
    assert judged == 3 and totals["judge"] == pytest.approx(0.9)
    assert report["run"]["mode"] == "agent" and report["run"]["k"] == 6
    # Streamed, as chat apps ask: every reply says when its first text came, before its end.
    assert report["run"]["streamed"] is True
    assert all(0 < item["first_token_seconds"] <= item["seconds"] for item in report["items"])
    slowest = max(item["first_token_seconds"] for item in report["items"])
    assert totals["first_token_max"] == pytest.approx(slowest, abs=1e-3)

    assert "retard" in stdout and "Totals" in stdout and "refusals on unanswerable items" in stdout
    assert (settings.vault_path / SOURDOUGH).read_text(encoding="utf-8") == before


def test_a_reply_made_of_passages_because_the_llm_failed_is_flagged(
    settings: Settings, indexed: Services, tmp_path: Path
) -> None:
    golden = tmp_path / "one.yaml"
    golden.write_text(GOLDEN.split("  - id: garlic")[0], encoding="utf-8")
    report_path = tmp_path / "report.json"
    with ScriptedLLMServer(lambda _request: Turn.error(500)) as llm, serve(settings, indexed, llm) as base_url:
        code, stdout, stderr = run_eval(
            str(golden), "--url", base_url, "--vault", str(settings.vault_path), "--json", str(report_path)
        )

    assert code == 0, stderr
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["items"][0]["fell_back"] and report["totals"]["fallbacks"] == 1
    assert "LLM failed, passages shown" in stdout


def test_in_retrieval_only_mode_edits_are_skipped_and_passages_are_scored(
    golden: Path, settings: Settings, indexed: Services, tmp_path: Path
) -> None:
    report_path = tmp_path / "report.json"
    with serve(settings, indexed, None) as base_url:
        code, _stdout, stderr = run_eval(
            str(golden), "--url", base_url, "--vault", str(settings.vault_path), "--json", str(report_path)
        )

    assert code == 0, stderr
    report = json.loads(report_path.read_text(encoding="utf-8"))
    items = {item["id"]: item for item in report["items"]}
    assert report["run"]["mode"] == "retrieval-only"
    assert items["tag"]["passed"] is None and "no model" in items["tag"]["skipped"]
    assert items["retard"]["fact_recall"] == 1.0  # the passage shown holds "14 hours in the fridge at 4 °C"
    assert items["retard"]["links_shown"] == items["retard"]["links_valid"] >= 1
    assert not items["cake"]["refused"]  # the floor is off here, so passages are shown
    assert report["totals"]["skipped"] == 1 and report["totals"]["edits"]["total"] == 0
    assert report["totals"]["prompt_tokens_mean"] is None  # no model, no prompt


def test_streamed_and_whole_replies_are_the_same_text_and_only_a_stream_times_its_first_text(
    golden: Path, settings: Settings, indexed: Services, tmp_path: Path
) -> None:
    reports = {}
    with serve(settings, indexed, None) as base_url:
        for flag in ("--stream", "--no-stream"):
            path = tmp_path / f"{flag}.json"
            code, _stdout, stderr = run_eval(
                str(golden), "--url", base_url, "--vault", str(settings.vault_path), "--json", str(path), flag
            )
            assert code == 0, stderr
            reports[flag] = json.loads(path.read_text(encoding="utf-8"))

    streamed, whole = (reports[flag] for flag in ("--stream", "--no-stream"))
    ran = [item for item in streamed["items"] if not item["skipped"]]
    assert [item["reply"] for item in ran] == [item["reply"] for item in whole["items"] if not item["skipped"]]
    assert all(item["first_token_seconds"] is not None for item in ran)
    assert all(item["first_token_seconds"] is None for item in whole["items"])
    assert whole["run"]["streamed"] is False and whole["totals"]["first_token_p50"] is None


def test_a_stream_that_ends_in_an_error_is_the_item_s_error(
    golden: Path, settings: Settings, indexed: Services, tmp_path: Path
) -> None:
    one = tmp_path / "one.yaml"
    one.write_text(GOLDEN.split("  - id: garlic")[0], encoding="utf-8")
    report_path = tmp_path / "report.json"
    # A model that hangs up mid-answer: the service ends its stream with an OpenAI error chunk.
    hangs_up = ScriptedLLMServer(lambda _request: Turn.disconnect(after_tokens=4))
    with hangs_up as llm, serve(settings, indexed, llm) as base_url:
        code, _stdout, stderr = run_eval(
            str(one), "--url", base_url, "--vault", str(settings.vault_path), "--json", str(report_path)
        )

    assert code == 0, stderr
    item = json.loads(report_path.read_text(encoding="utf-8"))["items"][0]
    assert not item["passed"] and "failed mid-stream: llm is unavailable: the reply" in item["error"]


def test_a_service_that_applies_without_asking_is_not_evaluated(
    golden: Path, settings: Settings, indexed: Services
) -> None:
    with ScriptedLLMServer(play) as llm, serve(settings, indexed, llm, write_confirm=False) as base_url:
        code, _stdout, stderr = run_eval(str(golden), "--url", base_url, "--vault", str(settings.vault_path))
        asked = len(llm.chat_requests)

    assert code == 1
    assert "WRITE_CONFIRM=false" in stderr and asked == 0


def test_an_unreachable_service_is_a_clear_error(golden: Path, settings: Settings) -> None:
    code, _stdout, stderr = run_eval(str(golden), "--url", "http://127.0.0.1:9", "--vault", str(settings.vault_path))

    assert code == 1
    assert "error:" in stderr and "the librarian is unavailable" in stderr and "Traceback" not in stderr


def test_without_a_url_the_eval_serves_a_copy_of_the_vault_itself(golden: Path, tmp_path: Path) -> None:
    # A small vault: the server it starts is a real `librarian serve` with the bundled embedder.
    vault = tmp_path / "small"
    for path in (SOURDOUGH, "Areas/Garden/Garlic.md", "Areas/Cooking/Chili Oil.md"):
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLE_VAULT / path, vault / path)
    report_path = tmp_path / "report.json"

    code, _stdout, stderr = run_eval(
        str(golden), "--no-llm", "--only", "retard", "--only", "tag", "--vault", str(vault), "--json", str(report_path)
    )

    assert code == 0, stderr
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["run"]["mode"] == "retrieval-only" and report["run"]["url"].startswith("started")
    retard, tag = report["items"]
    assert retard["ranked_notes"][0] == SOURDOUGH and retard["links_valid"] >= 1
    assert tag["skipped"] and "no model" in tag["skipped"]
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file()) == sorted(
        [SOURDOUGH, "Areas/Garden/Garlic.md", "Areas/Cooking/Chili Oil.md"]
    )  # nothing written into the vault: the server had a copy, and its DATA_DIR was elsewhere


def test_librarian_eval_refuses_a_golden_set_the_vault_does_not_bear_out_before_asking_anything(
    settings: Settings, tmp_path: Path
) -> None:
    stale = tmp_path / "stale.yaml"
    stale.write_text(
        "items:\n  - {id: moved-note, kind: answer, question: 'How long does the dough rise?', "
        "expected: [Cooking/Bread.md], evidence: [rise for 14 hours], facts: [14 hours]}\n",
        encoding="utf-8",
    )
    # Nothing listens on port 9: a refusal that came from asking would say the librarian is unreachable instead.
    code, _stdout, stderr = run_eval(str(stale), "--url", "http://127.0.0.1:9/v1", "--vault", str(settings.vault_path))

    assert code == 1
    assert "does not match the vault" in stderr and "1 stale item" in stderr
    assert "moved-note: expected note not in the vault: Cooking/Bread.md" in stderr
