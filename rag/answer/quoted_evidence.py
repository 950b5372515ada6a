"""How the sentences of notes an answer rests on are shown: a heading, then `- "sentence" [[Note#Heading]]` lines.

The same lines head a refusal ("Closest in your notes:") and the quote-first answer; the patterns here read them
back from a reply a client sends again (agent/source_question, the eval).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

EVIDENCE_HEADING = "Your notes say:"  # also heads the quote-first answer's verified quotes (agent/quoting)
# One quoted line as `quoted_line` writes it, and the block under the heading, as they read in a reply a client
# sends back (regular-expression sources, for the patterns that cut them from history and read them in the eval).
QUOTED_LINE = r'- (?:"[^\n]*"|\u201c[^\n]*\u201d) (?P<link>!?\[\[[^\[\]\n]+\]\])[ \t]*'
# Under the model's refusal, the sentences of the passages it read that say most about what was asked (`closest_to`).
CLOSEST_HEADING = "Closest in your notes:"


def _quoted_block(*headings: str) -> str:
    """Return the regular-expression source of a block of quoted lines under one of `headings`."""
    return rf"(?:{'|'.join(map(re.escape, headings))})(?:\n{QUOTED_LINE})+"


EVIDENCE_BLOCK = _quoted_block(EVIDENCE_HEADING)
CLOSEST_BLOCK = _quoted_block(CLOSEST_HEADING)
QUOTES_BLOCK = _quoted_block(EVIDENCE_HEADING, CLOSEST_HEADING)  # either one


@dataclass(frozen=True, slots=True)
class Evidence:
    """One sentence of a passage, as shown, and the link of the passage it is copied from."""

    text: str
    source: str


def evidence_block(evidence: Sequence[Evidence], *, heading: str = EVIDENCE_HEADING) -> str:
    """Return the evidence as shown under an answer: the heading, then `- "sentence" [[Note#Heading]]` lines."""
    if not evidence:
        return ""
    return "\n".join([heading, *(quoted_line(item.text, item.source) for item in evidence)])


def quoted_line(text: str, source: str) -> str:
    """Return one sentence of a note as quoted under an answer: `- "sentence" [[Note#Heading]]`.

    A sentence holding straight double quotes ('"Kein Gouda!" sagt Oma.') is set in curly ones, so its own marks
    are not read as doubled ('""Kein Gouda!" sagt Oma."'); the sentence itself stays as the note has it.
    """
    opening, closing = ("\u201c", "\u201d") if '"' in text else ('"', '"')
    return f"- {opening}{text}{closing} {source}"
