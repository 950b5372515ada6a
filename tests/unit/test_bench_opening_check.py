"""bench.opening_check: recorded replies replayed through the answer check, counted by golden item kind."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

from agent.prompts import DAYS_ADVICE
from app.eval.golden import load_golden_set
from bench.opening_check import days_in, replayed

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = load_golden_set(ROOT / "bench" / "golden" / "sample_vault.yaml")
RECIPE = (
    '<note source="[[Sourdough#Final recipe]]">\n- 400 g bread flour, 100 g whole wheat flour, 375 g water.\n'
    "- Cold retard: 14 hours in the fridge at 4 °C, covered.\n</note>\n"
    '<note source="[[Kitchen MOC#Recipes]]">\n- Still to write down: [[Mom\'s Plum Cake]]\n</note>'
)


def recording(question: str, pieces: list[str], **request: object) -> dict[str, object]:
    """Return a model call as bench.recording_proxy saves it: the request, and the reply's `data:` payloads."""
    content = f"Today is 2026-12-04 (Friday).\n\nNotes for this message:\n{RECIPE}\n\nQuestion: {question}"
    chunks = [{"choices": [{"index": 0, "delta": {"content": piece}}]} for piece in pieces]
    return {
        "request": {"messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": content}]}
        | request,
        "status": 200,
        "sse": [*map(json.dumps, chunks), "[DONE]"],
    }


def test_recorded_replies_are_read_through_the_check_by_their_golden_item(tmp_path: Path) -> None:
    items = {item.id: item for item in GOLDEN.items}
    retard, plum = items["sourdough-cold-retard"], items["plum-cake"]
    calls = [
        recording(retard.question, ["It rests 14 hours ", "in the fridge at 4 °C."]),
        recording(plum.question, ["The plum cake takes wheat flour, ", "water and salt."]),
        recording(plum.question, ['{"quotes": []}'], response_format={"type": "json_object"}),  # a quote call
        recording(plum.question, ["I couldn't find this in your notes."]),
    ]
    for number, call in enumerate(calls, 1):
        (tmp_path / f"{number:03}.json").write_text(json.dumps(call), encoding="utf-8")

    results = replayed(tmp_path, {" ".join(item.question.split()): item for item in GOLDEN.items})

    assert [(r.item.id, r.outcome, r.facts) for r in results] == [
        ("sourdough-cold-retard", "shown", 2),
        ("plum-cake", "withheld", 0),
        ("plum-cake", "model refusal", 0),
    ]
    assert results[1].opening == "The plum cake takes wheat flour, water and salt."


def test_with_the_vault_a_question_about_days_is_replayed_with_their_notes(tmp_path: Path) -> None:
    # The 0.5B's refusal of 2026-11-08's own notes: the service withheld it and quoted them.
    days = load_golden_set(ROOT / "bench" / "golden" / "sample_vault-days.yaml")
    item = next(item for item in days.items if item.id == "day-did-2026-11-08")
    log = '<note source="[[2026-11-08#Log]]">\n- 08:00 Long run, Rosental loop, 12 km at 6:15/km.\n</note>'
    content = (
        f"Today is 2026-12-05 (Saturday).\n\nNotes for this message:\n{log}\n\nQuestion: {item.question}\n"
        f"{DAYS_ADVICE.format(days='2026-11-08')}"
    )
    chunks = [{"choices": [{"index": 0, "delta": {"content": "I couldn't find this in your notes."}}]}]
    call = {
        "request": {"messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": content}]},
        "status": 200,
        "sse": [*map(json.dumps, chunks), "[DONE]"],
    }
    (tmp_path / "001.json").write_text(json.dumps(call), encoding="utf-8")
    items = {" ".join(item.question.split()): item}

    plain = replayed(tmp_path, items)
    with_days = replayed(tmp_path, items, days_in(ROOT / "sample_vault"))

    assert [result.outcome for result in plain] == ["model refusal"]
    assert [result.outcome for result in with_days] == ["withheld"]


def test_a_call_not_told_the_date_is_replayed_on_the_day_it_was_recorded(tmp_path: Path) -> None:
    # A question naming no time relative to today is not told the date (rag/answer/time_cues.py): the day it was
    # asked is the day its recording was saved. The race is still to come on 2026-12-07, and run by 2027-05-01.
    item = next(item for item in GOLDEN.items if item.id == "race-result")
    plan = (
        '<note source="[[Half Marathon Plan#Goal]]">\nRun the Leipzig Half Marathon on **11 April 2027** in '
        "**under 1:49:00**.\n</note>"
    )
    content = f"Notes for this message:\n{plan}\n\nQuestion: {item.question}"
    chunks = [{"choices": [{"index": 0, "delta": {"content": "Your finish time was 1:49."}}]}]
    call = {
        "request": {"messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": content}]},
        "status": 200,
        "sse": [*map(json.dumps, chunks), "[DONE]"],
    }
    path = tmp_path / "001.json"
    path.write_text(json.dumps(call), encoding="utf-8")
    items = {item.question: item}

    os.utime(path, (datetime(2026, 12, 7, 12).timestamp(),) * 2)
    before = replayed(tmp_path, items)
    os.utime(path, (datetime(2027, 5, 1, 12).timestamp(),) * 2)
    after = replayed(tmp_path, items)

    assert [result.outcome for result in before] == ["withheld"]
    assert [result.outcome for result in after] == ["shown"]
