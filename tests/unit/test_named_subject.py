"""An answer is borne out only by passages about what the question names, where one names it.

The wrong answer is Qwen2.5-Coder 0.5B's, recorded on vaultofknowledge's golden set; the notes are shortened.
"""

from __future__ import annotations

from rag.answer.attribution import Passage
from rag.answer.evidence import closest_to, evidence_for, is_borne_out
from rag.answer.named_subject import about_named, named_elsewhere, rare_names, titles_named

OSI = Passage(
    "[[OSI Model#Layers of OSI Model]]", "It has 7 layers, which are as follows from top to bottom:\n- Application"
)
TINYLLAMA = Passage(
    "[[AI Models I Tested#TinyLlama 1.1B]]", "- Quantization: Q4_0\n- Layers: 22\n- Output Tokens/Second: 2.24"
)
QUESTION = "Which quantization did the TinyLlama 1.1B model I tested use, and how many layers does it have?"


def test_rare_names_are_capitalised_inner_words_no_ordinary_text_uses() -> None:
    assert rare_names(QUESTION) == {"tinyllama"}
    assert rare_names("What is the maximum EIRP India allows in the 5 GHz Wi-Fi band?") == set()  # ordinary, acronym
    assert rare_names("In my Metal Gear notes, who gives Naked Snake the title Big Boss?") == set()  # all ordinary
    # German capitalises every noun: its capitals name nothing.
    assert rare_names("Welchen Käse nimmt Oma für die Käsespätzle?") == set()
    assert rare_names("Wie lange ruht der Teig im Kühlschrank?") == set()
    assert rare_names("Which agent does the Hyprland config of Steph Ango start?") == {"hyprland", "steph", "ango"}
    assert rare_names("Tinyllama layers?") == set()  # the first word opens the sentence


def test_a_sentence_about_another_thing_bears_out_no_answer_about_the_named_one() -> None:
    wrong = "The TinyLlama 1.1B model I tested used FP8 quantization, and it has 7 layers."

    assert is_borne_out(wrong, [OSI], question=QUESTION)  # read alone, the OSI note is all there is
    assert not is_borne_out(wrong, [OSI, TINYLLAMA], question=QUESTION)
    assert evidence_for(wrong, [OSI, TINYLLAMA], question=QUESTION) == []
    right = "It used Q4_0 and has 22 layers."
    assert is_borne_out(right, [OSI, TINYLLAMA], question=QUESTION)
    assert [item.text for item in closest_to(QUESTION, [OSI, TINYLLAMA])] == ["Layers: 22"]


def test_any_name_of_the_question_makes_a_passage_about_it() -> None:
    polkit = Passage("[[Polkit]]", "The default agent is set in the configuration file `/etc/pam.d/polkit-1`.")
    hyprland = Passage("[[My Hyprland config#Autostart]]", "exec-once = /usr/lib/polkit-kde-authentication-agent-1")
    other = Passage("[[Window Managers]]", "A compositor draws the windows.")
    question = "Which Polkit agent does my Hyprland config start at launch, and in which file is the default set?"

    assert about_named(question, [other, polkit, hyprland]) == [polkit, hyprland]
    assert is_borne_out("It is set in `/etc/pam.d/polkit-1`.", [other, polkit, hyprland], question=question)
    # Names no passage holds (a question worded unlike its notes) set none aside.
    assert about_named("How does Zorblax draw windows?", [other, polkit]) == [other, polkit]


# kepano-obsidian's records, as the passages show them (rag/answer/records.py); the 0.5B answered "Kevin Kelly, 1909".
MACHINE_STOPS = Passage("[[The Machine Stops]]", "The Machine Stops\nauthor: [[E. M. Forster]]\nyear: 1909")
OUT_OF_CONTROL = Passage("[[Out of Control]]", "Out of Control\nyear: 1992\nauthor: [[Kevin Kelly]]\nrating: 7")
ADVICE = Passage("[[68 Bits of Unsolicited Advice]]", "68 Bits of Unsolicited Advice\nauthor: [[Kevin Kelly]]")
AUTHOR_QUESTION = "Who wrote The Machine Stops, and in which year was it published?"
BOOKS = [MACHINE_STOPS, OUT_OF_CONTROL, ADVICE]


def test_a_note_title_written_as_a_name_names_the_subject() -> None:
    assert titles_named(AUTHOR_QUESTION, BOOKS) == ["the machine stops"]
    assert about_named(AUTHOR_QUESTION, BOOKS) == [MACHINE_STOPS]
    assert titles_named("Who wrote Out of Control?", BOOKS) == ["out of control"]
    # Not capitalised as a name, or of one word: no title named, every passage kept.
    assert titles_named("Why does my garden feel out of control?", BOOKS) == []
    sleep = Passage("[[Sleep#What I changed]]", "Caffeine cut-off at 14:00.")
    assert titles_named("Did I Sleep better?", [sleep]) == []
    # A passage naming the title in its text is about it too.
    review = Passage("[[Reading log]]", "Finished [[The Machine Stops]] on the train.")
    assert about_named(AUTHOR_QUESTION, [*BOOKS, review]) == [MACHINE_STOPS, review]


def test_a_name_only_notes_about_another_subject_hold_bears_out_nothing() -> None:
    wrong = "Kevin Kelly, 1909"

    assert named_elsewhere(wrong, BOOKS, question=AUTHOR_QUESTION) == ["Kevin Kelly"]
    assert not is_borne_out(wrong, BOOKS, question=AUTHOR_QUESTION)
    right = "E. M. Forster wrote it; it was published in 1909."
    assert named_elsewhere(right, BOOKS, question=AUTHOR_QUESTION) == []
    assert is_borne_out(right, BOOKS, question=AUTHOR_QUESTION)
    # Asked about Kevin Kelly's book, the name is the question's own: nothing to judge.
    assert named_elsewhere("Out of Control, 1992", BOOKS, question="Which book by Kevin Kelly did I note?") == []
