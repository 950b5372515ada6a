"""A "Yes" the notes deny (rag/answer/yes_no.py), and how a reply to a yes-or-no question reads for the eval."""

from __future__ import annotations

import pytest

from agent.answer_footer import refusal_footer
from agent.state import AgentState
from rag.answer.attribution import Passage
from rag.answer.context import REFUSAL, format_note
from rag.answer.evidence import is_borne_out
from rag.answer.question_kind import asks_only_yes_or_no
from rag.answer.quoted_evidence import CLOSEST_HEADING
from rag.answer.yes_no import (
    affirms_itself,
    answers_yes_or_no_wrongly,
    bare_no_unsupported,
    denials,
    denied_in,
    denies_itself,
    from_silence,
    gives_no_reason_yet,
    opens_with,
    reads_as,
    sentences_saying_no,
)

# vaultofknowledge's Wine Compatibility Layer, as read for "Is it an emulator?" after questions on Wine (stop 53, the
# 1.5B answered with the note's "Yes, an emulator will have to …", written under another question).
WINE = Passage(
    "[[Wine Compatibility Layer]]",
    'Wine, formerly WINE, originally stood for "WINE Is Not an Emulator".\n\n'
    "It is a compatibility layer which allows running Windows applications on other operating systems.\n\n"
    "As the original name implies, it is not an emulator, but rather, a layer that translates the Windows ABI.",
)
DIFFERENCE = Passage(
    "[[Wine Compatibility Layer#Is there any meaningful difference?]]",
    "Yes, an emulator will have to emulate the entire underlying hardware with all it's hardware instructions.\n\n"
    "However, although WSL is native, we don't refer to it as a runtime.",
)
COPIED_YES = "Yes, an emulator will have to emulate the entire underlying hardware with all it's hardware instructions."
DENIAL = "As the original name implies, it is not an emulator, but rather, a layer that translates the Windows ABI."


@pytest.mark.parametrize(
    "question", ["Is it an emulator?", "Is Wine an emulator?", "What is Wine?\nIs it an emulator?"]
)
def test_a_yes_the_sentences_asked_about_deny_is_withheld_even_when_copied(question: str) -> None:
    rivals = denials(COPIED_YES, [WINE, DIFFERENCE], question=question)

    assert {rival.figure for rival in rivals} == {"not an emulator"}
    assert DENIAL in {rival.sentence for rival in rivals}
    assert not is_borne_out(COPIED_YES, [WINE, DIFFERENCE], question=question)


def test_a_question_opening_on_a_yes_or_no_part_has_that_part_judged() -> None:
    # vaultofknowledge's golden item, the 1.5B at stop 54.
    question = "Is Wine an emulator, and which Vulkan-based implementations of Direct3D do my notes list?"
    answer = "Yes, Wine is an emulator. The notes list Vulkan-based implementations of Direct3D: DXVK and Gallium Nine."

    assert {rival.figure for rival in denials(answer, [WINE], question=question)} == {"not an emulator"}
    assert not is_borne_out(answer, [WINE], question=question)
    assert denials("Yes, it is.", [WINE], question="Is it true that Wine is not an emulator, and why?") == []


def test_a_yes_opening_the_first_of_numbered_parts_is_judged_too() -> None:
    # The 0.5B, told the question's parts one by one (stop 55): "1. Yes, Wine is an emulator." had been read as no
    # "Yes" at all, its number first.
    question = "Is Wine an emulator, and which Vulkan-based implementations of Direct3D do my notes list?"
    answer = "1. Yes, Wine is an emulator.\n2. DXVK and VKD3D."

    assert opens_with(answer) == "yes" and opens_with("2) **No**, it is not.") == "no"
    assert opens_with("2 % of the cabbage's weight.") is None  # a number is no list number
    assert {rival.figure for rival in denials(answer, [WINE], question=question)} == {"not an emulator"}
    assert not is_borne_out(answer, [WINE], question=question)


def test_an_answer_saying_without_yes_what_the_notes_deny_is_judged_as_a_yes() -> None:
    # The 0.5B (stop 58): "1. Wine is an emulator." was borne out word by word by the Wine note saying it is not one.
    question = "Is Wine an emulator, and which Vulkan-based implementations of Direct3D do my notes list?"
    answer = "1. Wine is an emulator.\n2. Vulkan-based implementations of Direct3D include DXVK and VKD3D."

    assert {rival.figure for rival in denials(answer, [WINE], question=question)} == {"not an emulator"}
    assert not is_borne_out(answer, [WINE], question=question)
    assert {rival.figure for rival in denials("It is an emulator.", [WINE], question="Is it an emulator?")} == {
        "not an emulator"
    }
    # Neither an answer naming something else nor one denying it is judged so.
    assert denials("Wine is a compatibility layer.", [WINE], question="Is Wine an emulator?") == []
    assert denials("Wine is not an emulator.", [WINE], question="Is Wine an emulator?") == []
    assert denials("It is an emulator.", [WINE], question="What is an emulator?") == []  # asks no yes or no


def test_a_no_and_a_yes_the_notes_do_not_deny_pass() -> None:
    assert is_borne_out(
        "No, Wine is not an emulator; it is a compatibility layer.", [WINE], question="Is Wine an emulator?"
    )
    assert denials("Yes, WSL is native.", [WINE, DIFFERENCE], question="Is WSL native?") == []
    assert is_borne_out("Yes, WSL is native.", [WINE, DIFFERENCE], question="Is WSL native?")


def test_a_negation_denies_only_a_word_of_the_question_close_after_it() -> None:
    knee = Passage(
        "[[Knee Rehab#What helps, what doesn't]]",
        "- Helps: the routine, shorter strides on downhills.\n"
        "- Doesn’t help: foam rolling the IT band (hurt, no change), knee sleeves.",
    )
    far = Passage("[[Notes]]", "Not every tool I tried for the knee was worth keeping, but foam rolling helped.")
    question = "Did foam rolling the IT band help my knee?"

    assert [rival.figure for rival in denials("Yes, it helped.", [knee], question=question)] == ["doesn't help"]
    assert denials("Yes, it helped.", [far], question=question) == []  # "not" denies "every tool", no word asked


def test_only_a_question_asking_yes_or_no_and_an_answer_opening_on_yes_are_judged() -> None:
    assert denials("Yes, an emulator.", [WINE], question="Can you tell me whether it is an emulator?") == []
    assert denials("Yes, it is.", [WINE], question="Was Wine renamed?") == []  # no sentence shares the words
    assert not asks_only_yes_or_no("Did I pick bge or nomic?")
    assert asks_only_yes_or_no("Does Nix work on Windows?")


def test_the_refusal_opens_with_the_sentences_denying_the_yes() -> None:
    question = "Is Wine an emulator?"
    state: AgentState = {
        "messages": [{"role": "user", "content": question}, {"role": "assistant", "content": REFUSAL}],
        "context": format_note(source=WINE.source, path="Wine Compatibility Layer.md", text=WINE.text),
        "allowed": [WINE.source],
    }

    footer = refusal_footer(REFUSAL, state, withheld=COPIED_YES)

    first, second = footer.removeprefix(f"\n\n{CLOSEST_HEADING}\n").split("\n")[:2]
    assert "WINE Is Not an Emulator" in first and "it is not an emulator" in second


# sample_vault's Chili Oil, as the 1.5B read it for "Is 150 °C a good temperature for pouring the chili oil?" told to
# reply yes or no first (stop 54).
CHILI = Passage(
    "[[Chili Oil#Recipe]]",
    "Let the oil settle at **120 °C** (use the thermometer) and pour it over the flakes in two goes.\n\n"
    "At 150 °C the flakes burned and the whole jar was bitter (tried once, October 2026).",
)
CHILI_QUESTION = "Is 150 °C a good temperature for pouring the chili oil?"
CHILI_YES = (
    "Yes\nThe note [[Chili Oil#Recipe]] states that at 150 °C the flakes burned and the whole jar was bitter, "
    "indicating that 150 °C is not a good temperature for pouring the chili oil."
)


def test_a_yes_its_own_words_then_deny_is_withheld_and_not_released_before_they_come() -> None:
    assert denies_itself(CHILI_YES, question=CHILI_QUESTION)
    assert not is_borne_out(CHILI_YES, [CHILI], question=CHILI_QUESTION)
    # Its start, borne out by the note's words, waits for the end of the sentence after "Yes".
    start = CHILI_YES[: CHILI_YES.index(", indicating")]
    assert gives_no_reason_yet(start, question=CHILI_QUESTION)
    assert not is_borne_out(start, [CHILI], question=CHILI_QUESTION, is_whole=False)
    assert not gives_no_reason_yet(f"{start}. More", question=CHILI_QUESTION)


def test_a_yes_to_a_question_that_denies_may_deny_too() -> None:
    question = "Is it true that the oil is not poured at 150 °C?"
    answer = "Yes, it is not poured at 150 °C: the flakes burned [[Chili Oil#Recipe]]."

    assert not denies_itself(answer, question=question) and denials(answer, [CHILI], question=question) == []
    assert not gives_no_reason_yet("Yes, it is", question=question)
    assert not denies_itself("Yes, 120 °C is a good temperature.", question="Is 120 °C a good temperature?")


# vaultofknowledge's How I revived Sela, as read for a question the 1.5B answered "No. The new-site trick cannot bring
# Sela back to a site whose theme I already changed." (stop 54); its sentence saying so shares fewer words than another.
SELA = Passage(
    "[[How I revived Sela#For a new site (my trick)]]",
    "This only works when you are making a new site. If you do change the theme even once, then you cannot get it "
    "back, because legacy themes are not normally available to new sites. Only old sites can use the other methods "
    "to bring back the Sela theme.",
)
SELA_QUESTION = "Can the new-site trick bring Sela back to a site whose theme I already changed?"


def test_a_bare_no_is_shown_only_over_a_sentence_denying_what_was_asked() -> None:
    # Told to reply yes or no first, the 0.5B replied "No." to all of sample_vault's nine.
    assert not bare_no_unsupported("No.", set(), [SELA], question=SELA_QUESTION)
    assert is_borne_out(
        "No. The new-site trick cannot bring Sela back to a site whose theme I already changed.",
        [SELA],
        question=SELA_QUESTION,
    )
    assert bare_no_unsupported("No.", set(), [CHILI], question=CHILI_QUESTION)  # burned, bitter: no "not"
    assert not is_borne_out("No.", [CHILI], question=CHILI_QUESTION)
    assert not bare_no_unsupported("No.", {"burn"}, [CHILI], question=CHILI_QUESTION)  # a reason: the word tests judge


def test_a_no_is_shown_over_the_sentences_denying_what_was_asked_not_those_sharing_most_words() -> None:
    # vaultofknowledge, as the 0.5B's bare "No" was shown over a sentence on free licences (stop 54).
    licences = Passage(
        "[[Free Licenses]]",
        "Free licenses grant rights to everything from media (works, music, images) to software, free of charge.",
    )
    plume = Passage("[[Obsidian Alternatives]]", "- Plume\n\t- Based on Notes\n\t- Image support is not free")
    question = "Does Plume support images for free?"

    assert [rival.sentence for rival in sentences_saying_no("No.", [licences, plume], question=question)] == [
        "\t- Image support is not free"  # shown as `_display` strips it
    ]
    assert sentences_saying_no("Yes.", [licences, plume], question=question) == []


def test_a_reply_resting_on_what_the_notes_do_not_say_is_withheld_and_waits_for_its_reason() -> None:
    # The 1.5B, after "What is Wine?" (stop 54), over the Wine note's "… such as UNIX systems, Haiku, etc.".
    question = "What is Wine?\nDoes it run Windows programs on Haiku?"
    silence = "No. The notes do not mention Haiku or any other operating system that Wine can run Windows programs on."

    assert from_silence(silence, question=question)
    assert not is_borne_out(silence, [WINE], question=question)
    assert gives_no_reason_yet("No. The notes do not", question=question)
    assert not from_silence("No, Wine is not an emulator.", question="Is Wine an emulator?")
    assert from_silence("Yes. The notes don't say whether it runs on Haiku.", question=question)


def test_a_yes_framed_as_stated_in_a_note_says_nothing_more() -> None:
    # "stated" and "Citation:" are the answer's words about the note, not what it claims.
    tested = Passage(
        "[[AI Models I Tested#TinyLlama 1.1B]]",
        "## TinyLlama 1.1B\n\n- Source: Ollama\n- Architecture: Llama\n- Parameters: 1.1 Billion\n"
        "- Quantization: Q4_0\n- Layers: 22\n\nTinyLlama seems to have about 20 tokens per word.",
    )
    question = "Was the TinyLlama model I tested quantised to Q4_0?"

    assert is_borne_out(
        "Yes\nTinyLlama was quantised to Q4_0, as stated in [[AI Models I Tested]].", [tested], question=question
    )


@pytest.mark.parametrize(
    ("answer", "polarity"),
    [
        ("Yes, the Pi stays on.", "yes"),
        ("**No**, it isn't.", "no"),
        ("Ja, das stimmt.", "yes"),
        ("Wine is not an emulator.", "no"),
        ("It doesn’t help.", "no"),
        ("Iotas stores its data in SQLite. It is not free.", "yes"),  # the first sentence answers
        ("", None),
    ],
)
def test_a_reply_reads_as_its_first_word_or_its_first_sentence(answer: str, polarity: str | None) -> None:
    assert reads_as(answer) == polarity


def test_an_opening_is_read_only_from_the_first_word() -> None:
    assert opens_with("Yes.") == "yes"
    assert opens_with("Nothing in the notes.") is None  # "no" only as a whole word
    assert opens_with("Yesterday I …") is None


def test_asked_about_giving_something_up_a_no_to_the_thing_is_no_denial() -> None:
    # sample_vault's sleep note (stop 61): "no coffee after lunch" had denied the 0.5B's "Yes" to whether stopping
    # coffee helped; a sentence denying the giving up itself still denies it.
    sleep = Passage(
        "[[Sleep#What I changed in October]]",
        "- **Caffeine cut-off at 14:00.** After two weeks of no coffee after lunch, time to fall asleep dropped.",
    )
    assert denied_in([sleep], question="did I stop having coffee in the day to sleep better\nDid it help?") == []
    kept_on = Passage("[[Health]]", "I did not stop taking the supplements, the doctor said to go on.")
    assert [rival.figure for rival in denied_in([kept_on], question="Did I stop taking the supplements?")] == [
        "not stop"
    ]
    assert denied_in([sleep], question="Did I drink coffee after lunch?")  # not asked about giving up: denied


def test_a_no_whose_own_words_then_say_what_was_asked_is_withheld() -> None:
    # the 1.5B over sample_vault's sleep note (stop 61), told to reply yes or no first
    question = "Did the caffeine cut-off help me fall asleep faster?"
    said = (
        "No\nThe note [[Sleep#What I changed in October]] states that caffeine cut-off at 14:00. After two weeks of no"
        " coffee after lunch, time to fall asleep dropped from about 35 minutes to 15. This directly indicates that"
        " caffeine cut-off helped me fall asleep faster."
    )
    assert answers_yes_or_no_wrongly(said, set(), [], question=question)
    for meant in ("No, the caffeine cut-off did not help me fall asleep faster.", "No, it didn't help at all."):
        assert not affirms_itself(meant, question=question), meant
    assert not affirms_itself("Yes, the caffeine cut-off helped me fall asleep faster.", question=question)
