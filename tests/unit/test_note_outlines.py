"""The sections of the note a question names by its title's words join its passages (rag/answer/note_outlines.py)."""

from __future__ import annotations

from core.domain import Chunk, SearchHit
from rag.answer.context import build_context
from rag.answer.note_outlines import OUTLINE_INDEX, NoteOutlines, is_about_note

NOTES = {
    # vaultofknowledge's note: the models tested are its sections; a template's heading sits in a code block.
    "AI Models I Tested.md": (
        "---\ntags: [ai]\n---\n| Hardware | Model |\n| --- | --- |\n| CPU | Pentium |\n\n### Template\n"
        "```Markdown\n## TITLE\n- Source: Ollama\n```\n\n## TinyLlama 1.1B\n\n- Size: 637 MB\n\n"
        "### Attempts\n\n- Attempt 1\n\n## Llama-8B Fine-Tuned with DeepSeek-R1\n\n- Size: 4.9 GB\n"
    ),
    "Garlic.md": "# Garlic\n\n## Planting\n\n42 cloves.\n\n## Harvest\n\nIn July.\n",
    "One Part.md": "# One Part\n\n## Only\n\nText.\n",
}


def hit(path: str, heading: str, text: str, index: int = 0) -> SearchHit:
    title = path.removesuffix(".md")
    anchor = f"[[{title}#{heading}]]" if heading else f"[[{title}]]"
    return SearchHit(Chunk(path, title, (heading,) if heading else (), anchor, text, index=index), 0.5)


def outlines(question: str, hits: list[SearchHit]) -> list[SearchHit]:
    return NoteOutlines(NOTES.get).add(hits, question)


def test_the_sections_of_the_note_a_question_is_about_follow_its_last_passage() -> None:
    hits = [
        hit("AI Models I Tested.md", "", "| Hardware | Model |"),
        hit("AI Models I Tested.md", "Template", "- Source: Ollama", index=1),
        hit("Higgs Mechanism.md", "Questionnaire", "Testing the Standard Model.", index=3),
    ]

    found = outlines("Which AI models did I test?", hits)

    assert [item.chunk.index for item in found] == [0, 1, OUTLINE_INDEX, 3]
    outline = found[2].chunk
    assert (outline.anchor, outline.path) == ("[[AI Models I Tested]]", "AI Models I Tested.md")
    # Its highest level of headings with two or more, in order: not the heading inside the code block.
    assert outline.text == "Sections of this note: TinyLlama 1.1B; Llama-8B Fine-Tuned with DeepSeek-R1"
    assert "Sections of this note: TinyLlama 1.1B; Llama" in build_context(found, "Which AI models did I test?")


def test_a_question_about_a_topic_of_the_note_or_one_naming_a_note_with_one_part_gets_no_outline() -> None:
    garlic = [hit("Garlic.md", "Planting", "42 cloves.")]
    assert outlines("How many cloves did I plant?", garlic) == garlic  # the title's words are not the question's
    assert not is_about_note("How do I plant garlic?", "Garlic")  # one word shared names a topic
    assert is_about_note("Which AI models did I test?", "AI Models I Tested")
    one = [hit("One Part.md", "", "Text.")]
    assert outlines("What is in the one part note?", one) == one  # one section: nothing to outline
    assert outlines("Which AI models did I test?", []) == []


def test_an_outline_all_of_whose_sections_are_among_the_passages_is_left_out() -> None:
    hits = [hit("Garlic.md", "Planting", "42 cloves."), hit("Garlic.md", "Harvest", "In July.", index=1)]
    assert outlines("What do my garlic planting and harvest notes say?", hits) == hits
