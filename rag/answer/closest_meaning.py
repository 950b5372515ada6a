"""The sentences of the notes read closest in meaning to a question, for the refusal's "Closest in your notes:".

Small models refuse questions worded unlike the note that answers them, and the word test that picks the closest
sentences (rag/answer/evidence.closest_to) finds none, or one, in such a note: it needs the question's words. Asked
"How did I get the retired Sela theme on a brand-new WordPress.com site?", it quoted the note's link to the API
documentation, where the note's answer is "I just replaced `sequential` with `sela` and visited the URL, and voila,
it built me a new site with that theme". The embedder that searched the notes ranks their sentences by meaning, and
fills the places the word test left. Over this project's recorded answerable questions (45, two vaults), a sentence
shown held the golden set's evidence for 18 by words alone, for 25 filled so (docs/benchmarks.md, stop 42).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rag.answer.attribution import MIN_EVIDENCE, Passage, said_beyond, weight_of
from rag.answer.evidence import EVIDENCE_CHARS
from rag.answer.excerpts import shortened
from rag.answer.external_links import named_hosts, neutralise_links
from rag.answer.quotable import quotable_sentences
from rag.answer.quoted_evidence import Evidence

# The similarity of each text to a question, as the retriever's embedder gives it (a dense cosine).
Similarity = Callable[[str, Sequence[str]], Sequence[float]]
MIN_QUOTED_CHARS = 20  # a shorter line ("- Layers: 22") says too little alone to be ranked by meaning
# The sentences ranked, in passage order (the best hits first): embedding each takes about 10 ms on two cores, and
# the footer follows a refusal already shown (83 ms median over recorded refusals, 716 ms for 70-odd lines uncapped).
MAX_RANKED = 40


def closest_in_meaning(
    question: str, passages: Sequence[Passage], similarity: Similarity, *, besides: Sequence[Evidence], limit: int
) -> list[Evidence]:
    """Return up to `limit` sentences of `passages` nearest `question` in meaning, best first, none of `besides`.

    Only sentences saying something beyond the question's words (as the word test asks of them), as quoted.
    """
    if limit <= 0:
        return []
    hosts = named_hosts(question)
    shown = set(besides)
    candidates: list[Evidence] = []
    for passage in passages:
        if not passage.source:  # a tool result without a note: nothing to link to
            continue
        for text in quotable_sentences(passage):
            quoted = Evidence(shortened(neutralise_links(text, hosts), EVIDENCE_CHARS), passage.source)
            if (
                len(text) >= MIN_QUOTED_CHARS
                and quoted not in shown
                and weight_of(said_beyond(text, question)) >= MIN_EVIDENCE
            ):
                shown.add(quoted)
                candidates.append(quoted)
    candidates = candidates[:MAX_RANKED]
    if not candidates:
        return []
    scores = similarity(question, [item.text for item in candidates])
    ranked = sorted(range(len(candidates)), key=lambda index: -scores[index])  # a stable sort: ties keep note order
    return [candidates[index] for index in ranked[:limit]]
