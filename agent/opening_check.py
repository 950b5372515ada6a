"""Holding a plain answer's opening back until code has checked that the notes bear it out.

A small model answers a near miss with what it read nearby or with what it knows: Qwen2.5-Coder 0.5B gave the
sourdough's ingredients for "my mom's plum cake" (a recipe the notes say is still to be written down), a Kubernetes
manifest over a vault that mentions Kubernetes once, and "Kyoto" asked which hotel was booked there. Once streamed,
such an answer can only be followed by a caution. So the opening of the first reply to a question (its first
sentence past HOLD_CHARS, or all of it when shorter; with tools offered, unless the reply turns out a call) is held
until it can be read against the passages: when no sentence of them holds what it says and it repeats none
(`rag.answer.evidence.is_borne_out`), the model is stopped and the service refuses in its own words, with the
sentences closest to the question and the notes searched (agent/answer_footer.refusal_footer). Otherwise the
opening is released and the rest streams as written.

Only the opening is judged: a later sentence the notes do not hold still gets the footer's cautions. On the 0.5B's
and 1.5B's recorded replies to three vaults' golden sets (bench/opening_check.py), the check withheld 17 of 48
answers to near misses and 4 of 202 answers to answerable questions, none of those four holding an expected fact
(docs/benchmarks.md, stop 32). The cost is the time the opening takes to write: the 0.5B's first text came 0 to
0.5 s later on sample_vault (p50).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date
from itertools import zip_longest
from pathlib import PurePosixPath

from agent.answer_footer import latest_question, turn_passages
from agent.day_notes import NamedDays, days_label, holds_day, of_other_days
from agent.state import AgentState, MessageRecord, turn_start
from rag.answer.attribution import Passage, said_beyond
from rag.answer.citations import note_of
from rag.answer.context import REFUSAL, opens_like_refusal
from rag.answer.evidence import MAX_EVIDENCE, is_borne_out, sentences_of_rivals
from rag.answer.follow_up_subjects import EarlierTurn, answers_elsewhere, may_answer_elsewhere
from rag.answer.named_subject import about_named
from rag.answer.next_dates import dates_only_gone_by, reports_on_days_to_come
from rag.answer.note_outlines import OUTLINE_LEAD
from rag.answer.passages import quoted_passages
from rag.answer.question_kind import asks_about_topic
from rag.answer.question_parts import part_answers, question_parts
from rag.answer.quoted_evidence import evidence_block
from rag.answer.topic_passages import asks_about_days_alone, draws_on, draws_on_topic
from rag.answer.yes_no import NOT_SO, answers_yes_or_no_wrongly, denials, opens_with
from rag.follow_up import in_context

HOLD_CHARS = 80  # the opening judged: the first sentence ending past this many characters, or the whole reply
MAX_HOLD_CHARS = 400  # a longer run without a sentence end (a table, a code block) is judged as it stands
# A sentence ends at ".", "!" or "?" followed by a space or line end ("5.0 kg" goes on), or at a line break.
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
EARLY_STEP_CHARS = 12  # an opening is judged early at most once per this many new characters (7 ms a time)
_FENCE_OPENING = re.compile(r"[ \t]*(?:```|~~~)[\w+-]*[ \t]*")  # a code block's first line, "   ```python"
_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")  # "- Salt", "2. Mix", "  * nested"
_WORD_END = re.compile(r"[\s,;.!?)]$")  # a partial word ("wheat fl") is not judged
# Nor a number whose unit or decimals may follow: "Green Zebra gave the most per plant (3." was released early, its
# "1 kg each" unread, where the notes give 3.1 kg to Sungold (rag/answer/figure_owners.py).
_NUMBER_END = re.compile(r"\d[.,]?\s*$")


CHECKED_QUESTION_CHARS = 400  # a longer message carries text of its own to work on: its answer is not checked
EARLIER_IN_CONVERSATION = "(earlier in this conversation)"  # what an earlier message is read as, for the check


def opening_check_for(state: AgentState, *, question: str, today: date | None = None) -> OpeningCheck | None:
    """Return the check for this turn's plain answer to `question` (None: nothing to check against, or no need).

    Read against the passages sent and the conversation so far (an answer may repeat an earlier reply, or what the
    user said); an answer to a request about a topic ("Summarize my notes on X") must draw on a passage about it. A long
    message brings its own text to work on (a paragraph to summarise or translate), which is no note: its answer is
    shown as written.
    """
    passages = turn_passages(state)
    if not passages or len(latest_question(state["messages"])) > CHECKED_QUESTION_CHARS:
        return None
    messages = state["messages"][: turn_start(state["messages"])]
    earlier = [
        Passage(EARLIER_IN_CONVERSATION, str(record.get("content", "")))
        for record in messages
        if record["role"] in ("user", "assistant") and record.get("content")
    ]
    return answer_check(
        question,
        passages,
        earlier,
        turns=earlier_turns(messages),
        follows=state.get("follows", ""),
        days=NamedDays.from_record(state.get("named_days")),
        note=state.get("named_note", ""),
        titled=state.get("titled_note", ""),
        today=today,
    )


def earlier_turns(messages: Sequence[MessageRecord]) -> list[EarlierTurn]:
    """Return the questions of `messages` each with the reply shown for it (the last assistant message after it)."""
    replies: dict[int, EarlierTurn] = {}  # by the index of the question they answer
    asked_at = -1
    for index, record in enumerate(messages):
        content = str(record.get("content") or "")
        if record["role"] == "user":
            asked_at = index
        elif record["role"] == "assistant" and asked_at >= 0 and content:
            # The reply after a tool round replaces what was written before the call.
            replies[asked_at] = EarlierTurn(str(messages[asked_at].get("content") or ""), content)
    return list(replies.values())


NO_DAYS = NamedDays()
DAYS_QUOTED_LEAD = "Here is what your notes of"
NOTE_QUOTED_LEAD = "Here is what"  # "Here is what [[ACME]] says:"
# Words (stems) and numbers beyond the question's an answer about a note as a whole says at least: asked "What is the
# second one about?" of "Buy wisely", the 0.5B answered "Investment.", and "What is the Analysis of Caste note
# about?" with "The Analysis of Caste note about is: advaita-vedanta.org"; the note quoted says more.
NOTE_ANSWER_MIN_TERMS = 3  # "Dune is a book by Frank Herbert." says three (book, frank, herbert)


def answer_check(
    question: str,
    passages: Sequence[Passage],
    earlier: Sequence[Passage] = (),
    *,
    turns: Sequence[EarlierTurn] = (),
    follows: str = "",
    days: NamedDays = NO_DAYS,
    note: str = "",
    titled: str = "",
    today: date | None = None,
) -> OpeningCheck:
    """Return the check of an answer to `question` written from `passages`, after the conversation's `earlier` turns.

    An answer to a request about a topic must also draw on a passage about it (rag/answer/topic_passages.py); one
    repeating an earlier reply (of `turns`) while the question names something new must be borne out by the
    passages about that (rag/answer/follow_up_subjects.py). `follows`: the questions a follow-up leans on, whose words
    the answer is read with: "The race is on 11 April 2027." shares none with "When is the race?", but "Half
    Marathon" with the goal asked of before it. `days`: the days the question names and their notes
    (agent/day_notes.py). An answer to a request about those days alone ("What happened on 2026-11-10?", "Summarize
    last week") must draw on their notes' passages: the 0.5B answered that one with "The notes say that a good
    Friday." from 2026-11-13's note. Not one naming a topic too ("What should I plant today?" may be answered from the
    garden plan). When they are the days meant (not a week day named alone, as in "What did I bring to Friday's
    potluck?"), a passage of a note named by another day bears out nothing: asked "How far did I run on
    2026-10-20?", a day without a note, the 1.5B answered with 2026-11-10's 8.4 km. Unless they are all to come:
    "How does the on-call rotation change from January 2027?" is answered by a meeting note of 2026-11-16. And asked
    what was on them (`is_past`: "What did I cook on 2026-11-15?", a day without a note), an answer must draw on a
    passage of those days: both models answered that one from the meal-prep routine, a note of no day.
    `note`: the link of the one note a request asks about as a whole ("Summarize the ACME note", agent/named_note.py):
    the answer must draw on that note's passages, and in place of a refusal of them, or of an answer withheld, the
    reply quotes them, as for the days. `titled`: the link of the best passage's note when the question is worded as
    its title ("Which AI models did I test?" of "AI Models I Tested"): a refusal of its passages is replaced by them
    quoted, and no more (another note may answer such a question). `today`: an answer to when something next comes
    that dates it only before today is no answer, nor one saying how something went that the notes date after today,
    by its plan's figures (rag/answer/next_dates.py).
    """
    meant = days.meant
    # Days to come are planned in notes of earlier days: only a day gone by has its own note as the record of it.
    recorded = () if days.is_future else meant
    read = [passage for passage in passages if not (recorded and of_other_days(note_of(passage.source), recorded))]
    read += earlier
    is_topic = asks_about_topic(question)
    day_names = {PurePosixPath(path).stem for path in days.paths}
    # Asked what was on some days, the answer must draw on what the notes say of them: their notes, or a passage
    # giving one of the days ("Sat 14 Nov: parkrun"). About the days alone, on their notes.
    past = bool(meant) and days.is_past
    alone = bool(day_names) and asks_about_days_alone(question)
    of_the_days = [
        passage
        for passage in passages
        if note_of(passage.source) in day_names
        or (past and not alone and holds_day(note_of(passage.source), passage.text, meant))
    ]
    read_as = in_context(question, follows)
    # About the days alone, with their notes read, a refusal is no answer: the notes of the days are all it asks of,
    # and the 0.5B refused "What did I do on 2026-11-08?" with only that day's notes, told whose they are. In place
    # of a refusal, or of an answer withheld, the reply quotes them.
    quoted_instead = ""
    if alone:
        lead = f"{DAYS_QUOTED_LEAD} {days_label(days.days)} say:"
        quoted_instead = quoted_passages(lead, each_note_in_turn(of_the_days), question)
    of_the_note = _of_note(note, passages)
    if of_the_note:
        quoted_instead = quoted_passages(f"{NOTE_QUOTED_LEAD} {note} says:", of_the_note, question)
    of_the_title = _of_note(titled, passages)
    if of_the_title and not quoted_instead:
        quoted_instead = quoted_passages(f"{NOTE_QUOTED_LEAD} {titled} says:", of_the_title, question)

    asked_parts = question_parts(question)
    # A part read alone keeps the question's subject where it refers back to it: "How many layers does it have?"
    # asked of the TinyLlama model is not answered by the OSI model's "7 layers" (the 0.5B's "2. 7 layers" was shown,
    # read with its part alone). A part naming its own ("Is Wine an emulator?") is read against every passage: the
    # question's names (Vulkan, Direct3D) were its other part's, and kept out the notes saying Wine is not one.
    part_passages = {part: about_named(read_as, read) if refers_back(part) else read for part in asked_parts}

    def bears_out(text: str, *, is_whole: bool = True) -> bool:
        # An answer in numbered parts is judged part by part: one copied sentence bore out the 1.5B's "1. I had 1 TENS
        # session for my cervical spine. 2. The TENS session was treated by Transcutaneous Electrical Nerve …".
        answers = part_answers(text, len(asked_parts))
        if not answers:
            return bears_out_whole(text, is_whole=is_whole)
        wholes = [*(True for _ in answers[:-1]), is_whole]  # the last part may still be being written
        # A "Yes" its own part's notes deny is wrong however the whole question reads: the 0.5B's "1. Yes, Wine is an
        # emulator." was borne out by the Vulkan passages the whole question's names chose.
        denied = [
            denied_in_part(answer, part, part_passages[part]) for answer, part in zip(answers, asked_parts, strict=True)
        ]
        verdicts = [
            (bears_out_whole(answer, is_whole=whole) or bears_out_whole(answer, is_whole=whole, asked=part))
            and not is_denied
            for answer, part, whole, is_denied in zip(answers, asked_parts, wholes, denied, strict=True)
        ]
        # "1. Wine is an emulator." repeats its part's words, but says what the notes deny: a claim, and a false one.
        empty = [
            whole and not is_denied and claims_nothing(answer, question)
            for answer, whole, is_denied in zip(answers, wholes, denied, strict=True)
        ]
        return parts_borne_out(verdicts, empty)

    def bears_out_whole(text: str, *, is_whole: bool = True, asked: str = read_as) -> bool:
        # `asked`: what the answer is read as answering; a part of the question for an answer to it ("2. €432", the
        # garden plan's whole budget, read with the whole question gave the allotment fee's €302 as the figure asked).
        if quoted_instead and opens_like_refusal(text):
            return False
        if of_the_note and is_whole and len(said_beyond(text, question)) < NOTE_ANSWER_MIN_TERMS:
            return False  # "Investment.", "The Analysis of Caste note about is: advaita-vedanta.org": no account of it
        return (
            is_borne_out(text, read if asked == read_as else part_passages[asked], question=asked, is_whole=is_whole)
            and (not is_topic or draws_on_topic(text, question, passages))
            and (not (past or alone) or draws_on(text, question, of_the_days))
            and (not of_the_note or draws_on(text, question, of_the_note))
            and not (today is not None and dates_only_gone_by(text, question, today))
            and not (today is not None and reports_on_days_to_come(text, question, passages, today))
            and not answers_elsewhere(text, question, passages, turns)
        )

    def bears_out_so_far(text: str) -> bool:
        return not may_answer_elsewhere(text, question, turns) and bears_out(text, is_whole=False)

    def reply_instead(opening: str) -> str:
        # A "Yes" the notes deny is answered by the sentences denying it, before any note quoted whole.
        return denied_reply(opening, read, question=read_as) or quoted_instead or REFUSAL

    return OpeningCheck(bears_out, is_borne_out_so_far=bears_out_so_far, withheld_reply=reply_instead)


def refers_back(part: str) -> bool:
    """Return True when a part of a question names its subject by a pronoun ("How many layers does it have?")."""
    return _PRONOUN.search(part) is not None


def denied_in_part(answer: str, part: str, passages: Sequence[Passage]) -> bool:
    """Return True when `answer` (one part of a numbered answer) says "Yes" or "No" to `part` as its notes deny."""
    stated = _LIST_NUMBER.sub("", answer, count=1)
    return answers_yes_or_no_wrongly(stated, frozenset(said_beyond(stated, part)), passages, question=part)


def parts_borne_out(verdicts: Sequence[bool], claims_none: Sequence[bool]) -> bool:
    """Return True when every part of an answer is borne out, or claims nothing beside one borne out that says more.

    A finished part that claims nothing (the question's words again, or "the notes don't say") is no false answer:
    the 0.5B's "1. BAAI/bge-small-en-v1.5 2. nomic" to "Which model did I choose, and why not nomic?" was withheld
    for its second part, and "I couldn't find this" said over the right first one. Parts that all claim nothing
    ("1. [[Balcony Irrigation#Hardware]] 2. [[Balcony Irrigation#Logic]]") are judged by their verdicts alone.
    """
    if all(verdicts):
        return True
    pairs = list(zip(verdicts, claims_none, strict=True))
    return all(verdict or no_claim for verdict, no_claim in pairs) and any(
        verdict and not no_claim for verdict, no_claim in pairs
    )


def claims_nothing(answer: str, question: str) -> bool:
    """Return True when `answer` (one part of a numbered answer) says nothing the question does not, or refuses.

    A "Yes" or a "No" is a claim, though its words may all be the question's ("2. Yes, it helped.").
    """
    statement = _LIST_NUMBER.sub("", answer, count=1)
    if opens_like_refusal(statement):
        return True
    return opens_with(statement) is None and not said_beyond(statement, question)


_LIST_NUMBER = re.compile(r"^\s*\d+[.)]\s*")
_PRONOUN = re.compile(
    r"\b(?:it|its|they|them|their|this|that|these|those|he|him|his|she|her|es|sie|ihn|ihm|ihr)\b", re.IGNORECASE
)


def denied_reply(opening: str, passages: Sequence[Passage], *, question: str) -> str:
    """Return code's reply in place of a "Yes" the notes deny: NOT_SO, then the sentences denying it ("" for none).

    Asked "Is it an emulator?" after "What is Wine?", the 1.5B's "Yes / Wine is not an emulator." was withheld, and
    "I couldn't find this in your notes." said the notes lack what two of their sentences say.
    """
    denying = sentences_of_rivals(denials(opening, passages, question=question))[:MAX_EVIDENCE]
    return f"{NOT_SO}\n\n{evidence_block(denying)}" if denying else ""


def _of_note(link: str, passages: Sequence[Passage]) -> list[Passage]:
    """Return the passages of the note `link` names (none for ""), its list of sections first, if it has one.

    Quoted in place of a refusal of "Which AI models did I test?", the sections (the models) came third.
    """
    found = [passage for passage in passages if link and note_of(passage.source) == note_of(link)]
    return sorted(found, key=lambda passage: not passage.text.startswith(OUTLINE_LEAD))


def each_note_in_turn(passages: Sequence[Passage]) -> list[Passage]:
    """Return `passages` taking one of each note in turn, the notes in the order they first come.

    Quoted in place of an answer about two days, three passages were all the second day's: its note's passages
    came first. One of each day's note now comes before a second of any.
    """
    by_note: dict[str, list[Passage]] = {}
    for passage in passages:
        by_note.setdefault(note_of(passage.source), []).append(passage)
    rounds = zip_longest(*by_note.values())
    return [passage for round_ in rounds for passage in round_ if passage is not None]


class OpeningCheck:
    """Holds a reply's text until its opening is complete, then releases it or withholds it for good."""

    def __init__(
        self,
        is_borne_out: Callable[[str], bool],
        *,
        is_borne_out_so_far: Callable[[str], bool] | None = None,
        hold_chars: int = HOLD_CHARS,
        withheld_reply: str | Callable[[str], str] = REFUSAL,
    ) -> None:
        self._is_borne_out = is_borne_out
        # What the reply is when the opening is withheld, code's own words: fixed, or made from the opening withheld.
        self._reply_instead = withheld_reply
        # Whether a part of the opening, judged early, is borne out already: then it is released at once.
        self._is_borne_out_so_far = is_borne_out_so_far
        self._hold_chars = hold_chars
        self._checked_at = 0  # the held length last judged early
        self._held = ""  # the reply so far, until the opening is decided
        self._is_decided = False
        self.is_withheld = False  # the opening was judged and the notes do not bear it out
        self.opening = ""  # what was judged, for the log

    @property
    def withheld_reply(self) -> str:
        """Return what the reply is in place of the opening withheld (code's own words)."""
        instead = self._reply_instead
        return instead if isinstance(instead, str) else instead(self.opening)

    def feed(self, text: str) -> str:
        """Return what may be shown of the reply so far ("" while the opening is held or after it was withheld)."""
        if self._is_decided:
            return "" if self.is_withheld else text
        self._held += text
        held = self._held
        if len(held) >= MAX_HOLD_CHARS or (len(held) >= self._hold_chars and _has_opening(held, self._hold_chars)):
            return self._judge(held)
        if self._is_borne_out_early(held):
            return self._decide(held, is_withheld=False)
        return ""

    def _is_borne_out_early(self, held: str) -> bool:
        """Return True when the opening so far, up to a word's end, is borne out by the notes already."""
        if (
            self._is_borne_out_so_far is None
            or len(held) - self._checked_at < EARLY_STEP_CHARS
            or not _WORD_END.search(held)
            or _NUMBER_END.search(held)
        ):
            return False
        self._checked_at = len(held)
        return self._is_borne_out_so_far(_without_open_link(held))

    def finish(self) -> str:
        """Return the rest held when the reply has ended: all of a short reply, once judged ("" when withheld)."""
        if self._is_decided:
            return ""
        return self._judge(self._held)

    def _judge(self, held: str) -> str:
        judged = _without_open_link(held) or held
        return self._decide(held, is_withheld=bool(held.strip()) and not self._is_borne_out(judged))

    def _decide(self, held: str, *, is_withheld: bool) -> str:
        """Settle the opening once: return it to show, or "" when withheld (all that follows is then withheld)."""
        self._is_decided = True
        self._held = ""
        self.opening = held
        self.is_withheld = is_withheld
        return "" if is_withheld else held


def _without_open_link(held: str) -> str:
    """Return `held` without a `[[link` it ends in that has not closed yet: its words are no answer's.

    The 1.5B answered a near miss with "[[Bike Repair Notes#For next time]]" again and again; judged at
    MAX_HOLD_CHARS inside the next copy, "[[Bike Repair" read as the answer's own words.
    """
    start = held.rfind("[[")
    return held[:start] if start >= 0 and "]]" not in held[start:] else held


def _has_opening(held: str, hold_chars: int) -> bool:
    """Return True when `held` has a sentence end past `hold_chars`.

    A line ending in a colon announces what follows ("you can use the following formula:"), and a question (a part
    of the one asked, written over its answer) or a code fence's first line says nothing yet: the opening runs on to
    the end of the next line, the formula or the answer; or, when a list follows, to the end of the list (up to
    MAX_HOLD_CHARS). One item says little of a list: the 0.5B listed the sourdough's ingredients for the plum cake,
    and its first item, "Wheat flour, type 550", is a row of the recipe.
    """
    for end in _SENTENCE_END.finditer(held, hold_chars - 1):
        if end.group() == "?" or (end.group() == "\n" and held[: end.start()].rstrip().endswith((":", "?"))):
            continue  # a question says nothing: the 1.5B wrote each part asked over its answer ("1. What …?")
        if end.group() == "\n" and _FENCE_OPENING.fullmatch(held[held.rfind("\n", 0, end.start()) + 1 : end.start()]):
            continue  # "```" after "the formula:" says nothing yet: the formula is on the line after it
        if _is_in_announced_list(held, end.start()):
            continue
        return True
    return False


def _is_in_announced_list(held: str, at: int) -> bool:
    """Return True when position `at` is in a list item of a list that a line ending in a colon announced."""
    line_start = held.rfind("\n", 0, at) + 1
    # With the two characters from `at` on: the period of "1. " is the marker's, no sentence's end.
    if not _LIST_ITEM.match(held[line_start : at + 2]):
        return False
    lines = held[:line_start].rstrip().split("\n")
    while lines and (_LIST_ITEM.match(lines[-1]) or not lines[-1].strip()):
        lines.pop()
    return bool(lines) and lines[-1].rstrip().endswith(":")
