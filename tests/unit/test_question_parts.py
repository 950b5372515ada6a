"""Splitting a question asking two or three things into its parts, which the model is told one by one."""

from __future__ import annotations

import pytest

from agent.opening_check import answer_check, refers_back
from rag.answer.attribution import Passage
from rag.answer.context import REFUSAL
from rag.answer.question_parts import part_answers, question_parts, repeated_parts, with_subject
from rag.answer.yes_no import NOT_SO


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "How long does the shaped sourdough loaf rest in the fridge, and at what temperature?",
            ("How long does the shaped sourdough loaf rest in the fridge?", "At what temperature?"),
        ),
        (
            "Which embedding model did I choose for the librarian, and why not nomic?",
            ("Which embedding model did I choose for the librarian?", "Why not nomic?"),
        ),
        (
            "When did I stop having coffee in the day to sleep better, and did it help?",
            ("When did I stop having coffee in the day to sleep better?", "Did it help?"),
        ),
        (
            "How many garlic cloves did I plant, of which variety, and on what date?",
            ("How many garlic cloves did I plant, of which variety?", "On what date?"),
        ),
        ("What is Wine and how does it work?", ("What is Wine?", "How does it work?")),
        ("Who wrote it, and when, and where was it printed?", ()),  # "When" alone asks nothing a part can
        (
            "Who wrote The Machine Stops, and in which year was it published, and by whom?",
            ("Who wrote The Machine Stops?", "In which year was it published?", "By whom?"),
        ),
        ("Welchen Käse nimmt Oma und was kommt dazu?", ("Welchen Käse nimmt Oma?", "Was kommt dazu?")),
    ],
)
def test_a_question_asking_more_than_one_thing_is_split_where_and_opens_a_new_question(
    question: str, parts: tuple[str, ...]
) -> None:
    assert question_parts(question) == parts


@pytest.mark.parametrize(
    "question",
    [
        "How is the sourdough loaf baked, with the lid on and off?",  # "and" joins two words
        "What did I plant and harvest?",
        "How and when do I prune the plum tree?",  # "How" asks nothing alone
        "Did I cook and did I eat it?",  # a verb after "and" opens a part only after a comma
        "I baked bread and was happy?",  # English "was" is a verb
        "Which is better, bge or nomic?",
        "Summarize this, and what it says about X",  # no question mark: a request
        "What is A, and what is B, and what is C, and what is D?",  # a list of four is no question in parts
        "What is this?\nSome pasted text, and what follows?",  # a message carrying text
    ],
)
def test_a_question_asking_one_thing_has_no_parts(question: str) -> None:
    assert question_parts(question) == ()


def test_an_answer_numbering_the_parts_is_split_into_them() -> None:
    answer = "Here are the answers:\n1. Sungold\n   - 3.1 kg each, the notes say.\n2. 3.1 kg"

    first = "Here are the answers:\n1. Sungold\n   - 3.1 kg each, the notes say.\n"
    assert part_answers(answer, 2) == [first, "2. 3.1 kg"]
    assert part_answers("**1.** no", 2) == []  # one number: not yet, or not, an answer in parts
    assert part_answers("1. Flour\n2. Water\n3. Salt", 2) == []  # a list of another length is no answer in parts
    assert part_answers("1. A\n2. B", 1) == []
    assert part_answers("Sungold, 3.1 kg.", 2) == []


TENS = Passage(
    "[[Entry of 29th Jan, 2025#Topics]]",
    "What I got for my cervical spine: Transcutaneous Electrical Nerve Stimulation (TENS) / Electropathy",
)
BUDGET = Passage(
    "[[Garden Plan 2027#Budget]]",
    "| Annual fee (2027, after the committee vote) | €302 |\n| Seeds and plants | €85 |\n| Total | €432 |",
)


def judged(question: str, passages: list[Passage], answer: str) -> str:
    check = answer_check(question, passages)
    return check.feed(answer) + check.finish()


def test_an_answer_in_numbered_parts_is_judged_part_by_part() -> None:
    # The 1.5B on vaultofknowledge, stop 55: a made-up count, borne out as a whole by the second part's copied words.
    question = "How many TENS sessions did I have for my cervical spine, and who treated me?"
    answer = (
        "1. I had 1 TENS session for my cervical spine.\n"
        "2. The TENS session was treated by Transcutaneous Electrical Nerve Stimulation (TENS) / Electropathy."
    )

    assert judged(question, [TENS], answer) == ""
    # Run on in one paragraph, it is judged whole, as any answer is: the copied words bear it out.
    assert judged(question, [TENS], answer.replace("\n2.", " And")) != ""


def test_a_part_is_read_as_answering_its_own_part_too() -> None:
    # Read with the whole question, "€432" was the allotment fee's figure given wrong (the fee is €302).
    question = "What will the allotment fee be in 2027, and what does the garden plan estimate for the whole year?"

    assert judged(question, [BUDGET], "1. €302\n2. €432") == "1. €302\n2. €432"
    assert judged(question, [BUDGET], "1. €85\n2. €432") == ""  # the seeds' figure given as the fee


CHOICE = Passage(
    "[[Embedding Model Choice#Decision]]",
    "Going with BAAI/bge-small-en-v1.5: nomic-embed-text was 3.6 times slower to index the vault for 0.02 more recall.",
)
CHOICE_QUESTION = "Which embedding model did I choose for the librarian, and why not nomic?"


def test_a_part_that_claims_nothing_does_not_withhold_the_parts_borne_out() -> None:
    # The 0.5B on sample_vault, stop 56: the model chosen right, then the question's own word for the reason.
    answer = "1. BAAI/bge-small-en-v1.5\n2. nomic"

    assert judged(CHOICE_QUESTION, [CHOICE], answer) == answer
    refusing = "1. BAAI/bge-small-en-v1.5\n2. The notes don't say why."
    assert judged(CHOICE_QUESTION, [CHOICE], refusing) == refusing


def test_parts_that_claim_nothing_beyond_the_question_bear_out_nothing() -> None:
    # "nomic" is in the notes, but not as the model chosen: no part says more than the question asked.
    assert judged(CHOICE_QUESTION, [CHOICE], "1. nomic\n2. nomic") == ""
    echoed = "1. Which embedding model did I choose for the librarian?\n2. nomic"
    assert judged(CHOICE_QUESTION, [CHOICE], echoed) == ""
    # A "Yes" is a claim, though it says no word beyond the question; a part the notes do not bear out still withholds.
    assert judged(CHOICE_QUESTION, [CHOICE], "1. BAAI/bge-small-en-v1.5\n2. Yes.") == ""
    assert judged(CHOICE_QUESTION, [CHOICE], "1. BAAI/bge-small-en-v1.5\n2. It needs a GPU.") == ""


def test_a_part_read_alone_keeps_the_subject_the_question_names() -> None:
    # The 0.5B on vaultofknowledge (stop 56): "2. 7 layers", the OSI model's, read with "How many layers does it
    # have?" alone, had been borne out; the question asks about the TinyLlama model.
    tested = Passage("[[AI Models I Tested#TinyLlama 1.1B]]", "- Quantization: Q4_0\n- Layers: 22")
    osi = Passage("[[OSI Model#Layers of OSI Model]]", "The OSI model has 7 layers, from physical to application.")
    question = "Which quantization did the TinyLlama 1.1B model I tested use, and how many layers does it have?"

    assert judged(question, [tested, osi], "1. Q4_0\n2. 7 layers") == ""
    assert judged(question, [tested, osi], "1. Q4_0\n2. 22") == "1. Q4_0\n2. 22"


WINE = Passage(
    "[[Wine Compatibility Layer]]",
    'Wine, formerly WINE, originally stood for "WINE Is Not an Emulator".\n\nAs the original name implies, it is '
    "not an emulator, but rather, a layer that translates the Windows ABI into the host ABI.",
)
WINDOWS_ON_UNIX = Passage(
    "[[Emulators#Windows on UNIX]]",
    "- Wine\n- DXVK (Vulkan based implementation of Direct3D 9 and DirectX 10-11)\n"
    "- VKD3D (Vulkan based implementation of Direct3D 12)",
)
WINE_QUESTION = "Is Wine an emulator, and which Vulkan-based implementations of Direct3D do my notes list?"


def test_a_yes_its_own_parts_notes_deny_is_told_so_whatever_the_whole_question_names() -> None:
    # The 0.5B on vaultofknowledge (stop 57): read with the whole question, whose rare names (Vulkan, Direct3D) are
    # the second part's, the Wine note was no passage about it, and "1. Yes, Wine is an emulator." was shown.
    wrong = "1. Yes, Wine is an emulator.\n2. DXVK and VKD3D"
    right = "1. No, Wine is not an emulator.\n2. DXVK and VKD3D"

    # The part borne out stands (stop 59: the whole answer had been withheld for the wrong one).
    assert judged(WINE_QUESTION, [WINDOWS_ON_UNIX, WINE], wrong) == f"1. {NOT_SO}\n2. DXVK and VKD3D"
    assert judged(WINE_QUESTION, [WINDOWS_ON_UNIX, WINE], right) == right


def test_a_part_saying_without_yes_what_its_notes_deny_is_told_so() -> None:
    # The 0.5B on vaultofknowledge (stop 58): its part repeats the question's words, so it had been read as claiming
    # nothing beside a second part borne out, and was shown.
    second = "2. Vulkan-based implementations of Direct3D include DXVK and VKD3D."
    wrong = f"1. Wine is an emulator.\n{second}"
    right = f"1. Wine is a compatibility layer.\n{second}"

    assert judged(WINE_QUESTION, [WINDOWS_ON_UNIX, WINE], wrong) == f"1. {NOT_SO}\n{second}"
    assert judged(WINE_QUESTION, [WINDOWS_ON_UNIX, WINE], right) == right


@pytest.mark.parametrize(
    ("part", "refers"),
    [
        ("How many layers does it have?", True),
        ("Did it help?", True),
        ("Who treated them?", True),
        ("Was kommt dazu?", False),
        ("Is Wine an emulator?", False),
        ("Which Vulkan-based implementations of Direct3D do my notes list?", False),
    ],
)
def test_a_part_refers_back_to_the_questions_subject_by_a_pronoun(part: str, refers: bool) -> None:
    assert refers_back(part) is refers


# kepano-obsidian's Kevin Kelly and Out of Control notes, as the passages sent give them
BOOKS = Passage(
    "[[Kevin Kelly#Books]]",
    "| Name | Year | Genre |\n| --- | --- | --- |\n| [[Out of Control]] | 1992 | [[Futurism]], [[Nonfiction]] |",
)
BOOK = Passage(
    "[[Out of Control]]",
    "Out of Control\ncategories: [[Books]]\nauthor: [[Kevin Kelly]]\nisbn: 201483408\nyear: 1992\ncreated: 2023-09-12",
)
KELLY_BOOK = "Which book by Kevin Kelly have I noted, and when was it published?"


def test_a_part_giving_another_kind_of_value_is_told_so_and_the_part_borne_out_stands() -> None:
    # The 0.5B on kepano-obsidian (stops 58, 59): the ISBN for the year asked, and the right book withheld with it.
    assert judged(KELLY_BOOK, [BOOKS, BOOK], "1. Out of Control\n2. 201483408") == f"1. Out of Control\n2. {REFUSAL}"
    # A part no sentence bears out beside it: withheld whole, as before.
    assert judged(KELLY_BOOK, [BOOKS, BOOK], "1. The Inevitable\n2. 201483408") == ""


def test_a_part_no_sentence_bears_out_still_withholds_the_whole_answer() -> None:
    # vaultofknowledge's near miss: the count is made up, and the second part's copied words answer no "who".
    question = "How many TENS sessions did I have for my cervical spine, and who treated me?"
    answer = "1. I had 2 TENS sessions for my cervical spine.\n2. The TENS sessions were treated by Electropathy."

    assert judged(question, [TENS], answer) == ""


def test_a_wrong_last_part_holds_the_reply_to_its_end() -> None:
    check = answer_check(KELLY_BOOK, [BOOKS, BOOK])
    shown = check.feed("1. Out of Control, a book on emergence and systems that I noted in 2023.\n2. 2014")
    shown += check.feed("83408, its number.")

    assert shown == ""  # judged at the first sentence's end, its last part still being written
    assert check.finish() == f"1. Out of Control, a book on emergence and systems that I noted in 2023.\n2. {REFUSAL}"
    assert not check.is_withheld


def test_a_part_is_read_after_what_the_other_parts_ask_about_without_their_question_words() -> None:
    parts = question_parts("When did I stop having coffee in the day to sleep better, and did it help?")
    assert with_subject(parts[1], parts) == "did I stop having coffee in the day to sleep better\nDid it help?"
    parts = question_parts("Which model did I pick, and is it still running?")
    assert with_subject(parts[1], parts) == "model did I pick\nIs it still running?"
    parts = question_parts("How long does the loaf rest, and at what temperature?")
    assert with_subject(parts[1], parts) == "does the loaf rest\nAt what temperature?"


def test_a_long_sentence_given_for_two_parts_is_a_repeat() -> None:
    sentence = "The allotment committee requires before building raised beds 0.4 m from the boundary with plot 46;"
    answers = [f"1. {sentence} the rule is 0.5 m. Move them 10 cm before spring.\n", f"2. {sentence.upper()}  the"]
    assert repeated_parts(answers) == set()  # the second's first sentence is not written yet
    answers[1] = f"2. {sentence}\tthe rule is 0.5 m. No fine."
    assert repeated_parts(answers) == {0, 1}
    assert repeated_parts(["1. Alice\n", "2. Alice"]) == set()  # two short answers may be the same rightly
