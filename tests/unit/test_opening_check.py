"""The opening check: a plain answer is held until its opening can be read against the passages."""

from __future__ import annotations

import pytest

from agent.opening_hold import HOLD_CHARS, MAX_HOLD_CHARS, OpeningCheck
from rag.answer.attribution import Passage
from rag.answer.evidence import is_borne_out
from rag.answer.question_kind import kind_asked
from tests.unit.test_figure_owners import QUESTION as PER_PLANT
from tests.unit.test_figure_owners import RESULTS as TOMATO_RESULTS

KITCHEN = Passage(
    "[[Kitchen MOC#Recipes]]",
    "- [[Sourdough]]: the loaf I bake every week.\n- Still to write down: [[Mom's Plum Cake]]",
)
SOURDOUGH = Passage(
    "[[Sourdough#Final recipe]]",
    "| Ingredient | Amount | Baker's % |\n| --- | --- | --- |\n| Wheat flour, type 550 | 400 g | 80 % |\n"
    "| Whole wheat flour | 100 g | 20 % |\n| Water | 375 g | 75 % |\n"
    "| Levain (ripe, 100 % hydration) | 100 g | 20 % |\n| Salt | 10 g | 2 % |\n\n"
    "- Cold retard: 14 hours in the fridge at 4 °C, covered.",
)
BIKE = Passage(
    "[[Bike Repair Notes#For next time]]", "Measure the chain every 1,000 km. A €10 chain checker saves a €40 cassette."
)
PLUM = "What are the ingredients of my mom's plum cake?"
RETARD = "How long does the shaped sourdough loaf rest in the fridge, and at what temperature?"


class Judge:
    """Records what the check was asked to judge; answers as told."""

    def __init__(self, verdict: bool) -> None:
        self.verdict = verdict
        self.judged: list[str] = []

    def __call__(self, text: str) -> bool:
        self.judged.append(text)
        return self.verdict


def test_an_answer_holding_what_a_sentence_of_the_passages_says_is_borne_out() -> None:
    assert is_borne_out("It rests 14 hours in the fridge at 4 °C.", [KITCHEN, SOURDOUGH], question=RETARD)


def test_an_answer_repeating_a_sentence_of_the_passages_is_borne_out() -> None:
    assert is_borne_out("Cold retard: 14 hours in the fridge at 4 °C, covered.", [SOURDOUGH], question=PLUM)


def test_an_answer_listing_short_task_lines_of_the_passages_word_for_word_is_borne_out() -> None:
    # The 0.5B's reply on obsidian-tasks-demo, given the tasks due that day (agent/tools/due_tasks.py): each line too
    # short to count as copied, and not shown again under the answer, so nothing bore it out and it was withheld.
    acme = Passage(
        "[[ACME#Steps to world domination]]", "- [ ] #task **?** 📅 2021-11-22\n- [ ] #task ==Profit== 📅 2021-11-22"
    )
    question = "Which tasks are due on 2021-11-22?"
    listed = "The tasks due on 2021-11-22 are:\n\n- [ ] #task **?** 📅 2021-11-22\n- [ ] #task ==Profit== 📅 2021-11-22"

    assert is_borne_out(listed, [acme], question=question)
    assert not is_borne_out(listed.replace("Profit", "Lunch"), [acme], question=question)  # a line no note holds


def test_words_saying_what_the_notes_do_with_the_lines_repeated_claim_nothing() -> None:
    # The 1.5B summarising a list note: "mention" stands in none of its lines.
    alternatives = Passage("[[Obsidian Alternatives]]", "- QOwnNotes\n- Iotas\n\t- Stores data in SQLite DB")
    question = "Summarize my notes on Obsidian alternatives."

    assert is_borne_out("The notes mention QOwnNotes and Iotas.", [alternatives], question=question)
    listed = "Your notes list QOwnNotes and Iotas, which stores data in SQLite DB."
    assert is_borne_out(listed, [alternatives], question=question)
    assert not is_borne_out("The notes mention QOwnNotes and Iotas, both free.", [alternatives], question=question)


def test_a_line_beside_those_repeated_said_in_another_form_of_its_word_is_held() -> None:
    # The 1.5B over vaultofknowledge: "flexibility" for the list's "Flexible", the three lines above it word for word.
    sheets = Passage("[[Google Sheets#Features]]", "- Spreadsheet\n- Formulas\n- Color Functions\n- Flexible")
    question = "Which features of Google Sheets did I note for project management?"
    answer = "I noted that Google Sheets has spreadsheet features, formulas, color functions, and flexibility."

    assert is_borne_out(answer, [sheets], question=question)
    assert not is_borne_out(answer.replace("flexibility", "pivot tables"), [sheets], question=question)
    assert not is_borne_out(answer.replace("flexibility", "formatting"), [sheets], question=question)  # not "Formulas"


def test_a_refusal_is_borne_out_it_claims_nothing() -> None:
    assert is_borne_out("The notes don't mention a plum cake recipe.", [SOURDOUGH], question=PLUM)


def test_a_near_miss_answered_with_a_neighbouring_notes_content_is_not_borne_out() -> None:
    # Recorded from the 0.5B: the sourdough's ingredients for the plum cake the kitchen map says is not written down.
    invented = "The ingredients of my mom's plum cake are wheat flour, whole wheat flour, water, levain, salt."
    assert not is_borne_out(invented, [KITCHEN, SOURDOUGH], question=PLUM)


def test_an_answer_from_the_models_own_knowledge_is_not_borne_out() -> None:
    manifest = "To configure a Kubernetes ingress controller, you can use the following YAML snippet:\n\n```yaml\n"
    assert not is_borne_out(manifest, [BIKE, SOURDOUGH], question="How do I configure a Kubernetes ingress controller?")


def test_a_short_reply_is_held_to_its_end_then_released_whole() -> None:
    judge = Judge(verdict=True)
    check = OpeningCheck(judge)

    shown = [check.feed(piece) for piece in ("It rests ", "14 hours.")]

    assert shown == ["", ""]
    assert check.finish() == "It rests 14 hours."
    assert judge.judged == ["It rests 14 hours."] and not check.is_withheld


def test_the_opening_is_its_first_sentence_past_the_hold_then_the_rest_streams_unheld() -> None:
    judge = Judge(verdict=True)
    check = OpeningCheck(judge)
    first = "a" * (HOLD_CHARS - 10) + " and then some more words."

    released = check.feed(first[:40]) + check.feed(first[40:] + " Next")
    later = check.feed(" sentence.")

    assert released == first + " Next" and later == " sentence."
    assert judge.judged == [first + " Next"]
    assert check.finish() == ""


def test_a_sentence_end_inside_a_number_does_not_end_the_opening() -> None:
    judge = Judge(verdict=True)
    check = OpeningCheck(judge)

    assert check.feed("x" * HOLD_CHARS + " harvested 5.0") == ""
    assert check.feed(" kg per plant. More") != ""


def test_a_long_run_without_a_sentence_end_is_judged_as_it_stands() -> None:
    judge = Judge(verdict=True)
    check = OpeningCheck(judge)
    table = "| cell " * (MAX_HOLD_CHARS // 7 + 1)  # a row of a table, no sentence end in it

    assert check.feed(table) == table
    assert judge.judged == [table]


def test_an_opening_the_notes_do_not_bear_out_is_withheld_with_all_that_follows() -> None:
    check = OpeningCheck(Judge(verdict=False))
    opening = "The plum cake takes wheat flour, water, levain and salt, as the recipe in the notes says, mixed well."

    assert check.feed(opening + " Then") == ""
    assert check.is_withheld and check.opening == opening + " Then"
    assert check.feed(" bake it.") == "" and check.finish() == ""


def test_an_empty_reply_is_not_withheld() -> None:
    judge = Judge(verdict=False)
    check = OpeningCheck(judge)

    assert check.finish() == "" and not check.is_withheld
    assert judge.judged == []


def test_a_line_announcing_what_follows_runs_on_to_the_next_line() -> None:
    # Recorded from the 0.5B on vaultofknowledge: the formula after the colon is what the notes bear out.
    judge = Judge(verdict=True)
    check = OpeningCheck(judge)
    announced = "To turn an antenna's power figure against a dipole into one against a point source, use this formula:"

    assert check.feed(announced + "\n\n") == ""
    assert check.feed("EIRP = ERP + 2.15") == ""
    assert check.feed("\n") == announced + "\n\nEIRP = ERP + 2.15\n"
    assert judge.judged == [announced + "\n\nEIRP = ERP + 2.15\n"]


def test_an_opening_the_notes_bear_out_early_is_released_before_its_sentence_ends() -> None:
    def borne_out(text: str) -> bool:
        return is_borne_out(text, [SOURDOUGH], question=RETARD)

    check = OpeningCheck(
        borne_out, is_borne_out_so_far=lambda text: is_borne_out(text, [SOURDOUGH], question=RETARD, is_whole=False)
    )

    assert check.feed("It rests ") == ""  # says nothing yet beyond the question
    assert check.feed("14 hours in") == ""  # a part of a word, or too little new since the last look
    released = check.feed(" the cold, ")

    assert released == "It rests 14 hours in the cold, " and not check.is_withheld
    assert check.feed("covered.") == "covered."


def test_an_opening_not_borne_out_so_far_is_held_to_its_end_and_judged_whole() -> None:
    said: list[str] = []

    def borne_out(text: str, *, is_whole: bool = True) -> bool:
        said.append(text)
        return is_borne_out(text, [KITCHEN, SOURDOUGH], question=PLUM, is_whole=is_whole)

    check = OpeningCheck(borne_out, is_borne_out_so_far=lambda text: borne_out(text, is_whole=False))
    opening = "The ingredients of my mom's plum cake are wheat flour, whole wheat flour, water, levain and salt."

    shown = "".join(check.feed(word + " ") for word in opening.split())

    assert shown == "" and check.finish() == "" and check.is_withheld
    assert len(said) > 1  # looked at early, more than once, and never released


def test_a_link_still_open_when_the_opening_is_judged_says_nothing() -> None:
    # The 1.5B's reply to a near miss, streamed in pieces: judged at MAX_HOLD_CHARS inside a link, "[[Bike Repair"
    # had read as words of its own.
    read = [
        Passage("[[Bike Repair Notes#For next time]]", "A €10 chain checker saves a €40 cassette."),
        Passage(
            "[[2026-W46 Weekly Review#What didn't go well]]",
            "- The bike still skips on the smallest cog after the new chain. Needs the indexing adjusted properly, "
            "see [[Bike Repair Notes]].",
        ),
    ]
    question = "How much did the new cassette for my commuter bike cost?"
    check = OpeningCheck(
        lambda text: is_borne_out(text, read, question=question),
        is_borne_out_so_far=lambda text: is_borne_out(text, read, question=question, is_whole=False),
    )
    link = "[[Bike Repair Notes#For next time]] "
    pieces = [link * 11, "[[Bike Repair", " Notes#For next time]] ", link * 2]  # past MAX_HOLD_CHARS in a link

    shown = "".join(map(check.feed, pieces)) + check.finish()

    assert shown == "" and check.is_withheld and "]]" not in check.opening[check.opening.rfind("[[") :]


def test_one_term_of_the_answer_in_a_sentence_of_the_notes_on_the_question_bears_it_out() -> None:
    # Recorded from the 1.5B: the cheese is named in a tip of the Käsespätzle note that shares no word with the
    # question itself; the note's title does.
    tips = Passage("[[Käsespätzle#Omas Tipps]]", "- Kein Gouda! Der Bergkäse ist das ganze Rezept.")
    question = "Welchen Käse nimmt Oma für die Käsespätzle?"

    assert is_borne_out("Oma verwendet Bergkäse für die Käsespätzle.", [tips], question=question)
    assert not is_borne_out("Oma verwendet Tilsiter und Butterkäse.", [tips], question=question)


def test_an_answer_only_repeating_the_question_is_not_borne_out_by_a_sentence_sharing_one_of_its_words() -> None:
    # Recorded from the 0.5B on kepano-obsidian, asked which hotel was booked in Kyoto.
    trip = Passage("[[2023 Japan Trip]]", "- Kyoto: temples in the morning, the Philosopher's Path in the rain.")
    assert not is_borne_out("Kyoto", [trip], question="Which hotel did I book in Kyoto?")


def test_an_answer_naming_nothing_beyond_a_question_that_asks_for_something_is_not_borne_out() -> None:
    # The 0.5B's whole reply; the notes name bge-small-en-v1.5, and nomic only as what was not chosen.
    choice = Passage(
        "[[Embedding Model Choice#Decision]]",
        "BAAI/bge-small-en-v1.5. Nomic is two points better on Recall@5, but takes 3.6 times as long to index.",
    )
    question = "Which embedding model did I choose for the librarian, and why not nomic?"

    assert not is_borne_out("nomic", [choice], question=question)
    assert is_borne_out("bge-small-en-v1.5: nomic takes 3.6 times as long to index.", [choice], question=question)
    assert is_borne_out("Yes.", [choice], question="Is nomic better on Recall@5?")  # a yes or a no names nothing
    assert is_borne_out("Nomic.", [choice], question="Which is better on Recall@5, bge or nomic?")  # a choice offered


def test_an_answer_restating_one_sentence_in_other_words_is_borne_out_without_the_questions_words() -> None:
    # Recorded from the 1.5B on vaultofknowledge: the note says "cervical spine" where the question says "neck".
    topics = Passage(
        "[[Entry of 29th Jan, 2025#Topics]]",
        "- What I got for my cervical spine: Transcutaneous Electrical Nerve Stimulation (TENS) / Electropathy\n"
        "- Energy Medicine",
    )
    answer = "I got Transcutaneous Electrical Nerve Stimulation (TENS) / Electropathy from my cervical spine."
    question = "What therapy did I get for my neck?"

    assert is_borne_out(answer, [topics], question=question)
    assert not is_borne_out(answer[:40], [topics], question=question, is_whole=False)  # a start restates trivially


def test_a_list_a_line_announces_is_judged_whole_not_by_its_first_item() -> None:
    # Recorded from the 0.5B: the first item alone is a row of the sourdough recipe; the list is not the plum cake.
    judge = Judge(verdict=False)
    check = OpeningCheck(judge)
    items = "- Wheat flour, type 550\n- Whole wheat flour\n- Water\n- Levain (ripe, 100 % hydration)\n- Salt\n"

    held = [check.feed(part) for part in ("The ingredients of my mom's plum cake are:\n\n", *items.splitlines(True))]
    ending = check.feed("\nEnjoy baking. More")

    assert held == [""] * 6 and ending == ""
    assert judge.judged == ["The ingredients of my mom's plum cake are:\n\n" + items + "\nEnjoy baking. More"]


def test_a_numbered_list_a_line_announces_is_judged_whole_not_at_its_first_marker() -> None:
    # The 1.5B's summary of a week was judged at "1. " (the marker's period read as a sentence's end) and withheld.
    judge = Judge(verdict=True)
    check = OpeningCheck(judge)
    opening = "The week of 2026-11-09 was marked by several notable events. Here's a summary of what the notes say:\n\n"
    items = "1. **Fermentation:** Started the beetroot sauerkraut.\n2. **Parkrun:** 24:11, second-best ever.\n"

    held = [check.feed(part) for part in (opening, *items.splitlines(True))]
    shown = check.feed("\nA good week. More")

    assert held == ["", "", ""] and shown.startswith(opening)
    assert judge.judged == [opening + items + "\nA good week. More"]


def test_an_answer_of_links_to_notes_it_read_is_borne_out_by_them() -> None:
    # Recorded from the 1.5B on kepano-obsidian, asked which sci-fi movies and shows are in the notes.
    read = [
        Passage("[[Blade Runner]]", "Blade Runner\ncategories: [[Movies]]\ngenre: [[Sci-fi]]"),
        Passage("[[Futurama]]", "Futurama\ncategories: [[Shows]]\ngenre: [[Sci-fi]]"),
    ]
    question = "Which sci-fi movies and shows are in my notes?"

    assert is_borne_out("[[Blade Runner]] [[Futurama]]", read, question=question)
    assert not is_borne_out("[[Star Trek]]", read, question=question)


def test_a_link_to_a_note_not_of_the_kind_asked_for_is_no_answer() -> None:
    # The 1.5B on kepano-obsidian, asked a near miss: no note names the hotel.
    read = [
        Passage(
            "[[Kyoto#Trips]]",
            "| Trip | Start | End |\n| --- | --- | --- |\n| [[2023 Japan Trip]] | 2023-09-12 | 2023-09-30 |",
        ),
        Passage("[[2023 Japan Trip]]", "2023 Japan Trip\ncategories: [[Trips]]\nloc: [[Kyoto]], [[Japan]]"),
    ]
    answer = "I stayed at [[Kyoto#Trips]] on [[2023 Japan Trip]]."

    assert not is_borne_out(answer, read, question="Which hotel did I stay at in Kyoto?")
    assert is_borne_out("[[2023 Japan Trip]]", read, question="Which trip took me to Kyoto?")
    assert kind_asked("Which hotel did I stay at in Kyoto?") == "hotel"
    assert kind_asked("What did I discuss with Steph?") == kind_asked("Which notes are about garlic?") == ""


def test_a_link_naming_only_what_was_asked_is_no_answer_unless_notes_were_asked_for() -> None:
    # The 0.5B on kepano-obsidian, asked a near miss: no note gives his phone number.
    steph = Passage("[[Steph Ango#Meetings]]", "| [[2023-09-12 Meeting with Steph]] | 2023-09-12 | [[Steph Ango]] |")

    assert not is_borne_out("[[Steph Ango]]", [steph], question="What is Steph Ango's phone number?")
    assert is_borne_out("[[Steph Ango]]", [steph], question="Which note is about Steph Ango?")


def test_no_link_answers_a_question_asking_for_an_amount() -> None:
    # The 1.5B, asked a near miss: no note says what the cassette cost.
    bike = Passage("[[Bike Repair Notes#For next time]]", "A €10 chain checker saves a €40 cassette.")
    links = "[[Bike Repair Notes#For next time]] [[Bike Repair Notes]]"

    assert not is_borne_out(links, [bike], question="How much did the new cassette for my commuter bike cost?")
    assert is_borne_out(links, [bike], question="Which notes say how to check the chain?")


def test_no_link_answers_a_question_asking_for_an_address_a_port_or_a_version() -> None:
    # The 1.5B on vaultofknowledge, asked a near miss: the note uses your-blog.wordpress.com as a placeholder.
    sela = Passage(
        "[[How I revived Sela#For a new site (my trick)]]",
        "If you've never had a blog that used Sela in the past, all you have to do is visit this link.",
    )
    link = "[[How I revived Sela#For a new site (my trick)]]"

    assert not is_borne_out(link, [sela], question="What is the address of my own WordPress blog that uses Sela?")
    assert is_borne_out(link, [sela], question="Where did I write down how to get Sela on a new blog?")


def test_a_list_of_links_announced_as_the_following_is_borne_out_by_the_notes_it_links() -> None:
    # The 0.5B's answer on kepano-obsidian: "following" frames the list, it is nothing the notes must hold.
    read = [
        Passage("[[Kevin Kelly#Clippings]]", "![[Clippings.base#Author]]"),
        Passage("[[Out of Control]]", "categories: [[Books]]\nauthor: [[Kevin Kelly]]\npublished: 1992"),
    ]
    answer = "Kevin Kelly has noted the following books:\n\n1. [[Out of Control]]\n2. [[Kevin Kelly#Clippings]]"

    assert is_borne_out(answer, read, question="Which book by Kevin Kelly have I noted, and when was it published?")


def test_a_sentence_giving_the_day_asked_about_is_on_topic_in_any_form() -> None:
    # "How far did I run on 2026-11-15?" has no long word but its year; the running log writes the day "Sun 15 Nov".
    week = Passage(
        "[[Running Log#Week 46 (9 – 15 Nov)]]", "- Wed 11 Nov: easy 8 km.\n- Sun 15 Nov: long run 13 km, 6:18/km."
    )
    question = "How far did I run on 2026-11-15?"

    assert is_borne_out("13 km.", [week], question=question)
    assert not is_borne_out("8 km.", [week], question=question)  # a sentence of another day, under the week's heading
    assert not is_borne_out("13 km.", [week], question="How far did I run on 2026-11-14?")


def test_an_opening_is_not_released_early_on_a_number_whose_unit_may_follow() -> None:
    # The 1.5B streamed "Green Zebra gave the most per plant (3.1 " and it was released, before the "kg each" the notes
    # give to Sungold; judged whole, the opening is withheld (rag/answer/figure_owners.py).
    check = OpeningCheck(
        lambda text: is_borne_out(text, [TOMATO_RESULTS], question=PER_PLANT),
        is_borne_out_so_far=lambda text: is_borne_out(text, [TOMATO_RESULTS], question=PER_PLANT, is_whole=False),
    )

    shown = "".join(check.feed(piece) for piece in ["Green Zebra gave the most per plant (3.1", " ", "kg each", ")."])

    assert shown == "" and check.finish() == "" and check.is_withheld


@pytest.mark.parametrize(
    ("opening", "answer"),
    [
        # The 1.5B on vaultofknowledge (stop 58): "… you can use the formula:\n   ```\n" was judged before the formula.
        (
            "1. To estimate a local model's tokens per second from memory, you can use the formula:\n   ```\n",
            "   Tokens per second = bandwidth / model size\n",
        ),
        # The 1.5B on vaultofknowledge (stop 58): judged alone, the part it wrote as a heading claimed nothing.
        (
            "1. What new backronym did I propose for the program that runs Windows software on Linux?\n",
            "   WINE: Wine Is Not an Emulator.\n",
        ),
    ],
    ids=["a code block's opening fence", "a part of the question written over its answer"],
)
def test_a_line_saying_nothing_yet_does_not_end_the_opening(opening: str, answer: str) -> None:
    judge = Judge(verdict=True)
    check = OpeningCheck(judge)

    assert check.feed(opening) == ""
    assert check.feed(answer) == opening + answer
    assert judge.judged == [opening + answer]


def test_code_after_the_fence_is_judged_with_the_opening() -> None:
    deploy = Passage(
        "[[Deployment Notes#Restart]]", "After a config change:\n\n```sh\nsystemctl restart librarian\n```"
    )
    question = "How do I restart the librarian after a config change?"
    copied = "You can use the following command:\n\n```sh\nsystemctl restart librarian\n"
    invented = (
        "To configure a Kubernetes ingress controller, you can use the following YAML snippet:\n\n"
        "```yaml\nkind: Ingress\n"
    )

    assert is_borne_out(copied, [deploy], question=question)
    assert not is_borne_out(invented, [BIKE, SOURDOUGH], question="How do I configure a Kubernetes ingress controller?")
