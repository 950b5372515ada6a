"""A section the question names by its heading comes first: "How many km did I run in week 45?".

The Running Log's sections are "Week 44 (26 Oct – 1 Nov)", "Week 45 (2 – 8 Nov)", "Week 46 (9 – 15 Nov)": asked
about week 45, the search ranked week 44's chunk first (its "4 runs, 28.6 km" is closest in meaning to "how many km
did I run"), and the note's share of the passages (MAX_CHUNKS_PER_NOTE) went to week 44 and the year so far; the
0.5B refused with week 44 quoted. A numbered heading is a name its writer gave the section, and a number is what
the meaning of a text hardly holds: sibling sections "Week 44", "Week 45" read alike. A question holding such a
heading whole, as words, names that section. Only a heading of two words or more, one a number, before any bracket
or colon counts ("Week 45", "Bake 32", "Phase 2", "2026 results"): a heading of words alone ("Recurring tasks",
"Dataview format") is said in questions about other notes too, and put first it moved obsidian-tasks-demo's notes
of those names down (MRR 0.892 to 0.845). A candidate so named keeps its place among the others so named; all of
them go before the rest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.domain import SearchHit

MIN_HEADING_WORDS = 2
_WORDS = re.compile(r"[^\W_]+")
_ASIDE = re.compile(r"\s*[(\[:—–].*$")  # "Week 45 (2 – 8 Nov)": the name before the bracket, colon or dash


def named_sections_first(question: str, hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Return `hits` with those whose innermost heading `question` names put first, each group in its order."""
    asked = f" {' '.join(_WORDS.findall(question.casefold()))} "
    named = [hit for hit in hits if (name := _heading_name(hit)) and f" {name} " in asked]
    if not named:
        return list(hits)
    return [*named, *(hit for hit in hits if hit not in named)]


def _heading_name(hit: SearchHit) -> str:
    """Return the innermost heading's name as words ("week 45"), "" for none, one of fewer words or no number."""
    if not hit.chunk.heading_path:
        return ""
    words = _WORDS.findall(_ASIDE.sub("", hit.chunk.heading_path[-1]).casefold())
    numbered = any(word.isdigit() for word in words)
    return " ".join(words) if len(words) >= MIN_HEADING_WORDS and numbered else ""
