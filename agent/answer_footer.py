"""What follows an answer: a caution when it shares nothing with the notes, its evidence, and where it came from.

An answer citing nothing (small local models often write none) gets as its sources the passages it read that hold
what it says (rag/answer/attribution.py), or "Notes searched:" when none does; a longer one that shares no word or
number with anything it read is said not to come from the notes. An answer stating a number that nothing it read
holds says which: the answer has already streamed, so the caution is what code can still add. Under it, "Your
notes say:" quotes the sentences of the passages read that hold what the answer says, chosen by code, so the user
can check a small model's answer against the note's own words (rag/answer/evidence.py); an answer no sentence
bears out, and copying none, gets the sentences closest to the question instead. The model's own refusal is
followed by those sentences and the notes searched, as the quote-first refusal lists the closest notes.
"""

from __future__ import annotations

import re
from datetime import date

from agent.source_question import earlier_context, questions_before
from agent.state import AgentState, MessageRecord, turn_start
from agent.turn import TurnScratch
from rag.answer.attribution import Passage, attribute, passages_in, unread_numbers, writes_unread_code
from rag.answer.changed_figures import misread_figures
from rag.answer.choices import chose_otherwise
from rag.answer.citations import SOURCES_BLOCK, note_of, sources_list
from rag.answer.closest_meaning import Similarity, closest_in_meaning
from rag.answer.context import is_refusal
from rag.answer.counted_nouns import counted_elsewhere
from rag.answer.evidence import (
    MAX_EVIDENCE,
    closest_to,
    copied_from,
    evidence_for,
    repeats_sentences,
    sentences_of_rivals,
)
from rag.answer.figure_owners import owned_elsewhere
from rag.answer.list_references import is_list, listed_items, with_item_named
from rag.answer.quoted_evidence import CLOSEST_HEADING, EVIDENCE_HEADING, QUOTES_BLOCK, Evidence, evidence_block
from rag.answer.record_dates import MISDATED_CAUTION, misdated_places, record_date_rivals
from rag.answer.rival_figures import RIVAL_CAUTION, Rival
from rag.answer.row_labels import labelled_for_another
from rag.answer.unread_names import unread_names
from rag.answer.who_answers import given_by_another
from rag.answer.yes_no import denials, sentences_saying_no
from rag.follow_up import in_context

UNSUPPORTED_NOTICE = "\n\n*(Nothing in this answer was found in the notes searched: it may not come from your notes.)*"
UNREAD_CAUTION = "Not in the notes searched:"
SEARCHED_NOTES = 3  # the best hits listed after a refusal, and where its closest sentences are looked for
CODE_NOTICE = "\n\n*(The code in this answer is not in the notes searched: the model wrote it.)*"
# A reply that ends with its own list of sources ("**Sources:**" then "- [[Note]]" lines) needs no second one.
_OWN_SOURCES = re.compile(
    r"(?:^|\n)[*_# \t]*(?:sources|references)[*_ \t]*:?[*_ \t]*\n(?:[ \t]*(?:[-*+]|\d+[.)])[ \t]+[^\n]*(?:\n|$))+\s*$",
    re.IGNORECASE,
)
# What code adds after an answer (the cautions, the evidence, then one list), as it reads in a reply the client
# sends back.
_FOOTER = re.compile(
    r"(?:\n\n\*\((?:Nothing in this answer was found|The code in this answer is not|"
    + re.escape(UNREAD_CAUTION)
    + "|"
    + re.escape(RIVAL_CAUTION)
    + "|"
    + re.escape(MISDATED_CAUTION)
    + r")[^\n]*\)\*)*"
    rf"(?:\n\n{QUOTES_BLOCK})?(?:\n\n{SOURCES_BLOCK})?\s*$"
)


def answer_footer(
    state: AgentState,
    scratch: TurnScratch,
    *,
    has_proposed: bool,
    show_sources: bool = True,
    show_evidence: bool = True,
    today: date | None = None,
    similarity: Similarity | None = None,
) -> str:
    """Return the text to show after the answer: the caution, if due, its evidence, then the sources list.

    "" when there is none of them, or both lists are turned off (SHOW_SOURCES, SHOW_EVIDENCE). An answer citing
    notes lists them; one citing nothing lists the passages holding what it says. The evidence ("Your notes say:",
    rag/answer/evidence) is the sentences of the passages read that hold what the answer says, verbatim; their
    notes join the sources. An answer that shares nothing with the notes gets the caution and no evidence. A turn
    that proposed edits lists only what it cited: the passages retrieved for "add a task ..." are not its sources,
    and its reply is no answer to check.
    """
    cited = scratch.checker.cited
    if not (show_sources or show_evidence):
        return ""
    if has_proposed:
        sources = sources_list(cited) if show_sources else ""
        return f"\n\n{sources}" if sources else ""
    passages, question, reply = turn_passages(state), checked_question(state), scratch.reply_text
    read = attribute(reply, passages, question=question)
    caution = (
        UNSUPPORTED_NOTICE
        if read.is_unsupported and not cited
        else _unread_caution(reply, passages, question, today=today)
    )
    if passages and not read.is_unsupported and writes_unread_code(reply, passages):
        caution += CODE_NOTICE
    if cited and _OWN_SOURCES.search(reply):  # the model ended with its own list of (checked) links: nothing after
        return caution
    evidence = (
        _denials_first(reply, passages, question, evidence_for(reply, passages, question=question))
        if show_evidence and not read.is_unsupported and EVIDENCE_HEADING not in reply
        else []
    )
    shown = evidence_block(evidence)
    if (
        show_evidence
        and not shown
        and not read.is_unsupported
        and not copied_from(reply, passages)
        and not repeats_sentences(reply, passages, question=question)
    ):
        # An answer no sentence of the notes bears out, nor copied from them ("Buy wisely advice"; the sourdough's
        # ingredients for the plum cake whose recipe the notes say is "still to write down"): what they do say.
        # With ANSWER_CHECK such an opening is withheld before it shows (agent/opening_check.py); this is for
        # answers not checked (tools offered, the check off) or whose opening alone the notes bear out.
        shown = _closest_block(state, question, passages, similarity=similarity)
    parts = [caution, f"\n\n{shown}" if shown else ""]
    if show_sources:
        quoted = [item.source for item in evidence]
        if cited:  # a note the answer cites is listed as it cites it, not again by the section quoted or copied
            named = {note_of(anchor) for anchor in cited}
            also = [*quoted, *copied_from(reply, passages)]
            sources = sources_list([*cited, *dict.fromkeys(a for a in also if note_of(a) not in named)])
        else:
            sources = sources_list((), drawn_from=[*read.sources, *quoted], fallback=state.get("allowed", []))
        parts.append(f"\n\n{sources}" if sources else "")
    return "".join(parts)


def refusal_footer(
    refusal: str,
    state: AgentState,
    *,
    show_sources: bool = True,
    show_evidence: bool = True,
    withheld: str = "",
    similarity: Similarity | None = None,
) -> str:
    """Return what follows the model's bare refusal: the closest sentences, then "Notes searched:" ("" for none).

    Small models refuse questions their passages answer when the question is worded unlike the note (the 1.5B
    refused 3 of 20 such on vaultofknowledge with the answer in its first passage): "Closest in your notes:" quotes
    the sentences of the passages read that say most about what was asked (rag.answer.evidence.closest_to), and
    the list lets the user look further. Neither is a source (the eval counts neither as citations), and a
    refusal that names its notes itself (the quote-first path's "closest notes") gets nothing. `withheld`: the
    answer the check withheld; the sentences giving the figures it should have read (rag/answer/rival_figures.py:
    "14 hours in the fridge at 4 °C" where it said "5 hours at 24 °C") come first.
    """
    if "[[" in refusal:
        return ""
    # The best hits, which "Notes searched:" lists: a sentence of a lower one sharing the question's words is
    # chance (asked when coffee was stopped, "'Stop drinking coffee' does not match 'caffeine cut-off'" of a BM25
    # note stood over the sleep note searched first).
    searched = _searched(state)
    closest = ""
    if show_evidence:
        question = latest_question(state["messages"])
        closest = _closest_block(state, question, turn_passages(state), withheld=withheld, similarity=similarity)
    listed = sources_list((), fallback=searched, limit=SEARCHED_NOTES) if show_sources else ""
    return "".join(f"\n\n{part}" for part in (closest, listed) if part)


def _searched(state: AgentState) -> list[str]:
    """Return the best hits' sections, which "Notes searched:" lists and closest sentences are looked for in."""
    return list(dict.fromkeys(state.get("allowed", [])))[:SEARCHED_NOTES]


def _closest_block(
    state: AgentState,
    question: str,
    passages: list[Passage],
    *,
    withheld: str = "",
    similarity: Similarity | None = None,
) -> str:
    """Return "Closest in your notes:" and the sentences of the best hits that say most about `question` ("").

    After a `withheld` answer, the sentences giving the figures it should have read come first; places the word test
    leaves are filled by meaning (`similarity`: rag/answer/closest_meaning.py).
    """
    searched = _searched(state)
    read = [passage for passage in passages if passage.source in searched]
    # The sentences denying its "Yes", the figures it misread, the names it gave others' figures, the rows asked for
    # where it gave another row's figure, then the decision where it named another candidate: these come first.
    rivals = (
        [
            *denials(withheld, passages, question=question),
            *_rivals(withheld, passages, question=question),
            *owned_elsewhere(withheld, passages, question=question),
            *given_by_another(withheld, passages, question=question),
            *labelled_for_another(withheld, passages, question=question),
            *chose_otherwise(withheld, passages, question=question),
        ]
        if withheld
        else []
    )
    first = sentences_of_rivals(rivals)[:MAX_EVIDENCE]
    rest = [item for item in closest_to(question, read) if item not in first]
    chosen = [*first, *rest][:MAX_EVIDENCE]
    if similarity is not None:
        left = MAX_EVIDENCE - len(chosen)
        chosen += closest_in_meaning(question, read, similarity, besides=chosen, limit=left)
    return evidence_block(chosen, heading=CLOSEST_HEADING)


def _denials_first(reply: str, passages: list[Passage], question: str, evidence: list[Evidence]) -> list[Evidence]:
    """Return `evidence` under a "No" to a yes-or-no question with the sentences denying what was asked first."""
    denying = sentences_of_rivals(sentences_saying_no(reply, passages, question=question))
    return [*denying, *(item for item in evidence if item not in denying)][:MAX_EVIDENCE] if denying else evidence


def _rivals(answer: str, passages: list[Passage], *, question: str) -> list[Rival]:
    """Return what the notes give for what `answer` ties its figures and dates to, where it took another."""
    return [
        *misread_figures(answer, passages, question=question),
        *record_date_rivals(answer, passages, question=question),
        *counted_elsewhere(answer, passages, question=question),
    ]


def _unread_caution(reply: str, passages: list[Passage], question: str, *, today: date | None) -> str:
    """Return the cautions on what `reply` states ("" for none).

    The numbers and names no passage read holds; then the figures the notes give for what the reply ties its own
    figures to (rag/answer/rival_figures.py): an answer whose opening the check judged may misread a figure after.
    """
    if not passages or is_refusal(reply):
        return ""
    rivals = _rivals(reply, passages, question=question)
    figures = ", ".join(rival.figure for rival in rivals)
    rival_caution = f"\n\n*({RIVAL_CAUTION} {figures}. Check the figures against the sources.)*" if rivals else ""
    misdated = [] if rivals else misdated_places(reply, passages, question=question)  # no record date to name
    if misdated:
        rival_caution = f"\n\n*({MISDATED_CAUTION} {'; '.join(misdated)}. Check it against the sources.)*"
    numbers = unread_numbers(reply, passages, question=question, today=today)
    names = unread_names(reply, passages, question=question)
    if not numbers and not names:
        return rival_caution
    if numbers and names:
        which = "these"
    elif numbers:
        which = "this number" if len(numbers) == 1 else "these numbers"
    else:
        which = "this name" if len(names) == 1 else "these names"
    unread = f"\n\n*({UNREAD_CAUTION} {', '.join([*numbers, *names])}. Check {which} against the sources.)*"
    return unread + rival_caution


def without_footer(reply: str) -> str:
    """Return an earlier reply without what code added after the answer (cautions, "Sources:", "Notes searched:").

    The model reads earlier turns as the client resends them; a small model shown its answers with their sources
    lists copies the list into its next answer, which then gets a second one (seen with Qwen2.5-Coder 0.5B).
    """
    return _FOOTER.sub("", reply.rstrip()) if reply.strip() else reply


def turn_passages(state: AgentState) -> list[Passage]:
    """Return what the model read this turn: the passages sent with the question, then its tool results."""
    passages = passages_in(state.get("context", ""))
    messages = state["messages"]
    for record in messages[turn_start(messages) :]:
        if record["role"] == "tool":
            text = str(record.get("content", ""))
            passages += passages_in(text) or [Passage("", text)]  # a result without <note> elements: no source
    return passages


def checked_question(state: AgentState) -> str:
    """Return the latest question as an answer to it is read: after the questions a follow-up leans on, if any.

    "The race is on 11 April 2027." shares no word with "When is the race?"; the goal's sentence that says it shares
    "Half Marathon" with the question before.
    """
    return in_context(latest_question(state["messages"]), state.get("follows", ""))


def latest_question(messages: list[MessageRecord]) -> str:
    """Return the latest user message with text ("" when there is none), an item of the list before it named.

    "Summarize the first one" after a list of notes reads "Summarize [[68 Bits of Unsolicited Advice]]"
    (rag/answer/list_references.py): searched, asked, checked and carried out as naming that note.
    """
    texts = _user_texts(messages)
    return with_listed_item(texts[-1], messages) if texts else ""


def with_listed_item(question: str, messages: list[MessageRecord]) -> str:
    """Return `question` (the latest user message of `messages`) with the list item it names by its place as a link."""
    return with_item_named(question, _list_before_latest(messages))


LIST_REPLIES_BACK = 3  # "the second one" may name an item of a list this many replies back


def _list_before_latest(messages: list[MessageRecord]) -> str:
    """Return the latest of the last LIST_REPLIES_BACK replies that lists notes, without its footer ("": none).

    "What tags does the second one have?" after "Summarize the first one" still points into the list before both. A
    reply listing none itself lists the notes under it: "What does the third one say?" after a refusal names the third
    of its "Notes searched:" (over vaultofknowledge, searched as written, it found a passage on slaves, which the
    0.5B copied).
    """
    latest = max((i for i, record in enumerate(messages) if record["role"] == "user"), default=-1)
    replies = [
        str(record.get("content") or "")
        for record in messages[:latest]
        if record["role"] == "assistant" and str(record.get("content") or "").strip()
    ]
    for reply in reversed(replies[-LIST_REPLIES_BACK:]):
        # The reply's own list, else the one code put under it: "Notes searched:" under a refusal, "Sources:".
        for listed in (without_footer(reply), reply):
            if is_list(listed_items(listed)):
                return listed
    return ""


def user_questions_before(messages: list[MessageRecord]) -> list[str]:
    """Return the user's messages before the latest, oldest first (`source_question.questions_before`)."""
    return questions_before(_user_texts(messages))


def earlier_question(messages: list[MessageRecord]) -> str:
    """Return the user's question before the latest message, and those it leans on ("" when there is none)."""
    return earlier_context(_user_texts(messages))


def _user_texts(messages: list[MessageRecord]) -> list[str]:
    return [
        str(record["content"]).strip()
        for record in messages
        if record["role"] == "user" and record.get("content", "").strip()
    ]
