"""The sources of an answer that cites nothing: the passages holding its numbers and words, not the top hits."""

from __future__ import annotations

from datetime import date

from rag.answer.attribution import (
    Passage,
    attribute,
    drawn_from,
    is_unsupported,
    passages_in,
    terms_of,
    unread_numbers,
    writes_unread_code,
)
from rag.answer.context import format_note

PASSAGES = [
    Passage(
        "[[Sourdough#Starter care]]", "Fridge feeding: 20 g starter, 50 g flour; back in the fridge after 2 hours."
    ),
    Passage("[[Garlic]]", "Planted 42 cloves of Germidour on 3 November, 15 cm apart."),
    Passage("[[Chili Oil#Method]]", "Let the oil settle at 120 °C and pour it over the flakes. At 150 °C it burned."),
    Passage("[[Sourdough#Final recipe]]", "Cold retard: 14 hours in the fridge at 4 °C, covered."),
]


def test_the_sources_are_the_passages_holding_the_answers_numbers_best_first() -> None:
    answer = "Pour the oil at 120 °C; at 150 °C the flakes burned and it turned bitter."

    assert drawn_from(answer, PASSAGES, question="At what temperature do I pour the chili oil?") == [
        "[[Chili Oil#Method]]"
    ]


def test_words_the_question_already_has_are_no_evidence() -> None:
    # "fridge" is the question's word: every retrieved passage has it; the answer's own "14 hours" decides.
    answer = "It stays in the fridge for 14 hours."

    assert drawn_from(answer, PASSAGES, question="How long does the loaf stay in the fridge?") == [
        "[[Sourdough#Final recipe]]"
    ]


def test_an_answer_sharing_nothing_distinctive_has_no_sources() -> None:
    assert drawn_from("It takes a while, depending on the weather.", PASSAGES, question="How long?") == []
    assert drawn_from("Yes.", PASSAGES) == []


def test_an_answer_drawing_on_two_passages_lists_both_the_stronger_first() -> None:
    answer = "You planted 42 cloves of Germidour; the loaf rests 14 hours at 4 °C."

    assert drawn_from(answer, PASSAGES) == ["[[Garlic]]", "[[Sourdough#Final recipe]]"]


def test_links_in_the_answer_are_not_evidence() -> None:
    # Its link's words (germidour, planted, cloves) are in the garlic passage; the answer's own words are not.
    assert drawn_from("Noted in [[Garlic#Germidour planted cloves]].", PASSAGES) == []


def test_at_most_limit_sources_ties_in_rank_order() -> None:
    answer = "20 g and 50 g; 42 cloves; 120 °C and 150 °C; 14 hours at 4 °C."  # 5, 3, 4 and 5 of evidence

    assert drawn_from(answer, PASSAGES, limit=2) == ["[[Sourdough#Starter care]]", "[[Sourdough#Final recipe]]"]


def test_passages_are_read_back_from_the_context_the_model_got() -> None:
    context = "\n\n".join(
        [
            format_note(source='[[Tom "T" & Co#Plan]]', path="Tom.md", text="Budget: 300 euros.", lines=(3, 4)),
            format_note(source="[[Garlic]]", path="Garlic.md", text="42 cloves\nplanted in rows."),
        ]
    )

    assert passages_in(context) == [
        Passage('[[Tom "T" & Co#Plan]]', "Budget: 300 euros."),
        Passage("[[Garlic]]", "42 cloves\nplanted in rows."),
    ]


def test_a_long_answer_sharing_nothing_with_the_passages_is_unsupported_a_short_one_is_not_judged() -> None:
    # Recorded with Qwen2.5-Coder 0.5B over sample_vault: an ingress howto from its own knowledge.
    generic = (
        "To configure a Kubernetes ingress controller, create a configuration file that specifies ingress rules, "
        "listeners and domain mappings, then apply it with kubectl."
    )
    grounded = "You planted 42 cloves of Germidour, 15 cm apart, on 3 November, which is a good spacing for them."

    assert is_unsupported(generic, PASSAGES, question="How do I configure a Kubernetes ingress controller?")
    assert not is_unsupported(grounded, PASSAGES, question="How many garlic cloves did I plant?")
    assert not is_unsupported("It depends on the weather.", PASSAGES)  # too short to judge
    assert not is_unsupported(generic, [])  # nothing was read: nothing to compare with


def test_numbers_no_passage_or_question_holds_are_the_unread_ones() -> None:
    # "24 °C" misread for "4 °C"; "two" in a note is 2; "08" is 8; list numbers and ISO dates are not claims to check.
    notes = [*PASSAGES, Passage("[[Garden]]", "Sown two rows of 1,500 seeds on 8 November.")]
    answer = "1. Cold retard for 14 hours at 24 °C.\n2. Sow 2 rows of 1500 seeds on 08 November (2026-11-08), 3 weeks."

    assert unread_numbers(answer, notes, question="What did I do in the last 3 weeks?") == ["24"]
    assert unread_numbers("Stays 14 hours at 4 °C.", notes) == []


def test_a_date_no_passage_holds_far_from_today_is_unread_however_written() -> None:
    # The 0.5B on kepano's vault: Kevin Kelly's book, 1992 by its note, "Published: 2014-12-04".
    books = Passage("[[Kevin Kelly#Books]]", "[[Out of Control]] | 1992 | [[Futurism]]")
    daily = Passage("[[2026-12-03]]", "- Baked the weekly loaf")  # a daily note's date is its title
    today = date(2026, 12, 4)

    assert unread_numbers("Out of Control, published: 2014-12-04.", [books], today=today) == ["2014-12-04"]
    assert unread_numbers("Published on 12 September 2014.", [books], today=today) == ["12 September 2014"]
    assert unread_numbers("Out of Control, published in 1992.", [books], today=today) == []
    assert unread_numbers("On 3 December 2026 you baked the weekly loaf.", [daily], today=today) == []
    # Worked out from today ("due next Friday"), or with no year to place it: not checked.
    assert unread_numbers("It is due on 2026-12-11.", [daily], today=today) == []
    assert unread_numbers("It is due on 14 March.", [daily], today=today) == []
    assert unread_numbers("Published: 2014-12-04.", [books]) == []  # without today, no date is judged


INGRESS = """To configure it, use:

```yaml
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: my-ingress
```
"""


def test_a_code_block_no_passage_holds_is_the_models_own() -> None:
    # Recorded from the 0.5B, asked about a Kubernetes ingress no note covers.
    notes = [Passage("[[Home Server]]", "Caddy proxies the librarian on kestrel. The config lives in /etc/caddy.")]

    assert writes_unread_code(INGRESS, notes)
    assert writes_unread_code(INGRESS.removesuffix("```\n"), notes)  # cut off before its closing fence


def test_a_code_block_copied_from_a_note_or_a_one_line_command_is_not() -> None:
    note = Passage(
        "[[K8s]]", "```yaml\napiVersion: networking.k8s.io/v1\nkind:   Ingress\nmetadata:\n  name: my-ingress\n```"
    )
    assert not writes_unread_code(INGRESS, [note])
    assert not writes_unread_code("Run:\n\n```\nrestic snapshots --latest 1\n```\n", [Passage("[[B]]", "Backups.")])
    assert not writes_unread_code("No code here.", [Passage("[[B]]", "Backups.")])


def test_a_number_with_thousands_separators_is_one_number() -> None:
    # The 1.5B on vaultofknowledge: its caution named "625,000, 000, 750,000" for two numbers no note gave.
    laptop = [Passage("[[Local AI Requirements]]", "My laptop's memory bandwidth is 38.4 GB/s, 1500 MT/s.")]
    answer = "It has 38.4 GB/s, which is 625,000,000 bits per second or 750,000,000 bytes, at 1,500 MT/s."

    assert unread_numbers(answer, laptop) == ["625,000,000", "750,000,000"]
    assert unread_numbers("It weighs 1,5 kg.", [Passage("[[Scale]]", "15 kg")]) == ["1,5 kg"]  # a decimal comma


def test_a_number_written_on_to_letters_is_no_number_nor_a_part_of_one() -> None:
    # The 0.5B on vaultofknowledge (stop 58): "… it was also called 2.75G." was read as saying "2", which "2G" held.
    assert terms_of("It was called 2.75G.") == {"call"}
    assert terms_of("Allowed in 2.4GHz.") == {"allow"}
    assert terms_of("It is 25 cm, and 3.") >= {"25 cm", "3"}  # a sentence's period ends no number


def test_also_says_nothing() -> None:
    # "Also known as IS-95 (Interim Standard 95)" had borne out "… it was so good that it was also called 2.75G."
    assert "also" not in terms_of("It was also called IS-95.")


def test_a_chapter_and_verse_counts_nothing() -> None:
    # The 1.5B on vaultofknowledge (stop 58): "1. I had 2 TENS sessions …" had been borne out by the Ayahs "2:144".
    assert terms_of("the Ayahs 2:144, 2:149 and 2:150 revealed") == {"ayah", "reveal"}
    assert {"14", "00"} <= terms_of("Caffeine cut-off at 14:00.")  # a time is read as before


def test_a_figure_any_record_gives_is_sourced_from_the_passage_about_what_was_asked() -> None:
    # kepano-obsidian, the 1.5B (stop 59): "7" had Catan and Futurama among its sources, their records' "rating: 7"
    catan = Passage("[[Catan]]", "Catan\ncategories: [[Board games]]\nrating: 7")
    blade_runner = Passage("[[Blade Runner]]", "Blade Runner\ncategories: [[Movies]]\nrating: 7\nyear: 1982")
    futurama = Passage("[[Futurama]]", "categories: [[Shows]]\nrating: 7")
    passages = [catan, blade_runner, futurama]

    assert attribute("7", passages, question="What rating did I give Blade Runner?").sources == ["[[Blade Runner]]"]
    # a question naming nothing (a pronoun, a day) keeps every passage holding the figure
    assert len(attribute("7", passages, question="What rating did I give it?").sources) == 3
    assert len(attribute("7", passages, question="What rating did I give on Monday?").sources) == 3
    # a name written with a possessive ("Kevin Kelly's") is held by a passage naming it
    book = Passage("[[Out of Control]]", "author: [[Kevin Kelly]]\nrating: 7")
    assert attribute("7", [catan, book], question="What rating did I give Kevin Kelly's book?").sources == [
        "[[Out of Control]]"
    ]
    # a word shared besides the figure makes a source as before
    both = attribute("7, the same as Catan", passages, question="What rating did I give Blade Runner?").sources
    assert set(both) == {"[[Catan]]", "[[Blade Runner]]"}


def test_days_between_two_dates_of_a_passage_are_read_from_it() -> None:
    # kepano-obsidian, the 1.5B (stop 59): "18 days" from the trip's start and end had been cautioned as unread
    trips = Passage("[[Kyoto#Trips]]", "| [[2023 Japan Trip]] | 2023-09-12 | 2023-09-30 |")
    today = date(2026, 12, 7)
    for answer in ("The Japan trip lasted 18 days.", "19 days, counting both"):
        assert unread_numbers(answer, [trips], question="How long was my Japan trip?", today=today) == [], answer
    assert unread_numbers("20 days", [trips], today=today) == ["20 days"]
    assert unread_numbers("18 weeks", [trips], today=today) == ["18 weeks"]


def test_a_note_the_answer_names_by_its_title_is_a_source() -> None:
    # kepano-obsidian, the 0.5B (stop 61): "Futurama, Blade Runner, Futurama" listed [[Sci-fi]] and [[Movies]], the
    # rows naming both; the notes it names hold their records, one cut short before its title.
    rows = Passage("[[Sci-fi]]", "| [[Blade Runner]] | 7 | [[Movies]] |\n| [[Futurama]] | 7 | [[Shows]] |")
    futurama = Passage("[[Futurama]]", "Futurama\ncategories: [[Shows]]\nrating: 7")
    blade_runner = Passage("[[References/Blade Runner]]", "… categories: [[Movies]]\n…\nyear: 1982")
    jazz = Passage("[[Jazz]]", "Jazz\ncategories: [[Genres]]")
    sources = attribute("Futurama and Blade Runner.", [rows, futurama, blade_runner, jazz], question="Which shows?")
    assert sources.sources == ["[[Sci-fi]]", "[[Futurama]]", "[[References/Blade Runner]]"]
    # one word names a note only as the note writes it; a name inside a longer one names nothing
    assert attribute("I like jazz standards.", [jazz], question="What do I like?").sources == []
    assert attribute("Jazz-Funk.", [jazz], question="What do I like?").sources == []
    assert attribute("blade runner", [blade_runner], question="Which film?").sources == ["[[References/Blade Runner]]"]
