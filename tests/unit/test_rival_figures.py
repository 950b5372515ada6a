"""A figure taken from beside what the answer ties it to, where the notes give another of its kind for that thing.

The wrong answers are Qwen2.5-Coder 0.5B's (recorded on sample_vault's golden set); the right ones are the notes'.
"""

from __future__ import annotations

from rag.answer.attribution import Passage
from rag.answer.evidence import is_borne_out
from rag.answer.rival_figures import given_for_another, rival_figures

RECIPE = Passage(
    "[[Sourdough#Final recipe]]",
    "3. **Bulk fermentation:** about **5 hours at 24 °C** (the oven with only the light on). Four sets of "
    "stretch-and-folds, 30 minutes apart, in the first two hours.\n"
    "5. **Cold retard:** **14 hours in the fridge at 4 °C**, covered.\n"
    "6. **Bake** straight from the fridge in a Dutch oven preheated to 250 °C: **20 minutes with the lid on, then "
    "25 minutes at 230 °C with the lid off**.",
)
RETARD = "How long does the shaped sourdough loaf rest in the fridge, and at what temperature?"
BIKE = Passage(
    "[[Bike Repair Notes#For next time]]",
    "- Measure the chain every 1,000 km. A €10 chain checker saves a €40 cassette.\n"
    "- Cassette replacement is probably due next spring anyway (Shimano HG400, 11–34).",
)
CASSETTE = "How much did the new cassette for my commuter bike cost?"
CHILI = Passage(
    "[[Chili Oil#Recipe]]",
    "Let the oil settle at 120 °C (use the thermometer) and pour it over the flakes in two goes.\n"
    "At 150 °C the flakes burned and the whole jar was bitter (tried once, October 2026).",
)
POUR = "At what temperature do I pour the oil over the chili flakes, and what went wrong when it was hotter?"


def test_a_figure_from_the_row_beside_is_named_against_the_figures_the_notes_give_for_it() -> None:
    misread = "The shaped sourdough loaf rests in the fridge for 5 hours at 24 °C."

    assert [r.figure for r in rival_figures(misread, [RECIPE], question=RETARD)] == ["14 hours", "4 °C"]
    assert not is_borne_out(misread, [RECIPE], question=RETARD)  # a sentence holds both figures: the words passed


def test_a_figure_whose_row_holds_nothing_asked_is_named_against_one_whose_row_holds_what_was_asked() -> None:
    # The words copied from the bulk fermentation's row outnumber "fridge", but that row holds nothing asked.
    misread = (
        "The shaped sourdough loaf rests in the fridge for **5 hours at 24 °C** (the oven with only the light on)."
    )

    assert [r.figure for r in rival_figures(misread, [RECIPE], question=RETARD)] == ["14 hours", "4 °C"]
    assert not is_borne_out(misread, [RECIPE], question=RETARD)
    right = (
        "The loaf rests in the fridge for 14 hours at 4 °C. Before that, the bulk fermentation takes 5 hours at 24 °C."
    )
    assert rival_figures(right, [RECIPE], question=RETARD) == []
    one_sentence = "The loaf rests in the fridge for 14 hours at 4 °C, after a bulk fermentation of 5 hours at 24 °C."
    assert rival_figures(one_sentence, [RECIPE], question=RETARD) == []  # "fridge" is not beside 24 °C


def test_a_figure_given_alone_is_tied_to_what_the_question_asks() -> None:
    assert [r.figure for r in rival_figures("1. €10", [BIKE], question=CASSETTE)] == ["€40"]
    assert not is_borne_out("1. €10", [BIKE], question=CASSETTE)
    assert rival_figures("€10", [BIKE], question="What does a chain checker cost?") == []


def test_in_one_sentence_the_figure_nearer_the_answers_words_is_the_notes_figure_for_them() -> None:
    misread = "The new cassette for my commuter bike cost €10."

    assert [r.figure for r in rival_figures(misread, [BIKE], question=CASSETTE)] == ["€40"]
    assert not is_borne_out(misread, [BIKE], question=CASSETTE)
    assert rival_figures("A chain checker costs €10.", [BIKE], question="What does a chain checker cost?") == []


def test_right_figures_stand_where_the_notes_put_them() -> None:
    assert rival_figures("The shaped loaf rests in the fridge for 14 hours at 4 °C.", [RECIPE], question=RETARD) == []
    assert (
        rival_figures("Bulk fermentation takes about 5 hours at 24 °C.", [RECIPE], question="How long is bulk?") == []
    )
    assert rival_figures("The cassette would cost €40.", [BIKE], question=CASSETTE) == []


def test_a_figure_the_answer_states_is_no_rival_and_a_half_answer_keeps_its_own_words() -> None:
    both = "Pour the oil at 120 °C; at 150 °C the flakes burned and the jar was bitter."
    half = "The flakes burned at 150 °C."  # answers the second question only, tied to what the note ties it to

    assert rival_figures(both, [CHILI], question=POUR) == []
    assert rival_figures(half, [CHILI], question=POUR) == []
    assert is_borne_out(half, [CHILI], question=POUR)


def test_figures_without_units_words_alone_and_other_passages_are_not_judged() -> None:
    assert rival_figures("It has 110 links.", [BIKE], question="How many links?") == []
    # A link states no figure: "[[Sourdough#5 hours at 24 °C]]" would have stood against the fridge's 4 °C.
    linked = "The loaf rests in the fridge, see [[Sourdough#5 hours at 24 °C]]."
    assert rival_figures(linked, [RECIPE], question=RETARD) == []
    assert rival_figures("For 14 hours.", [RECIPE], question=RETARD) == []  # no word to tie the figure to
    # The rival must stand in a passage that holds the answer's figure: another note's figure is another thing.
    fridge_elsewhere = Passage("[[Kitchen#Fridge]]", "The fridge holds 4 °C, the freezer -18 °C.")
    assert rival_figures("The loaf proofs at 24 °C for 5 hours.", [RECIPE, fridge_elsewhere], question=RETARD) == []


def test_each_statement_of_a_sentence_ties_its_figure_to_its_own_words() -> None:
    # The 0.5B's right answer, one sentence of two statements, was withheld: €302 was read as tied to "year" too,
    # the word of the €432 statement that the committee's €15 for a missed hour a year stands beside.
    budget = Passage(
        "[[Garden Plan 2027#Budget]]",
        "| Item | Estimate |\n| --- | --- |\n| Annual fee (2027, after the committee vote) | €302 |\n| Total | €432 |",
    )
    decisions = Passage(
        "[[2026-11-10 Allotment Committee#Decisions]]",
        "1. **Annual fee for 2027 rises from €284 to €302** per plot (+€18).\n"
        "4. **Community work:** still 6 hours per plot per year; a missed hour now costs €15 instead of €10.",
    )
    question = (
        "What will the allotment fee be in 2027, and what does the garden plan estimate for the whole year's budget?"
    )
    joined = "The allotment fee in 2027 will be €302, and the garden plan estimate for the whole year's budget is €432."
    with_with = (
        "The allotment fee in 2027 will be €302 per plot, with the total estimated cost for the whole year of €432."
    )

    for answer in (joined, with_with):
        assert rival_figures(answer, [budget, decisions], question=question) == []
        assert is_borne_out(answer, [budget, decisions], question=question)


def test_each_statement_of_the_notes_ties_its_figure_to_its_own_words() -> None:
    # The 1.5B's right answer over vaultofknowledge was withheld: "10 tokens" was read as the H100's, the word its
    # sentence opens on, where that statement of the sentence ties it to what is "required".
    estimates = Passage(
        "[[Local AI Requirements#Sample Calculations]]",
        "NVIDIA H100 has 1.5 TB/s bandwidth, and that's much less than 7 TB/s required for 10 tokens per second, and "
        "would only suffice for a rate of 2 tokens per second.\n\nAnd NVIDIA H100 has 1000 TFLOPS, and that means it "
        "can compute a maximum of 1000 / 717 = 1.4 tokens per second. And real world performance is only 30-50% of "
        "the theoretical peak, so one could expect 0.5-1 tokens per second on a single H100.",
    )
    question = "By my estimate, how fast could one top-end Nvidia datacenter card run GPT-3.5 in practice?"
    right = (
        "By my estimate, one top-end Nvidia datacenter card could run GPT-3.5 in practice at around 0.5-1 tokens per "
        "second."
    )

    assert rival_figures(right, [estimates], question=question) == []
    assert is_borne_out(right, [estimates], question=question)
    # Another run's words: "rate", no word of the question, in the statement of 2 tokens per second alone.
    at_a_rate = right.replace("at around", "at a rate of")
    assert rival_figures(at_a_rate, [estimates], question=question) == []


def test_a_figure_the_notes_give_for_another_figure_of_the_kind_asked_is_named_against_it() -> None:
    # The 1.5B on vaultofknowledge, asked a near miss: the note gives India's limit for other bands only.
    law = Passage("[[Effective Radiated Power#Law]]", "India allows 4W ERP (36 dBm) in 2.4GHz and in 865-868 MHz.")
    question = "What is the maximum EIRP India allows in the 5 GHz Wi-Fi band?"

    answer = "The maximum EIRP India allows in the 5 GHz Wi-Fi band is 36 dBm."
    assert [r.figure for r in rival_figures(answer, [law], question=question)] == ["2.4GHz"]
    assert not is_borne_out(answer, [law], question=question)
    copying = f'{answer} The note says "India allows 4W ERP (36 dBm) in 2.4GHz and in 865-868 MHz."'  # as replied
    assert [r.figure for r in given_for_another(copying, [law], question=question)] == ["2.4GHz"]
    assert not is_borne_out(copying, [law], question=question)
    fcc = Passage("[[Effective Radiated Power#Law]]", "FCC allows 36 dBm EIRP for Point to Point (PtP) connections.")
    assert given_for_another(answer, [fcc], question=question) == []  # it names no band: nothing either way
    asked_right = "What does India allow in the 2.4 GHz band?"
    assert rival_figures("India allows 36 dBm in the 2.4 GHz band.", [law], question=asked_right) == []
    assert is_borne_out("India allows 4W ERP (36 dBm).", [law], question=asked_right)


def test_a_bare_number_the_notes_give_under_a_heading_naming_another_figure_asked_is_named_against_it() -> None:
    # The 0.5B on vaultofknowledge, asked a near miss: the row it read is under another model's heading.
    tiny = Passage("[[AI Models I Tested#TinyLlama 1.1B]]", "- Prompt Tokens/Second: 2.62\n- Layers: 22")
    question = "How many output tokens per second did the Llama 8B fine-tuned with DeepSeek-R1 reach on my laptop?"

    assert [r.figure for r in given_for_another("2.62", [tiny], question=question)] == ["1.1B"]
    assert [r.figure for r in rival_figures("2.62", [tiny], question=question)] == ["1.1B"]  # the footer's, too
    assert not is_borne_out("2.62", [tiny], question=question)
    llama = Passage("[[AI Models I Tested#Llama 8B]]", "- Output Tokens/Second: 2.62")
    assert given_for_another("2.62", [llama], question=question) == []
    assert given_for_another("It has 22 layers.", [tiny], question="How many layers has TinyLlama 1.1B?") == []
