"""The part of a passage that answers a question, and cuts that never fall inside a link or code."""

from __future__ import annotations

import re

import pytest

from rag.answer.excerpts import (
    best_excerpt,
    cut_at_space,
    excerpt_stems,
    key_sentences,
    question_stems,
    sentences_of,
    stem,
)
from rag.answer.passages import snippet

# sample_vault's Sourdough "Final recipe" steps (lines 38-44), as the chunker keeps them.
RECIPE_STEPS = (
    "1. **Autolyse:** mix flours and 350 g of the water, rest 45 minutes.\n"
    "2. **Mix:** add the levain, the salt and the remaining 25 g water. Pinch and fold until it comes together.\n"
    "3. **Bulk fermentation:** about **5 hours at 24 °C** (the oven with only the light on). Four sets of "
    "stretch-and-folds, 30 minutes apart, in the first two hours. Done when the dough has grown by about half "
    "and has bubbles at the sides.\n"
    "4. **Shape** into a batard, into a floured banneton (rice flour stops sticking).\n"
    "5. **Cold retard:** **14 hours in the fridge at 4 °C**, covered.\n"
    "6. **Bake** straight from the fridge in a Dutch oven preheated to 250 °C: **20 minutes with the lid on, "
    "then 25 minutes at 230 °C with the lid off**.\n"
    "7. Cool at least 2 hours before cutting."
)


def test_stems_meet_across_common_endings_and_filler_is_ignored() -> None:
    assert stem("proofing") == stem("proof") == "proof"
    assert stem("hours") == "hour" and stem("fridge") == "fridge"
    assert question_stems("How long does the sourdough rest in the fridge?") == {"sourdough", "rest", "fridge"}


def test_a_passage_within_budget_is_kept_whole() -> None:
    part = best_excerpt(RECIPE_STEPS, "fridge", max_chars=len(RECIPE_STEPS))

    assert part.text == RECIPE_STEPS and (part.first_row, part.last_row) == (0, 6)
    assert not part.is_cut_before and not part.is_cut_after


def test_the_part_kept_holds_the_answer_and_says_what_was_left_out() -> None:
    part = best_excerpt(RECIPE_STEPS, "How long does the sourdough proof in the fridge?", max_chars=300)

    assert "14 hours in the fridge" in part.text and len(part.text) <= 300
    assert part.text.startswith("5. **Cold retard:**") and part.is_cut_before and not part.is_cut_after
    assert (part.first_row, part.last_row) == (4, 6)  # rows of the passage, for its line range
    assert part.text == "\n".join(RECIPE_STEPS.split("\n")[4:7])  # whole rows, line breaks kept


# sample_vault's Käsespätzle "Zutaten" section, as the chunker keeps it.
ZUTATEN = (
    "**Spätzleteig**\n\n- 400 g Mehl (Type 405 oder Spätzlemehl)\n- 4 Eier (Größe M)\n"
    "- 150 ml kaltes Mineralwasser mit Kohlensäure\n- 1 TL Salz\n- eine Prise Muskat\n\n**Zum Schichten**\n\n"
    "- 250 g würziger Bergkäse, mindestens 6 Monate gereift, grob gerieben\n- 100 g Emmentaler, gerieben\n"
    "- 3 große Zwiebeln, in Ringe geschnitten\n- 40 g Butter\n- Schnittlauch zum Bestreuen"
)


def test_a_question_word_at_the_end_of_a_compound_counts() -> None:
    # Asked which cheese, the 0.5B was sent the dough's ingredients: "Bergkäse" did not hold "Käse".
    part = best_excerpt(ZUTATEN, "Welchen Käse nimmt Oma für die Käsespätzle?", max_chars=150)

    assert "Bergkäse" in part.text
    # Only after a few letters of another word: "airport" holds "port", "report" does not (or it would come first).
    rows = "A report was filed on Monday.\nNothing else was said that day.\nThe ferry docks by the airport."
    assert best_excerpt(rows, "Which port?", max_chars=40).text == "The ferry docks by the airport."


def test_the_snippet_no_longer_stops_before_the_answer() -> None:
    # The retrieval-only reply used to start at "rest 45 minutes" and run out of room before step 5.
    shown = snippet(RECIPE_STEPS, "How long does the sourdough rest in the fridge?")

    assert "**14 hours in the fridge at 4 °C**" in shown
    assert "rest 45 minutes" in shown and " … " in shown  # both sentences holding question words, gap marked
    assert len(shown) <= 320 + 4


def test_key_sentences_show_each_question_word_once_best_first() -> None:
    found = key_sentences(RECIPE_STEPS, "fridge rest", max_chars=200)

    assert [run.split(".")[0] for run in found.runs][:2] == ["1", "5"]
    assert sum(len(run) for run in found.runs) + 3 * (len(found.runs) - 1) <= 200
    assert found.is_cut_after


# sample_vault's Tomato Varieties "2026 results": the table's header shares the question's words; the answer is below.
TOMATO_RESULTS = (
    "| Variety | Type | Plants | Harvest 2026 | Verdict |\n"
    "| --- | --- | --- | --- | --- |\n"
    "| Sungold | Orange cherry, F1 | 2 | 6.2 kg | Best of the season, keeps |\n"
    "| Black Krim | Dark beefsteak | 2 | 4.1 kg | Best flavour, splits after rain, keeps |\n"
    "| Ochsenherz | Oxheart | 2 | 5.0 kg | Great for sauce, keeps |\n"
    "| Matina | Early red salad | 2 | 3.3 kg | First ripe on 9 July, keeps |\n"
    "| Green Zebra | Green striped | 0 | — | Dropped after the 2025 blight |\n"
    "\n"
    "**Sungold** yielded most per plant (3.1 kg each) and was still ripening in early October. Being an F1 hybrid, "
    "its seed does not come true, so I buy it every year (€4.50 for 10 seeds)."
)


def test_a_sentence_apart_from_the_best_run_joins_it_when_it_holds_words_the_run_lacks() -> None:
    # The run from the header row filled the room with rows; the sentence saying which gave most per plant was cut.
    question = "Which tomato variety gave the most per plant in 2026, and how much?"

    part = best_excerpt(TOMATO_RESULTS, question, max_chars=452)

    assert "**Sungold** yielded most per plant (3.1 kg each)" in part.text and len(part.text) <= 452
    assert part.text.startswith("| Variety | Type | Plants | Harvest 2026 | Verdict |")  # the rows keep their header
    head, gap, tail = part.text.partition("\n…\n")
    assert gap and "| Matina |" not in head and tail.startswith("**Sungold** yielded")  # what was left out is marked
    assert (part.first_row, part.last_row) == (0, 8) and not part.is_cut_before and part.is_cut_after


def test_a_run_holding_every_word_the_passage_has_stays_one_run() -> None:
    part = best_excerpt(TOMATO_RESULTS, "Which variety had the best flavour?", max_chars=300)

    assert "\n…\n" not in part.text and "Best flavour" in part.text


@pytest.mark.parametrize(
    "span",
    [
        "[[Alpha Note#Some long heading]]",
        "![[Diagram of the beds.png]]",
        "[the planting guide](https://example.org/a b)",
        "`filter by function task.due`",
    ],
)
def test_no_cut_falls_inside_a_link_an_embed_or_inline_code(span: str) -> None:
    text = f"Some words first, then {span} and [[Next]] after it."
    budget = text.index(span) + len(span) // 2  # the budget ends in the middle of the span

    cut = cut_at_space(text, budget)
    shown = snippet(text, "nothing in common", max_chars=budget)

    assert cut == "Some words first, then"
    assert span not in shown and "[[Next]]" not in shown and shown.endswith(" …")
    assert shown.count("[") == shown.count("]") and shown.count("`") % 2 == 0


def test_a_link_cut_in_half_never_swallows_the_next_one() -> None:
    # The old snippet cut at the last space before 320 characters, which fell inside "[[Bed 3 rotation plan]]".
    text = "x " * 140 + "See [[Bed 3 rotation plan]] and [[Garlic]] for the beds."
    shown = snippet(text, "unrelated words", max_chars=290)

    assert re.search(r"\[\[[^\]]*$", shown) is None  # no link left open
    assert "[[Bed 3" not in shown or "[[Bed 3 rotation plan]]" in shown


def test_one_sentence_over_the_budget_is_cut_at_a_space() -> None:
    long = "word " * 100

    part = best_excerpt(long.strip() + "\nshort row", "nothing", max_chars=60)

    assert len(part.text) <= 60 and part.text.endswith("word") and part.is_cut_after


def test_abbreviations_and_a_german_dates_day_end_no_sentence() -> None:
    assert sentences_of("Planted on Nov. 8 in bed 3. Watered.") == ["Planted on Nov. 8 in bed 3.", "Watered."]
    assert sentences_of("Am 8. November gesetzt. Gut.") == ["Am 8. November gesetzt.", "Gut."]
    assert sentences_of("Use e.g. the oven. Dr. Vogt agreed.") == ["Use e.g. the oven.", "Dr. Vogt agreed."]
    assert sentences_of("Rest it at 4 °C. Before that, fold.") == ["Rest it at 4 °C.", "Before that, fold."]


def test_a_three_letter_word_of_the_question_counts_unless_it_says_nothing() -> None:
    # sample_vault's garden plan: "fee" had no say, and the budget's rows were kept in place of the fee's line.
    plan = (
        "Seeds and plants: €85.\nCompost and manure: €45.\nAnnual fee for 2027 rises from €284 to €302 per plot.\n"
        "Tools and repairs: €0, everything works."
    )

    part = best_excerpt(plan, "What will the allotment fee be next year?", max_chars=60)

    assert part.text == "Annual fee for 2027 rises from €284 to €302 per plot."
    assert "fee" in excerpt_stems("What will the allotment fee be?")
    assert not {"the", "how", "did", "was", "und"} & excerpt_stems("How did the run go, and was it fun? Und?")
