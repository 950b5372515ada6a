"""A label (an outline's bold line) states nothing an answer could rest on (rag/answer/evidence._is_label)."""

from __future__ import annotations

from rag.answer.attribution import Passage
from rag.answer.evidence import is_borne_out


def test_a_label_states_nothing_an_answer_could_rest_one_word_on() -> None:
    # vaultofknowledge, the 0.5B (stop 61): a reason resting on an outline's bold label under a "Display" heading
    outline = Passage(
        "[[Display Concepts#**Protocols**]]",
        "- **Wayland** (Modern display protocol)\n\n    - **Wayland Compositors** …",
    )
    question = "Why is the built-in display switched off in my tiling compositor setup?"
    answer = (
        "The built-in display is switched off in my tiling compositor setup because it is not compatible with Wayland."
    )
    assert not is_borne_out(answer, [outline], question=question)
    # a statement holding the one word still bears it out, as a label holding all the answer says does
    said = Passage("[[Display Concepts#**Protocols**]]", "My compositor setup runs only under Wayland these days.")
    assert is_borne_out(answer, [said], question=question)
    assert is_borne_out("Wayland Compositors.", [outline], question="Which compositors are in my display notes?")
