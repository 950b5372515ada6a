"""The golden sets stay true to their vaults, and golden-set files are checked before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.eval.golden import (
    GoldenSet,
    StaleItem,
    check_against_vault,
    load_golden_set,
    select_items,
    stale_items,
)
from app.eval.matching import found_facts, has_phrase, tokens
from core.errors import InvalidRequest
from rag.answer.question_kind import asks_only_yes_or_no

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


def test_the_sample_vault_set_has_no_stale_item() -> None:
    assert stale_items(GOLDEN, SAMPLE_VAULT) == []


@pytest.mark.parametrize("item", ANSWERS, ids=lambda item: item.id)
def test_each_fact_is_said_in_the_evidence(item) -> None:  # type: ignore[no-untyped-def]
    assert all(found_facts(" ".join(item.evidence), item.facts)), item.id


def test_the_vaultofknowledge_set_has_every_kind_and_each_fact_in_its_evidence() -> None:
    # Its vault is in ../shared (not in a user's clone): the bench checks the quotes against it before a run.
    golden = load_golden_set(ROOT / "bench" / "golden" / "vaultofknowledge.yaml")
    kinds = [item.kind for item in golden.items]
    assert (kinds.count("answer"), kinds.count("refuse"), kinds.count("edit")) == (20, 6, 5)
    assert sum(len(item.expected) > 1 for item in golden.items) >= 3
    assert all(all(found_facts(" ".join(item.evidence), item.facts)) for item in golden.items)


def test_the_yes_or_no_sets_ask_only_yes_or_no_and_hold_both_replies() -> None:
    yes_no = load_golden_set(ROOT / "bench" / "golden" / "sample_vault-yes-no.yaml")
    other = load_golden_set(ROOT / "bench" / "golden" / "vaultofknowledge-yes-no.yaml")  # checked by the bench
    assert stale_items(yes_no, SAMPLE_VAULT) == []
    for golden in (yes_no, other):
        replies = [item.answer_is for item in golden.items]
        assert all(asks_only_yes_or_no(item.question) for item in golden.items)
        assert replies.count("yes") >= 4 and replies.count("no") >= 4 and None not in replies
        assert all(all(found_facts(" ".join(item.evidence), item.facts)) for item in golden.items)


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
        ("items:\n  - {id: r, kind: refuse, question: q, answer_is: 'no'}", "item 1 (r): only an answer item may have"),
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


def _tiny_vault(root: Path) -> Path:
    vault = root / "vault"
    (vault / "Kitchen").mkdir(parents=True)
    (vault / "Kitchen" / "Bread.md").write_text("# Bread\n\nBake at 230 °C for **25 minutes**, lid off.\n", "utf-8")
    (vault / "Garden.md").write_text("Plant garlic in November.\n", "utf-8")
    (root / "Outside.md").write_text("Bake at 230 °C for 25 minutes.\n", "utf-8")
    return vault


def _answer(item_id: str, expected: list[str], quote: str) -> dict[str, object]:
    return {"id": item_id, "kind": "answer", "question": "q", "expected": expected, "evidence": [quote], "facts": ["x"]}


def _edit_item(item_id: str, path: str, operation: str) -> dict[str, object]:
    return {"id": item_id, "kind": "edit", "question": "q", "edit": {"path": path, "operations": [operation]}}


def test_stale_items_are_quotes_missing_from_their_notes_and_edits_on_absent_notes(tmp_path: Path) -> None:
    vault = _tiny_vault(tmp_path)
    golden = GoldenSet.model_validate(
        {
            "items": [
                _answer("true", ["Kitchen/Bread.md"], "bake at 230 °C for 25 minutes, lid off"),  # markup, case
                _answer("reworded", ["Kitchen/Bread.md"], "Bake at 230 °C for 20 minutes"),
                _answer("other-note", ["Kitchen/Bread.md"], "Plant garlic in November."),  # in the vault, not there
                _answer("two-notes", ["Garden.md", "Kitchen/Bread.md"], "25 minutes, lid off"),
                _answer("moved", ["Kitchen/Sourdough.md"], "Bake at 230 °C"),
                _answer("outside", ["../Outside.md"], "Bake at 230 °C"),
                {"id": "no-answer", "kind": "refuse", "question": "q"},
                _edit_item("tag", "Garden.md", "add tag"),
                _edit_item("tag-gone", "Orchard.md", "add tag"),
                _edit_item("create", "Orchard.md", "create"),
                _edit_item("create-taken", "Garden.md", "create"),
            ]
        }
    )
    assert stale_items(golden, vault) == [
        StaleItem("reworded", "evidence in no expected note: 'Bake at 230 °C for 20 minutes'"),
        StaleItem("other-note", "evidence in no expected note: 'Plant garlic in November.'"),
        StaleItem("moved", "expected note not in the vault: Kitchen/Sourdough.md"),
        StaleItem("outside", "expected note not in the vault: ../Outside.md"),
        StaleItem("tag-gone", "no such note to edit: Orchard.md"),
        StaleItem("create-taken", "the note to create already exists: Garden.md"),
    ]


def test_a_golden_set_for_another_vault_is_refused_listing_its_stale_items(tmp_path: Path) -> None:
    vault = _tiny_vault(tmp_path)
    golden = GoldenSet.model_validate(
        {"items": [_answer("fine", ["Garden.md"], "plant garlic"), _answer("wrong", ["Garden.md"], "plant tulips")]}
    )
    with pytest.raises(InvalidRequest) as raised:
        check_against_vault(golden, vault, source=Path("golden.yaml"))
    assert raised.value.message == (
        f"the golden set golden.yaml does not match the vault {vault} (1 stale item; fix the items or give the vault "
        "it was written for):\n  wrong: evidence in no expected note: 'plant tulips'"
    )
    check_against_vault(golden.model_copy(update={"items": golden.items[:1]}), vault, source=Path("golden.yaml"))


def test_the_bench_refuses_a_stale_golden_set_before_starting_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench import answer_quality

    vault = _tiny_vault(tmp_path)
    golden = tmp_path / "golden.yaml"
    golden.write_text(
        "items:\n  - {id: stale, kind: answer, question: q, expected: [Garden.md], evidence: [plant tulips], "
        "facts: [tulips]}\n",
        encoding="utf-8",
    )

    def must_not_run(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the eval ran on a stale golden set")

    monkeypatch.setattr(answer_quality, "evaluate", must_not_run)
    monkeypatch.setattr("sys.argv", ["answer_quality", "--no-llm", "--vault", str(vault), "--golden", str(golden)])
    with pytest.raises(SystemExit) as exited:
        answer_quality.main()
    assert exited.value.code == 2
    assert "stale: evidence in no expected note: 'plant tulips'" in capsys.readouterr().err


def test_every_golden_set_in_bench_is_valid() -> None:
    # The shared vaults' sets are checked against their vaults when a run starts; their shape is checked here.
    paths = sorted((ROOT / "bench" / "golden").glob("*.yaml"))
    assert len(paths) >= 4
    for path in paths:
        items = load_golden_set(path).items
        assert items and len({item.id for item in items}) == len(items), path.name
