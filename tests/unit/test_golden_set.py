"""The golden set for sample_vault stays true to the vault, and golden-set files are checked before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.eval.golden import GoldenSet, load_golden_set, select_items
from app.eval.matching import found_facts, has_phrase, tokens
from core.errors import InvalidRequest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_VAULT = ROOT / "sample_vault"
GOLDEN = load_golden_set(ROOT / "bench" / "golden" / "sample_vault.yaml")
ANSWERS = [item for item in GOLDEN.items if item.kind == "answer"]
EDITS = [item for item in GOLDEN.items if item.kind == "edit"]


def test_the_sample_vault_set_has_every_kind_of_item() -> None:
    kinds = [item.kind for item in GOLDEN.items]
    assert 20 <= len(kinds) <= 40
    assert kinds.count("answer") >= 12 and kinds.count("refuse") >= 5 and kinds.count("edit") >= 4


@pytest.mark.parametrize("item", ANSWERS, ids=lambda item: item.id)
def test_each_evidence_quote_is_in_an_expected_note(item) -> None:  # type: ignore[no-untyped-def]
    notes = [tokens((SAMPLE_VAULT / path).read_text(encoding="utf-8")) for path in item.expected]
    for quote in item.evidence:
        assert any(has_phrase(note, quote) for note in notes), f"{item.id}: not in {item.expected}: {quote}"


@pytest.mark.parametrize("item", ANSWERS, ids=lambda item: item.id)
def test_each_fact_is_said_in_the_evidence(item) -> None:  # type: ignore[no-untyped-def]
    assert all(found_facts(" ".join(item.evidence), item.facts)), item.id


@pytest.mark.parametrize("item", EDITS, ids=lambda item: item.id)
def test_edits_name_an_existing_note_or_create_a_new_one(item) -> None:  # type: ignore[no-untyped-def]
    assert item.edit is not None
    exists = (SAMPLE_VAULT / item.edit.path).is_file()
    assert exists != (item.edit.operations == ("create",)), item.id


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("items: []", "items: Tuple should have at least 1 item"),
        ("items:\n  - {id: a, kind: answer, question: q}", "item 1 (a): an answer item needs expected notes"),
        ("items:\n  - {id: r, kind: refuse, question: q, expected: [A.md]}", "item 1 (r): a refuse item has only"),
        ("items:\n  - {id: e, kind: edit, question: q}", "item 1 (e): an edit item needs `edit`"),
        ("items:\n  - {id: x, kind: ask, question: q}", "item 1 (x).kind: Input should be 'answer'"),
        ("items:\n  - {id: x, kind: refuse, question: q}\n  - {id: x, kind: refuse, question: p}", "used twice"),
        ("items: [", "is not valid YAML"),
    ],
)
def test_a_bad_golden_set_is_refused_naming_the_item(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "golden.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidRequest, match="golden") as raised:
        load_golden_set(path)
    assert message in raised.value.message


def test_a_missing_golden_set_says_so(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="cannot read the golden set"):
        load_golden_set(tmp_path / "nope.yaml")


def test_items_are_chosen_by_id_kind_and_limit() -> None:
    golden = GoldenSet.model_validate(
        {
            "items": [
                {"id": f"q{n}", "kind": "refuse" if n % 2 else "edit", "question": "q", **_edit(n)} for n in range(5)
            ]
        }
    )
    assert [item.id for item in select_items(golden, kinds=("refuse",))] == ["q1", "q3"]
    assert [item.id for item in select_items(golden, ids=("q4", "q0"))] == ["q0", "q4"]
    assert [item.id for item in select_items(golden, limit=2)] == ["q0", "q1"]
    with pytest.raises(InvalidRequest, match="no item with id q9"):
        select_items(golden, ids=("q9",))


def _edit(number: int) -> dict[str, object]:
    return {} if number % 2 else {"edit": {"path": "A.md", "operations": "add tag"}}
