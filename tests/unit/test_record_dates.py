"""Dates of a note's properties given for what they do not date: its own "created:", another record's date."""

from __future__ import annotations

from agent.answer_footer import refusal_footer, without_footer
from agent.state import AgentState
from rag.answer.attribution import Passage
from rag.answer.context import REFUSAL, format_note
from rag.answer.evidence import is_borne_out
from rag.answer.quoted_evidence import CLOSEST_HEADING
from rag.answer.record_dates import MISDATED_CAUTION, misdated, misdated_places, record_date_rivals

# kepano-obsidian's notes as their properties passages read (rag/chunks/chunking.property_rows).
BOOK = Passage(
    "[[Out of Control]]",
    "Out of Control\ncategories: [[Books]]\nisbn13: 9780201483406\npages: 528\nyear: 1992\nauthor: [[Kevin Kelly]]\n"
    "topics: [[Emergence]]\ncreated: 2023-09-12\nlast: 2023-09-12\nrating: 7",
)
PODCAST = Passage(
    "[[Well Made 145 Kevin Kelly]]",
    'Well Made 145 Kevin Kelly\ncategories: [[Podcast episodes]]\nguests: [[Kevin Kelly]]\nepisode: "145"\n'
    "rating: 7\npublished: 2021-04-15\nlast: 2023-09-12",
)
QUESTION = "Which book by Kevin Kelly have I noted, and when was it published?"
WRONG = "Out of Control was published on 2023-09-12."  # Qwen2.5-Coder 0.5B's, recorded at stop 43


def test_a_notes_own_date_given_for_when_its_book_was_published_is_withheld() -> None:
    assert misdated(WRONG, [BOOK, PODCAST], question=QUESTION) == ["2023-09-12"]
    assert not is_borne_out(WRONG, [BOOK, PODCAST], question=QUESTION)
    assert is_borne_out("Out of Control, published in 1992.", [BOOK, PODCAST], question=QUESTION)


def test_the_rival_is_the_named_notes_other_date_not_a_note_kept_the_same_day() -> None:
    rivals = record_date_rivals(WRONG, [PODCAST, BOOK], question=QUESTION)

    assert [(rival.figure, rival.sentence, rival.source) for rival in rivals] == [
        ("1992", "year: 1992", "[[Out of Control]]")
    ]
    # An answer naming neither note: the dated properties of both, in passage order.
    assert [
        rival.figure for rival in record_date_rivals("It came out on 2023-09-12.", [PODCAST, BOOK], question=QUESTION)
    ] == [
        "2021-04-15",
        "1992",
    ]


def test_a_question_about_the_notes_keeping_or_the_users_doing_is_not_judged() -> None:
    assert is_borne_out("I added Out of Control on 2023-09-12.", [BOOK], question="When did I add Out of Control?")
    assert not misdated("On 2023-09-12.", [BOOK], question="When was it published and when did I last read it?")
    assert not misdated("On 2023-09-12.", [BOOK], question="When did I read Out of Control?")


def test_a_date_the_notes_also_give_under_another_key_or_in_a_sentence_is_not_judged() -> None:
    meeting = Passage("[[2023-09-12 Meeting with Steph]]", "date: 2023-09-12\n- Discussed the book [[Out of Control]]")
    released = Passage("[[Film]]", "Film\ndate created: 2024-01-05\n\nThe film was released on 5 January 2024.")

    assert not misdated(WRONG, [BOOK, meeting], question=QUESTION)
    assert not misdated("It was released on 2024-01-05.", [released], question="When was the film released?")
    # The Linter plugin's keys, spelled any way, are keeping keys too.
    linted = Passage("[[Film]]", "Film\nDate_Created: 2024-01-05\nreleased: 1999")
    assert misdated("It was released on 5 January 2024.", [linted], question="When was the film released?")


def test_the_refusal_shows_the_date_the_note_gives_for_what_it_is_about_first() -> None:
    context = "\n\n".join(format_note(source=p.source, path="x.md", text=p.text) for p in (PODCAST, BOOK))
    state: AgentState = {
        "messages": [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": REFUSAL}],
        "context": context,
        "allowed": [PODCAST.source, BOOK.source],
    }

    footer = refusal_footer(REFUSAL, state, withheld=WRONG)

    assert footer.startswith(f'\n\n{CLOSEST_HEADING}\n- "year: 1992" [[Out of Control]]\n')


OTHERS = 'Kevin Kelly\'s book "Out of Control" was published on 2021-04-15.'  # the 0.5B's, recorded at stop 44


def test_another_records_date_given_for_the_record_the_answer_names_is_withheld() -> None:
    # As read at stop 44: the author's books table, the podcast's record, the book's record.
    books = Passage("[[Kevin Kelly#Books]]", "| Name | Year |\n| --- | --- |\n| [[Out of Control]] | 1992 |")
    read = [books, PODCAST, BOOK]

    assert misdated(OTHERS, read, question=QUESTION) == ["2021-04-15"]
    assert not is_borne_out(OTHERS, read, question=QUESTION)
    assert [rival.sentence for rival in record_date_rivals(OTHERS, read, question=QUESTION)] == ["year: 1992"]
    # Given for the podcast, the date is the podcast's; asked when the episode came out, it answers.
    episode = "The Well Made 145 Kevin Kelly episode was published on 2021-04-15."
    assert is_borne_out(episode, read, question="When was the Well Made episode with Kevin Kelly published?")


def test_a_date_given_outside_other_records_rows_is_not_judged_by_the_record_named() -> None:
    table = Passage("[[Kevin Kelly#Clippings]]", "| Title | Published |\n| --- | --- |\n| [[68 Bits]] | 2021-04-15 |")
    question = "When did Kevin Kelly publish something I clipped?"

    assert not misdated(OTHERS, [BOOK, table], question=question)  # a table's row, no record's
    assert not misdated("Out of Control was published on 2021-04-15.", [PODCAST], question=question)  # none named


def test_a_bare_date_is_of_the_record_the_question_names() -> None:
    # Over a copy of kepano-obsidian with the 0.5B (stop 44): the podcast episode's `published:` for the book.
    question = "When was Out of Control published?"

    assert misdated("2021-04-15", [PODCAST, BOOK], question=question) == ["2021-04-15"]
    assert [rival.sentence for rival in record_date_rivals("2021-04-15", [PODCAST, BOOK], question=question)] == [
        "year: 1992"
    ]
    # An answer naming the record it takes the date from is of that record.
    named = "The Well Made 145 Kevin Kelly episode was published on 2021-04-15."
    assert not misdated(named, [PODCAST, BOOK], question=question)


def test_a_keeping_date_a_bases_table_shows_under_its_keys_column_is_a_keeping_date_still() -> None:
    # Over a copy of kepano-obsidian with the 0.5B (stop 44): "When was Blade Runner released?" "2023-09-14".
    movie = Passage(
        "[[Blade Runner]]",
        "Blade Runner\ncategories: [[Movies]]\ndirector: [[Ridley Scott]]\nrating: 7\nyear: 1982\nlast: 2023-09-14",
    )
    genre = Passage(
        "[[Sci-fi]]",
        "| Name | rating | categories | last |\n| --- | --- | --- | --- |\n"
        "| [[Blade Runner]] | 7 | [[Movies]] | 2023-09-14 |",
    )
    question = "When was Blade Runner released?"

    assert misdated("2023-09-14", [movie, genre], question=question) == ["2023-09-14"]
    assert [rival.sentence for rival in record_date_rivals("2023-09-14", [movie, genre], question=question)] == [
        "year: 1982"
    ]
    dated = Passage("[[Films]]", "| Name | released |\n| --- | --- |\n| [[Blade Runner]] | 2023-09-14 |")
    assert not misdated("2023-09-14", [movie, dated], question=question)  # a column of when it came out


def test_a_year_is_judged_as_a_day_is() -> None:
    movie = Passage("[[Blade Runner]]", "Blade Runner\ncategories: [[Movies]]\nyear: 1982\nlast: 2023-09-14")
    # The 0.5B's, over a copy of kepano-obsidian (stop 44): the year of the note's `last:` date.
    assert misdated("2023", [movie], question="What year did Blade Runner come out?") == ["2023"]
    assert not misdated("1982", [movie], question="What year did Blade Runner come out?")
    assert misdated("Out of Control was published in 2021.", [PODCAST, BOOK], question=QUESTION) == ["2021"]
    assert not misdated("Out of Control was published in 1992.", [PODCAST, BOOK], question=QUESTION)


def test_a_date_is_of_the_note_named_even_one_read_by_a_section() -> None:
    # The 0.5B's, over kepano-obsidian (stop 44): The Machine Stops was read by its "Quotes" section alone.
    quotes = Passage("[[The Machine Stops#Quotes]]", "There was the button that produced literature.")
    question = "Who wrote The Machine Stops, and in which year was it published?"
    wrong = "Kevin Kelly wrote The Machine Stops in 1992."

    assert misdated(wrong, [quotes, BOOK], question=question) == ["1992"]
    assert not record_date_rivals(wrong, [quotes, BOOK], question=question)  # the note named has no record read
    assert not is_borne_out(wrong, [quotes, BOOK], question=question)


def test_the_caution_names_where_the_notes_give_the_date_and_is_cut_from_a_reply_sent_back() -> None:
    quotes = Passage("[[The Machine Stops#Quotes]]", "There was the button that produced literature.")
    question = "Who wrote The Machine Stops, and in which year was it published?"
    wrong = "Kevin Kelly wrote The Machine Stops in 1992."

    assert misdated_places(wrong, [quotes, BOOK], question=question) == ["1992 (year: 1992, in Out of Control)"]
    caution = f"\n\n*({MISDATED_CAUTION} 1992 (year: 1992, in Out of Control). Check it against the sources.)*"
    assert without_footer(wrong + caution) == wrong


def test_a_keeping_date_labelled_beside_the_right_date_or_given_by_the_question_is_not_judged() -> None:
    # From the review of stop 44.
    question = "When was Out of Control published?"
    both = "Out of Control was published in 1992; you added it to your notes on 2023-09-12."

    assert not misdated(both, [BOOK], question=question)
    assert not misdated("In 2023.", [BOOK], question="When was Out of Control, which I noted in 2023, published?")


def test_a_record_linking_the_note_named_is_named_unless_a_named_record_dates_itself() -> None:
    person = Passage("[[Kevin Kelly]]", "Kevin Kelly\ncategories: [[People]]\ntype: [[Authors]]")

    assert not misdated("Kevin Kelly's book was published in 1992.", [person, BOOK], question=QUESTION)
    # The book's record dates itself ("year: 1992"): the podcast's record, linking the author too, is another's.
    assert misdated(OTHERS, [person, PODCAST, BOOK], question=QUESTION) == ["2021-04-15"]
