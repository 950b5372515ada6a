"""A figure taken from a labelled row where the question names another row (rag/answer/row_labels.py)."""

from __future__ import annotations

from agent.answer_footer import refusal_footer
from agent.state import AgentState
from rag.answer.attribution import Passage
from rag.answer.context import REFUSAL, format_note
from rag.answer.evidence import is_borne_out
from rag.answer.quoted_evidence import CLOSEST_HEADING
from rag.answer.row_labels import labelled_for_another

# vaultofknowledge's AI Models I Tested: a model's record with its Attempt rows left blank
LLAMA = Passage(
    "[[AI Models I Tested#Llama-8B Fine-Tuned with DeepSeek-R1]]",
    "- Source: Ollama\n- Parameters: 8.03 Billion\n- Bits Per Weight: 4.89\n- Size: 4.58 GiB\n- Layers: 32\n"
    "- Attempts\n\t- Attempt 1\n\t\t- Prompt Tokens:\n\t\t- Prompt Tokens/Second:\n\t\t- Output Tokens:\n"
    "\t\t- Output Tokens/Second:",
)
TINYLLAMA = Passage(
    "[[AI Models I Tested#TinyLlama 1.1B]]", "- Layers: 22\n- Attempt 1\n\t- Output Tokens/Second: 2.62"
)
SPEED = "How many output tokens per second did the Llama 8B fine-tuned with DeepSeek-R1 reach on my laptop?"


def test_another_rows_figure_for_the_row_asked_is_withheld() -> None:
    # the 0.5B (stop 59): "4.89", the bits per weight, for a speed the notes leave blank
    rivals = labelled_for_another("4.89", [LLAMA], question=SPEED)
    assert [(rival.sentence, rival.figure) for rival in rivals] == [("- Output Tokens/Second:", "")]
    assert not is_borne_out("4.89", [LLAMA], question=SPEED)
    assert not is_borne_out("It reached 4.89 tokens per second.", [LLAMA], question=SPEED)


def test_a_figure_of_the_row_asked_or_of_a_row_named_otherwise_is_judged_as_before() -> None:
    # the row asked holds it (another model's, the question naming none): not this rule's to judge
    assert labelled_for_another("2.62", [TINYLLAMA], question="How many output tokens per second did I reach?") == []
    # the label holds the question's word: the row asked
    assert labelled_for_another("32", [LLAMA], question="How many layers does the Llama 8B have?") == []
    # no row's label holds two of the question's words: nothing says which row was asked
    assert labelled_for_another("4.58", [LLAMA], question="How big is the Llama 8B download?") == []
    # the number stands in a sentence too, not only in a row
    told = Passage("[[Speed]]", "The Llama 8B reached 4.89 tokens per second on battery.")
    assert labelled_for_another("4.89", [LLAMA, told], question=SPEED) == []
    assert labelled_for_another("No speed is noted.", [LLAMA], question=SPEED) == []  # no number given


def test_the_refusal_opens_with_the_row_asked_for() -> None:
    state: AgentState = {
        "messages": [{"role": "user", "content": SPEED}, {"role": "assistant", "content": REFUSAL}],
        "context": format_note(source=LLAMA.source, path="AI Models I Tested.md", text=LLAMA.text),
        "allowed": [LLAMA.source],
    }

    footer = refusal_footer(REFUSAL, state, withheld="4.89")

    assert footer.startswith(f'\n\n{CLOSEST_HEADING}\n- "Output Tokens/Second:" [[AI Models I Tested#Llama-8B')
