"""An answer to a request about a topic must draw on a passage about that topic, not only copy another note."""

from __future__ import annotations

from agent.day_notes import NamedDays, of_other_days
from agent.opening_check import answer_check
from rag.answer.attribution import Passage
from rag.answer.question_kind import topic_of
from rag.answer.topic_passages import draws_on, draws_on_topic, passages_about, topic_words

FREECAD = Passage(
    "[[Studying FreeCAD Source Code#The structure of FreeCAD Source]]",
    "- cMake - cMake includes local modules and cMake/FreeCAD_Helpers includes macros\n"
    "- Writing new workbenches starts from the Template module.",
)
JOKE = Passage(
    "[[Questions to LLMs 4#DevOps and Tooling Explosion]]",
    '"This YAML file deploys another YAML file that generates Terraform that deploys Kubernetes."',
)
ALTERNATIVES = Passage(
    "[[Obsidian Alternatives]]", "- QOwnNotes\n- Iotas\n\t- Stores data in SQLite DB\n- [NONFREE] Plume"
)
OTHER_APPS = Passage(
    "[[Personal Website Inspirations#Knowledgebase]]",
    "Other apps: Trilium, Wikilinks + Git.Dev, Obsidian + MyST converter + Sphinx\nNOTE: Nimbus Notes is paid",
)
TERRAFORM = "Summarize my notes on writing Terraform modules."


def test_the_topic_is_the_requests_words_after_what_it_asks_for() -> None:
    assert topic_words(topic_of(TERRAFORM)) == {"writing": "writ", "terraform": "terraform", "modules": "modul"}
    assert topic_words(topic_of("What do I think about push up boards?")) == {"push": "push", "boards": "board"}
    assert topic_of("How many cloves of garlic did I plant?") == ""  # no request about a topic


def test_a_passage_about_the_topic_holds_its_rarest_word_and_most_of_the_others() -> None:
    # The FreeCAD note holds "modules" and "writing", two thirds of the words, but not "terraform"; the joke
    # holds "terraform" alone.
    assert passages_about(TERRAFORM, [FREECAD, JOKE]) == []
    # Its link counts: "Obsidian Alternatives" is the note's name, not its text.
    question = "Summarize my notes on Obsidian alternatives."
    assert passages_about(question, [ALTERNATIVES, OTHER_APPS]) == [ALTERNATIVES]
    # Two words: both.
    knee = Passage("[[Knee Rehab]]", "Diagnosis: patellofemoral pain syndrome. No surgery planned.")
    assert passages_about("Summarize my notes on my knee surgery.", [knee]) == [knee]
    assert passages_about("Summarize my notes on my knee surgery.", [Passage("[[Knee Rehab]]", "Clamshells.")]) == []


def test_an_answer_copying_a_note_off_the_topic_does_not_draw_on_it() -> None:
    # The 1.5B, told to refuse only when no note is about the topic.
    answer = "The notes on writing Terraform modules state that they include local modules and cMake/FreeCAD_Helpers."

    assert not draws_on_topic(answer, TERRAFORM, [FREECAD, JOKE])
    assert draws_on_topic("I couldn't find this in your notes.", TERRAFORM, [FREECAD, JOKE])


def test_an_answer_drawing_on_the_topics_note_may_add_what_other_passages_say() -> None:
    answer = "The notes list QOwnNotes, Iotas and Plume, and also Nimbus Notes, which is paid."
    question = "Summarize my notes on Obsidian alternatives."

    assert draws_on_topic(answer, question, [ALTERNATIVES, OTHER_APPS])
    assert not draws_on_topic("Nimbus Notes is paid.", question, [OTHER_APPS])  # no passage about the topic


def test_the_opening_check_withholds_a_summary_of_another_note_and_shows_one_of_the_topics() -> None:
    off_topic = answer_check(TERRAFORM, [FREECAD, JOKE])
    shown = off_topic.feed("cMake includes local modules and cMake/FreeCAD_Helpers includes macros.") + (
        off_topic.finish()
    )
    assert shown == "" and off_topic.is_withheld

    same_words = answer_check("What is in the FreeCAD source?", [FREECAD, JOKE])  # no request about a topic
    text = "cMake includes local modules and cMake/FreeCAD_Helpers includes macros."
    assert same_words.feed(text) + same_words.finish() == text

    on_topic = answer_check("Summarize my notes on Obsidian alternatives.", [ALTERNATIVES, OTHER_APPS])
    text = "Your notes list QOwnNotes and Iotas, which stores data in SQLite DB."
    assert on_topic.feed(text) + on_topic.finish() == text


def test_when_no_passage_holds_the_topics_rarest_word_the_topic_is_not_judged() -> None:
    # The notes found say it in other words: which of them are about it is no matter of words any more.
    trainers = Passage("[[Running Log#Kit]]", "New trainers from the shop on Karl-Liebknecht-Strasse, 120 km so far.")
    question = "What do I think about my running shoes?"

    assert draws_on_topic("New trainers, 120 km so far.", question, [trainers])
    assert not draws_on_topic("New trainers, 120 km so far.", TERRAFORM, [FREECAD, JOKE, trainers])


DAY_LOG = Passage("[[2026-11-10#Log]]", "- 19:00 Allotment committee: two hours, one of them on the hedge question.")
OTHER_DAY = Passage("[[2026-11-13#Notes]]", "Nothing much. A good Friday.")
GARDEN = Passage("[[Garden Plan 2027#Autumn]]", "Plant the garlic cloves in bed 3 before the first frost.")
TODAY_NOTE = Passage("[[2026-12-05#Plan]]", "- [ ] Call the plumber about the leak.")


def test_an_answer_about_a_day_must_draw_on_that_days_notes() -> None:
    # The 0.5B, asked "What happened on 2026-11-10?" with both days' passages, answered from 2026-11-13's.
    question = "What happened on 2026-11-10?"
    day = NamedDays(("2026-11-10",), ("Daily/2026-11-10.md",))

    other = answer_check(question, [DAY_LOG, OTHER_DAY], days=day)
    assert other.feed("The notes say that a good Friday.") + other.finish() == "" and other.is_withheld
    right = answer_check(question, [DAY_LOG, OTHER_DAY], days=day)
    text = "Two hours of the allotment committee, one on the hedge question."
    assert right.feed(text) + right.finish() == text
    unchecked = answer_check(question, [DAY_LOG, OTHER_DAY])  # no notes of the day known: not judged so
    assert unchecked.feed("The notes say that a good Friday.") + unchecked.finish() != ""


def test_a_refusal_of_the_days_own_notes_is_withheld_and_they_are_quoted_instead() -> None:
    # The 0.5B refused "What did I do on 2026-11-08?" with only that day's notes, told whose they are.
    day = NamedDays(("2026-11-10",), ("Daily/2026-11-10.md",))

    refused = answer_check("What happened on 2026-11-10?", [DAY_LOG, OTHER_DAY], days=day)
    assert refused.feed("I couldn't find this in your notes.") + refused.finish() == "" and refused.is_withheld
    assert refused.withheld_reply == (
        "Here is what your notes of 2026-11-10 say:\n\n1. [[2026-11-10#Log]]\n"
        "   > 19:00 Allotment committee: two hours, one of them on the hedge question."
    )  # the other day's passage is no note of the day
    topic = answer_check("What should I plant on 2026-11-10?", [DAY_LOG, GARDEN], days=day)  # not the day alone
    assert topic.feed("I couldn't find this in your notes.") + topic.finish() != ""
    assert topic.withheld_reply == "I couldn't find this in your notes."


def test_a_question_naming_a_topic_beside_its_day_may_be_answered_from_other_notes() -> None:
    check = answer_check(
        "Tell me about planting garlic today.",
        [TODAY_NOTE, GARDEN],
        days=NamedDays(("2026-12-05",), ("Daily/2026-12-05.md",)),
    )
    text = "Plant the garlic cloves in bed 3 before the first frost."

    assert check.feed(text) + check.finish() == text
    assert draws_on("Plant the garlic.", "What happened yesterday?", []) is False  # no passage of the day was sent


def test_a_note_of_another_day_bears_out_nothing_of_the_day_asked_about() -> None:
    # The 1.5B, asked of a day the vault has no note of, answered with 2026-11-10's tempo run.
    tempo = Passage("[[2026-11-10#Log]]", "- 06:50 Tempo run, 8.4 km total. Knee fine.")
    log = Passage("[[Running Log#Week 46 (9 – 15 Nov)]]", "- Sat 14 Nov: parkrun Auensee, 24:11 (4:50/km).")

    other_day = answer_check("How far did I run on 2026-10-20?", [tempo, log], days=NamedDays(("2026-10-20",)))
    assert other_day.feed("I ran 8.4 km on 2026-10-20.") + other_day.finish() == "" and other_day.is_withheld
    that_day = answer_check("How far did I run on 2026-11-10?", [tempo, log], days=NamedDays(("2026-11-10",)))
    assert that_day.feed("I ran 8.4 km on 2026-11-10.") + that_day.finish() == "I ran 8.4 km on 2026-11-10."
    undated = answer_check(
        "What was my parkrun time on 2026-11-14?", [tempo, log], days=NamedDays(("2026-11-14",), is_past=True)
    )
    text = "The parkrun took 24:11."  # from a note no day names: the Running Log's week
    assert undated.feed(text) + undated.finish() == text


def test_a_note_of_an_earlier_day_bears_out_what_it_plans_for_days_to_come() -> None:
    # The 0.5B's right answer on sample_vault was withheld: the meeting note that plans January is of 2026-11-16.
    meeting = Passage(
        "[[2026-11-16 1-on-1 Priya#On-call rotation]]",
        "From **January 2027** it changes to **split shifts**: Monday 09:00 to Thursday 09:00 and Thursday 09:00 to "
        "Monday 09:00.",
    )
    january = tuple(f"2027-01-{day:02d}" for day in range(1, 32))
    question = "How does the on-call rotation at work change from January 2027?"
    answer = "The on-call rotation at work changes to split shifts in January."

    to_come = answer_check(question, [meeting], days=NamedDays(january, is_future=True))
    assert to_come.feed(answer) + to_come.finish() == answer
    gone_by = answer_check(question, [meeting], days=NamedDays(january))  # asked in February: January's notes record it
    assert gone_by.feed(answer) + gone_by.finish() == "" and gone_by.is_withheld


def test_a_note_is_of_other_days_when_its_name_holds_iso_dates_none_of_them_asked() -> None:
    assert of_other_days("2026-11-10 Allotment Committee", ["2026-10-20"])
    assert not of_other_days("2026-11-10", ["2026-11-09", "2026-11-10"])
    assert not of_other_days("Running Log", ["2026-10-20"])
    assert not of_other_days("2026-W46 Weekly Review", ["2026-10-20"])  # a week's name is no day's
    assert not of_other_days("2026-11 Monthly Review", ["2026-10-20"])  # nor a month's
    assert of_other_days("2026-11-16-team-sync", ["2026-11-17"])  # a hyphen after the date
    assert not of_other_days("2026-11-16-2026-11-18", ["2026-11-16"])


def test_asked_what_was_on_a_day_an_answer_must_draw_on_what_the_notes_say_of_that_day() -> None:
    # Both models answered "What did I cook on 2026-11-15?", a day without a note, from the meal-prep routine.
    routine = Passage("[[Meal Prep#The system]]", "Cook three components and two sauces, then combine them each day.")
    week = Passage("[[Running Log#Week 46 (9 – 15 Nov)]]", "- Sun 15 Nov: long run 13 km, 6:18/km average.")

    cooked = answer_check(
        "What did I cook on 2026-11-15?", [routine, week], days=NamedDays(("2026-11-15",), is_past=True)
    )
    assert cooked.feed("I cooked three components and two sauces.") + cooked.finish() == ""
    ran = answer_check(
        "How far did I run on 2026-11-15?", [routine, week], days=NamedDays(("2026-11-15",), is_past=True)
    )
    assert ran.feed("You ran 13 km at 6:18/km.") + ran.finish() == "You ran 13 km at 6:18/km."  # "Sun 15 Nov"
    planned = answer_check(
        "What should I cook today?", [routine, week], days=NamedDays(("2026-12-05",))
    )  # not what was
    text = "Cook three components and two sauces."
    assert planned.feed(text) + planned.finish() == text
