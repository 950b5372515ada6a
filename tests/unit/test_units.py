"""Numbers meet in the answer check only with the same unit, however the unit is written."""

from __future__ import annotations

from rag.answer.attribution import Passage, drawn_from, terms_of, unread_numbers
from rag.answer.evidence import evidence_for, is_borne_out
from rag.answer.rival_figures import rival_figures
from rag.answer.units import measure_unit

TART = Passage(
    "[[Nectarine Tart#Notes]]",
    "This recipe is scaled for an 11 inch tart pan.\nBake the shell blind for 20 minutes before filling it.",
)
KEEPS = "How long does the leftover nectarine tart keep in the fridge?"


def test_forms_of_one_unit_have_one_name_and_other_words_none() -> None:
    assert {measure_unit(word) for word in ("hours", "Hrs", "h", "Stunden", "hour")} == {"h"}
    assert {measure_unit(word) for word in ("days", "Tage", "day")} == {"d"}
    assert measure_unit("inches") == measure_unit("inch") == "inch"
    assert measure_unit("eggs") is None
    assert measure_unit("in") is None  # "4 in the fridge": no inches


def test_a_number_is_read_with_its_unit_written_out_and_on_its_own() -> None:
    assert {"11", "11 d"} <= terms_of("It keeps 11 days.", bare_numbers=True)
    assert "11 d" not in terms_of("an 11 inch tart pan", bare_numbers=True)
    assert terms_of("3 eggs") & {"3", "3 egg"} == {"3"}  # no unit: the number alone, as before


def test_a_number_of_another_unit_bears_out_no_answer() -> None:
    made_up = "It keeps for 11 days in the fridge."  # the 0.5B's, on a copy of kepano-obsidian: no note says

    assert not is_borne_out(made_up, [TART], question=KEEPS)
    assert evidence_for(made_up, [TART], question=KEEPS) == []
    assert drawn_from(made_up, [TART], question=KEEPS) == []


def test_a_unit_written_another_way_still_bears_the_answer_out() -> None:
    rests = Passage("[[Sourdough#Final recipe]]", "Cold retard | 14 h | fridge at 4 °C")
    german = Passage("[[Sauerteig#Rezept]]", "Die Gare dauert 14 Stunden im Kühlschrank.")
    question = "How long does the loaf rest in the fridge?"
    frage = "Wie lange bleibt der Teig im Kühlschrank?"

    for passage, asked, answer in ((rests, question, "It rests 14 hours."), (german, frage, "Er bleibt 14 Std.")):
        assert is_borne_out(answer, [passage], question=asked)
        assert [item.source for item in evidence_for(answer, [passage], question=asked)] == [passage.source]
    # A bare number still meets a number with a unit: the answer's "14" may leave the unit to the question.
    assert is_borne_out("14.", [rests], question=question)


def test_a_rival_figure_is_found_whichever_way_its_unit_is_written() -> None:
    rows = Passage(
        "[[Sourdough#Final recipe]]",
        "Bulk fermentation | 5 h | oven with the light on\nCold retard | 14 hrs | in the fridge at 4 °C",
    )
    misread = "The loaf rests in the fridge for 5 hours."
    question = "How long does the shaped loaf rest in the fridge?"

    assert [rival.figure for rival in rival_figures(misread, [rows], question=question)] == ["14 hrs"]
    assert not is_borne_out(misread, [rows], question=question)


def test_a_number_read_only_with_another_unit_is_unread() -> None:
    later = "The tart is best on the day. It keeps 11 days in the fridge."  # a later sentence: the opening passed

    assert unread_numbers(later, [TART], question=KEEPS) == ["11 days"]
    assert unread_numbers("It keeps 11 more days.", [Passage("[[Tart]]", "Good for 11 more days.")]) == []
    assert unread_numbers("Use the 11 inch pan, 20 minutes blind.", [TART]) == []
    assert unread_numbers("The pan is 11.", [TART]) == []  # a bare number is read from any
