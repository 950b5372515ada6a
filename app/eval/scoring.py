"""Scoring one golden item from what the API returned, and the totals over a run.

Retrieval (recall@k, reciprocal rank) is scored on the ranked notes of `POST /v1/search` for the question: the
same retriever and k that build the agent's first prompt, and a ranking the chat reply does not show. Everything
else is scored on the reply exactly as the user got it. Citations are the reply's links outside quoted note text
(`> ` lines, as retrieval-only replies quote passages): a quoted link is the note's own, and may name a note
nobody wrote yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

from app.eval.golden import GoldenItem
from app.eval.matching import (
    WrittenLink,
    before_evidence,
    cited_links,
    found_facts,
    has_phrase,
    is_refusal_reply,
    split_sources,
    tokens,
    without_links,
    without_quotes,
)
from app.eval.shown_proposals import ShownProposal, shown_proposals
from rag.answer.citations import SOURCES_HEADING
from rag.answer.yes_no import reads_as


class LinkCheck(Protocol):
    """Resolves a reply's links against the vault."""

    def note_of(self, link: WrittenLink) -> str | None:
        """Return the vault path the link's note resolves to, or None."""
        ...

    def is_valid(self, link: WrittenLink) -> bool:
        """Return True when the link opens an existing note (and heading or block)."""
        ...


@dataclass(frozen=True, slots=True)
class Observation:
    """What the eval saw of one item through the API."""

    ranked_notes: tuple[str, ...] = ()  # distinct note paths of the search hits, best first (answer items)
    reply: str = ""  # the assistant message as the user got it
    seconds: float = 0.0  # the chat request, end to end
    first_token_seconds: float | None = None  # until the reply's first text, when it was streamed
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    written: tuple[str, ...] = ()  # paths the change log gained for this item's conversation (must stay empty)
    judge: float | None = None  # the judge model's 0-1 score, when one was asked
    fell_back: bool = False  # the LLM failed before answering, so the reply is the service's passages
    error: str | None = None  # a request failed; the item is scored on what was seen (and fails)
    skipped: str | None = None  # why the item was not run; it is left out of every total


@dataclass(frozen=True, slots=True)
class ItemScore:
    """The scores of one item."""

    item: GoldenItem
    observation: Observation
    recall: float | None  # share of expected notes in the top k notes (answer items)
    reciprocal_rank: float | None  # 1 / rank of the first expected note, 0 when none is in the top k
    links_shown: int  # links the reply cites, the sources list included (not those inside quoted note text)
    links_valid: int  # of those, the ones that open an existing note (and heading)
    cited_notes: tuple[str, ...]  # notes the reply cites: its links and its "Sources:" (not "Notes searched:")
    citation_recall: float | None  # share of expected notes the reply cites
    is_refused: bool
    facts_found: tuple[bool, ...]
    # The same in the model's own words: the reply before "Your notes say:", the sentences code quotes under it.
    facts_in_answer: tuple[bool, ...]
    proposals: tuple[ShownProposal, ...]
    edit_matches: bool | None  # a shown proposal has the expected path, operation and added text (edit items)

    @property
    def fact_recall(self) -> float | None:
        """Return the share of the item's facts the reply says (answer items)."""
        return sum(self.facts_found) / len(self.facts_found) if self.facts_found else None

    @property
    def answer_fact_recall(self) -> float | None:
        """Return the share of the item's facts the reply states before the notes' own sentences (answer items)."""
        return sum(self.facts_in_answer) / len(self.facts_in_answer) if self.facts_in_answer else None

    @property
    def passed(self) -> bool | None:
        """Return whether the item passed (None: skipped).

        An answer passes when it is not a refusal, says every fact in its own words (before the notes' sentences
        quoted under it) and cites an expected note; a refuse item when
        the reply is a refusal; an edit when a matching proposal is shown and nothing was written.
        """
        if self.observation.skipped is not None:
            return None
        if self.observation.error is not None:
            return False
        kind = self.item.kind
        if kind == "answer":
            return not self.is_refused and all(self.facts_in_answer) and bool(self.citation_recall)
        if kind == "refuse":
            return self.is_refused
        return bool(self.edit_matches) and not self.observation.written


def score_item(item: GoldenItem, seen: Observation, links: LinkCheck) -> ItemScore:
    """Score one item; a skipped item gets empty scores."""
    reply = "" if seen.skipped else seen.reply
    body, listed = split_sources(reply)
    # Its sources: the reply's own links and the "Sources:" the service matched to its words, not "Notes searched:".
    sources = listed if listed.startswith(SOURCES_HEADING) else ""
    shown = cited_links(without_quotes(reply))
    cited_text = without_quotes(body) + "\n" + sources
    cited = tuple(dict.fromkeys(path for link in cited_links(cited_text) if (path := links.note_of(link))))
    is_answer = item.kind == "answer" and not seen.skipped
    proposals = tuple(shown_proposals(reply))
    return ItemScore(
        item=item,
        observation=seen,
        recall=_share(item.expected, seen.ranked_notes) if is_answer else None,
        reciprocal_rank=_reciprocal_rank(item.expected, seen.ranked_notes) if is_answer else None,
        links_shown=len(shown),
        links_valid=sum(1 for link in shown if links.is_valid(link)),
        cited_notes=cited,
        citation_recall=_share(item.expected, cited) if is_answer else None,
        is_refused=bool(reply) and is_refusal_reply(body),
        facts_found=tuple(_facts_said(body, item, links)) if is_answer else (),
        facts_in_answer=tuple(_facts_said(before_evidence(body), item, links)) if is_answer else (),
        proposals=proposals,
        edit_matches=_edit_matches(item, proposals) if item.kind == "edit" and not seen.skipped else None,
    )


def _facts_said(text: str, item: GoldenItem, links: LinkCheck) -> list[bool]:
    """Return, per fact of `item`, whether `text` says it: in its words, or by a link to the note the fact names.

    A link's name is no fact ("14 hours" is not said by citing [[Sourdough#Cold retard 14 hours]]), except when the
    fact is the title of the note linked: asked which book by Kevin Kelly is noted, "[[Out of Control]]" names it.
    """
    wordings = {" ".join(tokens(wording)) for fact in item.facts for wording in fact}
    titles = [
        title
        for link in cited_links(before_evidence(text))  # a quoted sentence's link is where it is from, not an answer
        if (path := links.note_of(link)) and " ".join(tokens(title := PurePosixPath(path).stem)) in wordings
    ]
    found = found_facts("\n".join([without_links(text), *titles]), item.facts)
    if item.answer_is is not None:  # "Yes, …", "No." or "Wine is not an emulator." (not a refusal's "couldn't")
        found.append(not is_refusal_reply(text) and reads_as(without_links(text)) == item.answer_is)
    return found


def _share(expected: Sequence[str], found: Sequence[str]) -> float:
    return len(set(expected).intersection(found)) / len(expected)


def _reciprocal_rank(expected: Sequence[str], ranked: Sequence[str]) -> float:
    return next((1 / rank for rank, path in enumerate(ranked, start=1) if path in expected), 0.0)


def _edit_matches(item: GoldenItem, proposals: Sequence[ShownProposal]) -> bool:
    wanted = item.edit
    if wanted is None:
        return False
    operations = [tokens(operation) for operation in wanted.operations]
    for proposal in proposals:
        shown_operation = tokens(proposal.operation)
        if proposal.path != wanted.path or not any(shown_operation[: len(op)] == op for op in operations):
            continue
        added = tokens("\n".join(proposal.added))
        if all(has_phrase(added, text) for text in wanted.adds):
            return True
    return False
