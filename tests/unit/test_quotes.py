"""Quote verification: a quote counts only when its passage holds it, whitespace and Markdown markup aside."""

from __future__ import annotations

import pytest

from agent.quoting.answer import QUOTES_HEADING, not_said_refusal, quoted_answer
from agent.quoting.schema import InvalidQuoteReply, parse_reply, quote_schema
from rag.answer.context import is_refusal
from rag.answer.near_copy import names_in, near_copy_source, unquoted_names
from rag.answer.quotes import (
    OfferedPassage,
    Quote,
    VerifiedQuote,
    is_in_passage,
    unquoted_numbers,
    verified_quotes,
)

RECIPE = (
    "3. **Bulk fermentation:** about **5 hours at 24 °C** (the oven with only the light on).\n"
    "4. Shape, then *cold retard*: 14 hours in the fridge at 4 °C, covered.\n"
    "| Salt | 10 g | 2 % |"
)
PASSAGES = [
    OfferedPassage("N1", "[[Sourdough#Final recipe]]", RECIPE),
    OfferedPassage("N2", "[[Chili Oil#Method]]", "Let the oil settle at 120 °C, pour it over the flakes in two goes."),
]


@pytest.mark.parametrize(
    "quote",
    [
        "14 hours in the fridge at 4 °C, covered.",
        "Bulk fermentation: about 5 hours at 24 °C",  # the bold marks dropped
        "**Bulk fermentation:** about **5 hours at 24 °C**",  # or kept
        "Shape, then cold retard: 14 hours",  # italic marks dropped
        "(the oven with only the light on).\n4. Shape,",  # across a line break, as one space
        '"14 hours in the fridge"',  # wrapped in quote marks
        "Salt | 10 g | 2 %",
        "at 24   °C (the oven",
    ],
)
def test_a_quote_the_passage_holds_is_found_whatever_its_whitespace_and_markup(quote: str) -> None:
    assert is_in_passage(quote, RECIPE)


@pytest.mark.parametrize(
    "quote",
    [
        "14 hours in the fridge at 24 °C, covered.",  # a misread number
        "The shaped loaf rests in the fridge at 4 °C, covered.",  # the model's own words
        "14 Hours in the fridge",  # case is not forgiven
        "14 hours in the fridge at 4 °C covered",  # nor punctuation
        "fridge",  # one word says nothing checkable
        "",
    ],
)
def test_a_quote_the_passage_does_not_hold_is_rejected(quote: str) -> None:
    assert not is_in_passage(quote, RECIPE)


def test_verified_quotes_keep_those_an_offered_passage_holds_cited_to_it_each_once_in_order() -> None:
    quotes = [
        Quote("N2", "14 hours in the fridge at 4 °C"),  # true of N1, credited to N2: cited to N1, which says it
        Quote("N1", "14 hours in the fridge at 4 °C, covered."),  # the one before is inside it: said once
        Quote("N9", "pour it over the flakes"),  # a passage never offered: looked for in those offered
        Quote("N1", "The loaf rests 14 hours."),  # made up
        Quote("N2", "Pour it over the flakes in two goes."),  # inside the third: said once
        Quote("N1", "shape, then Cold Retard"),  # case aside, in N1's own case
    ]

    kept = verified_quotes(quotes, PASSAGES)

    assert kept == [
        VerifiedQuote("14 hours in the fridge at 4 °C", "[[Sourdough#Final recipe]]"),
        VerifiedQuote("pour it over the flakes", "[[Chili Oil#Method]]"),
        VerifiedQuote("Shape, then cold retard", "[[Sourdough#Final recipe]]"),
    ]


@pytest.mark.parametrize(
    ("loose_copy", "sentence"),
    [
        # a word changed, a word added: the sentence the model copied, in the note's words
        (
            "Shape, then cold retard for 14 hours in the fridge at 4 °C",
            "Shape, then cold retard: 14 hours in the fridge at 4 °C, covered.",
        ),
        (
            "bulk fermentation takes about 5 hours at 24 °C",
            "Bulk fermentation: about 5 hours at 24 °C (the oven with only the light on).",
        ),
        # across two sentences: both, without the list number between them
        (
            "about 5 hours at 24 °C. Shape, then cold retard: 14 hours",
            "Bulk fermentation: about 5 hours at 24 °C (the oven with only the light on). "
            "Shape, then cold retard: 14 hours in the fridge at 4 °C, covered.",
        ),
    ],
)
def test_a_near_copy_of_a_sentence_is_kept_as_the_note_words_it(loose_copy: str, sentence: str) -> None:
    assert not is_in_passage(loose_copy, RECIPE)
    assert near_copy_source(loose_copy, RECIPE) == sentence
    assert verified_quotes([Quote("N1", loose_copy)], PASSAGES) == [
        VerifiedQuote(sentence, "[[Sourdough#Final recipe]]")
    ]


@pytest.mark.parametrize(
    "not_a_copy",
    [
        "14 hours in the fridge at 24 °C, covered.",  # a misread number (24 is in the passage, elsewhere)
        "The shaped loaf rests in the fridge at 4 °C, covered.",  # the model's own words
        "15 hours in the fridge",  # a number the passage does not hold
        "hours in a fridge",  # too short to tell a copy from chance
        "Cold retard the loaf for a day before you bake it at 4 °C.",
        "Shape, then Proof retard: 14 hours in the fridge at 4 °C",  # a name changed: another subject
    ],
)
def test_what_is_no_near_copy_is_not_snapped_to_a_sentence(not_a_copy: str) -> None:
    assert near_copy_source(not_a_copy, RECIPE) is None
    assert verified_quotes([Quote("N1", not_a_copy)], PASSAGES) == []


def test_an_answer_stating_a_number_no_quote_holds_is_replaced_by_the_quotes() -> None:
    quotes = [VerifiedQuote("14 hours in the fridge at 4 °C", "[[Sourdough#Final recipe]]")]

    assert unquoted_numbers("It rests 14 hours at 24 °C.", quotes) == ["24"]
    faithful = quoted_answer("It rests 14 hours at 4 °C.", quotes)
    misread = quoted_answer("It rests 14 hours at 24 °C.", quotes)

    assert faithful.startswith("It rests 14 hours at 4 °C.\n\n" + QUOTES_HEADING)
    assert misread.startswith(QUOTES_HEADING) and "24 °C" not in misread
    assert '- "14 hours in the fridge at 4 °C" [[Sourdough#Final recipe]]' in misread


def test_an_answer_putting_one_quoted_sentences_number_into_anothers_words_is_replaced_by_the_quotes() -> None:
    # Recorded from the 0.5B (stop 36), quoting both chili oil sentences.
    quotes = [
        VerifiedQuote(
            "At 150 °C the flakes burned and the whole jar was bitter (tried once, October 2026). "
            "At 120 °C they sizzle and turn deep red.",
            "[[Chili Oil#Recipe]]",
        )
    ]
    question = "At what temperature do I pour the oil over the chili flakes?"

    mixed = quoted_answer("At 120 °C the flakes burned and the whole jar was bitter.", quotes, question=question)
    right = quoted_answer("At 120 °C they sizzle and turn deep red.", quotes, question=question)

    assert mixed.startswith(QUOTES_HEADING)
    assert right.startswith("At 120 °C they sizzle and turn deep red.\n\n" + QUOTES_HEADING)


def test_an_answer_naming_what_no_quote_names_is_replaced_by_the_quotes() -> None:
    quotes = [VerifiedQuote("Three plants gave 11 fruits in 2026", "[[Garden Plan 2027#Bed 4]]")]
    passages = [
        OfferedPassage(
            "N1", "[[Garden Plan 2027#Bed 4]]", "Two stems for Sungold. Three plants gave 11 fruits in 2026."
        )
    ]
    names = names_in([passage.text for passage in passages])
    texts = [quote.text for quote in quotes]

    assert "sungold" in names and "three" not in names and "two" not in names
    assert unquoted_names("Then Sungold gave 11 fruits, I think.", texts) == ["Sungold"]  # inside a sentence
    assert unquoted_names("Sungold gave 11 fruits.", texts, names) == ["Sungold"]  # opening it: a name the notes use
    assert quoted_answer("Sungold gave 11 fruits.", quotes, passages).startswith(QUOTES_HEADING)
    assert quoted_answer("In 2026 three plants gave 11 fruits.", quotes, passages).startswith("In 2026 three plants")
    # Nor may a loose copy change a name: it is another subject, also when only another passage writes it as one
    assert near_copy_source("Sungold gave 11 fruits in 2026", passages[0].text) is None
    other = OfferedPassage("N2", "[[Radio#Law]]", "FCC allows 36 dBm EIRP for point to point links.")
    law = [OfferedPassage("N1", "[[Radio#India]]", "The rules in India differ."), other]
    assert verified_quotes([Quote("N2", "India allows 36 dBm EIRP for point to point links")], law) == []
    assert verified_quotes([Quote("N2", "FCC allows 36 dBm EIRP for point to point")], law) != []


def test_the_refusal_is_the_services_own_and_lists_the_closest_notes_once_each() -> None:
    passages = [*PASSAGES, OfferedPassage("N3", "[[Sourdough#Final recipe]]", "Salt 10 g.")]

    refusal = not_said_refusal(passages)

    assert is_refusal(refusal)
    assert refusal.splitlines()[1:] == ["- [[Sourdough#Final recipe]]", "- [[Chili Oil#Method]]"]


def test_the_schema_limits_passages_to_those_offered_and_the_reply_is_validated() -> None:
    schema = quote_schema(["N1", "N2"])
    assert schema["properties"]["quotes"]["items"]["properties"]["passage"]["enum"] == ["N1", "N2"]

    reply = parse_reply('```json\n{"quotes": [{"passage": "N1", "quote": "14 hours"}], "answer": "14 h"}\n```', ["N1"])
    assert reply.quotes == (Quote("N1", "14 hours"),) and reply.answer == "14 h"

    thinking = '<think>N1 says it.</think>{"quotes": [{"passage": "N1", "quote": "14 hours"}], "answer": ""}'
    thought = parse_reply(thinking, ["N1"])
    assert thought.quotes == (Quote("N1", "14 hours"),)

    for bad, says in [
        ("14 hours, from [[Sourdough]]", "must be one JSON object"),
        ('[{"passage": "N1", "quote": "14 hours"}]', "one JSON object"),
        ('{"quotes": [{"passage": "N1", "quote": "14 h', "incomplete"),
        ('{"quotes": [{"passage": "N7", "quote": "x"}], "answer": ""}', "must be one of N1"),
        ('{"quotes": "14 hours", "answer": ""}', '"quotes" must be a list'),
        ('{"quotes": [], "answer": }', "JSON is not valid"),
    ]:
        with pytest.raises(InvalidQuoteReply, match=says):
            parse_reply(bad, ["N1"])
