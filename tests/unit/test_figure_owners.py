"""A figure an answer gives to one name, where the notes give it only to another (rag/answer/figure_owners.py)."""

from __future__ import annotations

from agent.answer_footer import refusal_footer
from agent.state import AgentState
from rag.answer.attribution import Passage
from rag.answer.context import REFUSAL, format_note
from rag.answer.evidence import is_borne_out
from rag.answer.figure_owners import owned_elsewhere
from rag.answer.quoted_evidence import CLOSEST_HEADING

# sample_vault's Tomato Varieties, as read for "Which one gave the most per plant?" (stop 53, the 1.5B).
RESULTS = Passage(
    "[[Tomato Varieties#2026 results]]",
    "| Variety | Type | Plants | Harvest 2026 | Verdict |\n| --- | --- | --- | --- | --- |\n"
    "| Sungold | Orange cherry, F1 | 2 | 6.2 kg | Best of the season, keeps |\n"
    "| Green Zebra | Green striped | 0 | — | Dropped after the 2025 blight |\n\n"
    "**Sungold** yielded most per plant (3.1 kg each) and was still ripening in early October.",
)
QUESTION = "Which one gave the most per plant?"
SUNGOLD = "**Sungold** yielded most per plant (3.1 kg each) and was still ripening in early October."
MISREAD = "The Green Zebra tomato gave the most per plant, with 3.1 kg each."


def test_a_figure_given_to_a_name_the_notes_give_it_to_another_is_withheld() -> None:
    rivals = owned_elsewhere(MISREAD, [RESULTS], question=QUESTION)

    assert [(rival.figure, rival.sentence) for rival in rivals] == [("3.1 kg", SUNGOLD)]
    assert not is_borne_out(MISREAD, [RESULTS], question=QUESTION)


def test_the_name_the_notes_give_the_figure_to_passes() -> None:
    for answer in (
        "Sungold gave the most per plant, with 3.1 kg each.",
        "The Sungold variety gave the most per plant (3.1 kg each).",
        "It gave 3.1 kg each.",  # no name: nothing to tie
    ):
        assert owned_elsewhere(answer, [RESULTS], question=QUESTION) == []
        assert is_borne_out(answer, [RESULTS], question=QUESTION)


def test_a_name_the_sentence_before_gives_a_figure_written_without_one_is_read_so() -> None:
    # "It yielded …" names nothing: its figure is the name's the sentence before gives.
    garden = Passage("[[Garden#2025]]", "Sungold did best. It yielded 2.9 kg a plant in 2025.")

    assert owned_elsewhere("Sungold gave 2.9 kg a plant in 2025.", [garden], question=QUESTION) == []
    # And a table's row above is another row's: Green Zebra's row does not give Sungold's sentence its figure.
    assert owned_elsewhere(MISREAD, [RESULTS], question=QUESTION)


def test_only_a_figure_the_notes_give_to_another_name_counts() -> None:
    unnamed = Passage("[[Garden#2025]]", "The best plant yielded 2.9 kg in 2025.")

    assert owned_elsewhere("Green Zebra gave 2.9 kg in 2025.", [unnamed], question=QUESTION) == []  # no other name
    assert owned_elsewhere("Green Zebra gave 7.5 kg.", [RESULTS], question=QUESTION) == []  # no passage holds it
    assert owned_elsewhere("Green Zebra gave 3.1 kg.", [RESULTS], question="Did Green Zebra give 3.1 kg?") == []


def test_the_refusal_opens_with_the_sentence_giving_the_figure_to_its_name() -> None:
    state: AgentState = {
        "messages": [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": REFUSAL}],
        "context": format_note(source=RESULTS.source, path="Tomato Varieties.md", text=RESULTS.text),
        "allowed": [RESULTS.source],
    }

    footer = refusal_footer(REFUSAL, state, withheld=MISREAD)

    assert footer.startswith(f'\n\n{CLOSEST_HEADING}\n- "{SUNGOLD}" [[Tomato Varieties#2026 results]]')


def test_units_and_names_the_notes_do_not_give_are_no_names_here() -> None:
    # German capitalises every noun: "Std." is the unit, "Ruhezeit" a word of the answer's own.
    german = Passage("[[Sauerteig#Rezept]]", "Die Gare dauert 14 Stunden im Kühlschrank.")
    frage = "Wie lange bleibt der Teig im Kühlschrank?"

    assert owned_elsewhere("Er bleibt 14 Std.", [german], question=frage) == []
    assert owned_elsewhere("Die Ruhezeit beträgt 14 Stunden.", [german], question=frage) == []


def test_a_table_rows_first_cell_names_its_figures() -> None:
    rows = Passage(
        "[[Tomato Varieties#2026 results]]",
        "| Sungold | Orange cherry | 2 | 6.2 kg |\n| Matina | Early red salad | 2 | 3.3 kg |",
    )

    assert owned_elsewhere("Matina gave 6.2 kg in 2026.", [rows], question="Which tomato gave most?")
    assert owned_elsewhere("Sungold gave 6.2 kg in 2026.", [rows], question="Which tomato gave most?") == []


def test_a_quoted_name_is_the_name_and_a_link_cited_names_no_one() -> None:
    # sample_vault's Garlic note quotes its variety; "[[Garlic]]" cites the note, it gives the figure to no one.
    garlic = Passage(
        "[[2026-11-08#Plan]]",
        "42 cloves of 'Germidour' (a French softneck) planted on **8 November 2026** in bed 3.",
    )
    question = "How many cloves did I plant?"

    assert owned_elsewhere("You planted 42 cloves of Germidour [[Garlic]].", [garlic], question=question) == []
    assert is_borne_out("You planted 42 cloves [[Garlic]].", [garlic], question=question)


# vaultofknowledge's Effective Radiated Power, as read for a near miss of its golden set (stop 58, the 0.5B).
LAW = Passage(
    "[[Effective Radiated Power#Law]]",
    "FCC allows 36 dBm EIRP for Point to Point (PtP) and 30 dB EIRP for Point to Multipoint (PtMP) connections.\n\n"
    "India allows 4W ERP (36 dBm) in 2.4GHz and in 865-868 MHz.",
)


def test_a_figure_the_answer_gives_to_a_name_of_the_question_the_notes_give_another_is_withheld() -> None:
    question = "What is the maximum EIRP India allows in the 5 GHz Wi-Fi band?"
    misread = "The maximum EIRP India allows in the 5 GHz Wi-Fi band is 30 dB EIRP."

    rivals = owned_elsewhere(misread, [LAW], question=question)

    assert [rival.figure for rival in rivals] == ["30 db"]  # as compared
    assert rivals[0].sentence.startswith("FCC allows")
    assert not is_borne_out(misread, [LAW], question=question)
    # The figure the notes give India, asked of India, passes; so does the FCC's, asked of the FCC.
    assert owned_elsewhere("India allows 36 dBm.", [LAW], question="How much ERP does India allow in 2.4GHz?") == []
    assert owned_elsewhere("The FCC allows 30 dB EIRP.", [LAW], question="How much EIRP does the FCC allow?") == []


def test_a_name_of_the_question_given_a_figure_of_another_row_is_withheld_too() -> None:
    question = "How much did Green Zebra give per plant?"

    assert [rival.figure for rival in owned_elsewhere("Green Zebra gave 3.1 kg each.", [RESULTS], question=question)]
    assert owned_elsewhere("Sungold gave 3.1 kg each.", [RESULTS], question="How much did Sungold give?") == []
