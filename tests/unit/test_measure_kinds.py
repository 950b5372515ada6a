"""The kind of figure a question asks for, in passage cuts and in the answer check (rag/answer/measure_kinds.py)."""

from __future__ import annotations

import pytest

from rag.answer.asked_values import gives_other_kind
from rag.answer.excerpts import best_excerpt
from rag.answer.measure_kinds import DURATION, TEMPERATURE, kinds_asked, kinds_given

# kepano-obsidian's Brown butter nectarine tart, its Directions: the crust's steps, then the filling's
DIRECTIONS = "\n".join(
    [
        "1. Preheat oven to 425F/220C (use convection if you have it).",
        *(f"{n}. Work the dough, step {n}, until it comes together and rests well." for n in range(2, 11)),
        "11. Blind bake 12 minutes. Remove parchment paper and beans carefully and bake.",
        "12. Bake 10 minutes more until light golden, don't overdo it.",
        "13. Cool on a wire rack.",
        "",
        "Lower oven to 350F/180C (use convection if you have it)",
        "",
        "1. Melt butter in a small saucepan over medium heat until lightly browned, the milk solids should become a "
        "vibrant rusty red color. Watch it closely because it can burn easily.",
        "2. Remove from heat and pour into a bowl to cool, then set it aside while you prepare the rest of it.",
        "3. In a separate bowl, beat egg and sugar until pale and fluffy, which takes a while by hand or by mixer.",
        "4. Stir in flour, then cooled browned butter and vanilla extract, scraping down the sides of the bowl.",
        "5. Spread filling in tart shell; arrange nectarine slices on top.",
        "6. Bake on a cookie sheet 30 minutes until a deep gold. May need more or less time depending on your oven.",
    ]
)


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("How hot should the oven be for the nectarine tart?", {TEMPERATURE}),
        ("What's the cooking temperature for the tart?", {TEMPERATURE}),
        ("Wie heiß muss der Ofen sein?", {TEMPERATURE}),
        ("How long does the tart bake?", {DURATION}),
        ("How many minutes does the crust blind bake?", {DURATION}),
        ("What goes into the filling?", set()),
    ],
)
def test_the_kind_of_figure_asked(question: str, kinds: set[str]) -> None:
    assert kinds_asked(question) == kinds


def test_the_kind_of_figure_given() -> None:
    both = frozenset((TEMPERATURE, DURATION))
    assert kinds_given("Lower oven to 350F/180C", both) == {TEMPERATURE}
    assert kinds_given("Cold retard: 14 hours in the fridge at 4 °C.", both) == both
    assert kinds_given("Ferment 2-3 days; 180 Grad", both) == both
    assert kinds_given("A 4C battery, 11 inch pan, Q4_K_M", both) == set()


def test_a_passage_cut_for_a_temperature_keeps_the_sentence_giving_one() -> None:
    # The 1.5B answered "30 minutes" for the oven's temperature: the cut kept the filling's steps (nectarine, tart,
    # oven) and lost "Lower oven to 350F/180C", which says only "oven" of the question.
    hot = best_excerpt(DIRECTIONS, "How hot should the oven be for the nectarine tart?", max_chars=600).text
    assert "425F/220C" in hot or "350F/180C" in hot
    filling = best_excerpt(DIRECTIONS, "What goes into the nectarine tart's filling?", max_chars=600).text
    assert "425F/220C" not in filling and "350F/180C" not in filling


def test_the_other_kind_of_figure_is_no_answer() -> None:
    temperature = "What's the cooking temperature for the nectarine tart?"
    assert gives_other_kind("The cooking temperature for the nectarine tart is 30 minutes.", question=temperature)
    assert not gives_other_kind("Bake at 180 °C for 30 minutes.", question=temperature)
    assert not gives_other_kind("350F/180C", question=temperature)
    assert gives_other_kind("At 180 °C.", question="How long does the tart bake?")
    assert not gives_other_kind("30 minutes at 180 °C", question="How long does the tart bake?")
    assert not gives_other_kind("About 3 m.", question="How long is the garden hose?")  # a length: neither kind
