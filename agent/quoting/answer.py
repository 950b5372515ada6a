"""What the user is shown of a quote-first answer: the answer from verified quotes with their notes, or a refusal.

The model's answer is kept only when every number and every name it states is in a verified quote (a 0.5B model
reads "4 °C" as "24 °C", and puts the subject of one sentence into another); otherwise the quotes speak for
themselves. No verified quote: the service refuses in its own words and lists the notes it read, so the user can
look there.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.answer.attribution import Passage
from rag.answer.changed_figures import misread_figures
from rag.answer.context import REFUSAL, is_refusal
from rag.answer.near_copy import names_in, unquoted_names
from rag.answer.quoted_evidence import EVIDENCE_HEADING, quoted_line
from rag.answer.quotes import OfferedPassage, VerifiedQuote, closest_sources, unquoted_numbers

QUOTES_HEADING = EVIDENCE_HEADING
NOT_SAID = "The closest notes I read don't say it:"


def quoted_answer(
    answer: str, quotes: Sequence[VerifiedQuote], passages: Sequence[OfferedPassage] = (), *, question: str = ""
) -> str:
    """Return the answer shown: the model's answer when the quotes hold its numbers, then the quotes with links.

    Each quote's line cites its note as [[Note#Heading]] (checked like any citation as it streams). The passages
    offered tell which words are names (`rag.answer.near_copy.names_in`). A number of one quoted sentence put into
    another's words is no answer either, nor one a quote says was changed since (`rag.answer.changed_figures`):
    quoting both chili oil sentences, the 0.5B answered "At 120 °C the flakes burned …", where the note says 150 °C
    burned them and 120 °C is right.
    """
    lines = [quoted_line(quote.text, quote.source) for quote in quotes]
    names = names_in([passage.text for passage in passages])
    quoted = "\n".join([QUOTES_HEADING, *lines])
    if (
        not answer
        or is_refusal(answer)
        or unquoted_numbers(answer, quotes)
        or unquoted_names(answer, [quote.text for quote in quotes], names)
        or misread_figures(answer, [Passage(quote.source, quote.text) for quote in quotes], question=question)
    ):
        return quoted
    return f"{answer}\n\n{quoted}"


def not_said_refusal(passages: Sequence[OfferedPassage]) -> str:
    """Return the refusal of a question no quote answers, listing the closest notes (the refusal alone if none)."""
    closest = closest_sources(passages)
    if not closest:
        return REFUSAL
    return "\n".join([f"{REFUSAL} {NOT_SAID}", *(f"- {source}" for source in closest)])
