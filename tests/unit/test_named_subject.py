"""An answer is borne out only by passages about what the question names, where one names it.

The wrong answer is Qwen2.5-Coder 0.5B's, recorded on vaultofknowledge's golden set; the notes are shortened.
"""

from __future__ import annotations

from rag.answer.attribution import Passage
from rag.answer.evidence import closest_to, evidence_for, is_borne_out
from rag.answer.named_subject import about_named, rare_names

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
