"""A figure given for another year than the one asked, by a row keyed with that year (rag/answer/year_rows.py)."""

from __future__ import annotations

from agent.opening_check import answer_check
from rag.answer.attribution import Passage
from rag.answer.evidence import is_borne_out
from rag.answer.year_rows import given_for_another_year

# sample_vault's tomato note: its properties record, and the 2026 results under their heading
RECORD = Passage("[[Tomato Varieties]]", "Tomato Varieties\nupdated: 2026-10-20\nplants_2027: 8")
RESULTS = Passage(
    "[[Tomato Varieties#2026 results]]",
    "| Variety | Type | Plants | Harvest 2026 | Verdict |\n| --- | --- | --- | --- | --- |\n"
    "| Sungold | Orange cherry, F1 | 2 | 6.2 kg | Best of the season, keeps |\n"
    "| Black Krim | Dark beefsteak | 2 | 4.1 kg | Best flavour, splits after rain, keeps |",
)
GROWN = "How many tomato plants of each variety did I grow in 2026?"


def test_a_figure_of_a_row_keyed_by_another_year_answers_for_that_year() -> None:
    # the 0.5B over sample_vault (stop 62), tried as a user: next year's plan given for 2026
    wrong = "8 tomato plants of each variety"
    assert [rival.sentence for rival in given_for_another_year(wrong, [RECORD, RESULTS], question=GROWN)] == [
        "plants_2027: 8"
    ]
    assert not is_borne_out(wrong, [RECORD, RESULTS], question=GROWN)
    check = answer_check(GROWN, [RECORD, RESULTS])
    assert check.feed(wrong) + check.finish() == "" and check.is_withheld
    # as the first part of two: its number is no figure (the passages hold many a "1")
    both = f"{GROWN[:-1]}, and which split after rain?"
    check = answer_check(both, [RECORD, RESULTS, Passage("[[Garden Plan 2027#Beds]]", "Beans go in bed 1.")])
    assert check.feed(f"1. {wrong}\n2. Black Krim") + check.finish() == "" and check.is_withheld


def test_a_figure_given_for_the_asked_year_or_for_none_stands() -> None:
    assert given_for_another_year("2 plants of each", [RECORD, RESULTS], question=GROWN) == []  # under "2026 results"
    assert given_for_another_year("8", [RECORD], question="How many tomato plants will I grow in 2027?") == []
    assert given_for_another_year("8", [RECORD], question="How many tomato plants will I grow?") == []  # no year asked
    loose = Passage("[[Tomato Varieties#Plan]]", "Next year: 8 plants, as in 2025.")
    assert given_for_another_year("8", [RECORD, loose], question=GROWN) == []  # a line given for no year says it too
