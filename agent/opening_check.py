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
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from itertools import zip_longest
from pathlib import PurePosixPath

from agent.answer_footer import latest_question, turn_passages
from agent.day_notes import NamedDays, days_label, holds_day, of_other_days
from agent.opening_hold import KeptParts, OpeningCheck
from agent.state import AgentState, MessageRecord, turn_start
from rag.answer.asked_values import gives_other_kind
from rag.answer.attribution import Passage, said_beyond
from rag.answer.choices import chose_otherwise
from rag.answer.citations import note_of
from rag.answer.context import REFUSAL, opens_like_refusal
from rag.answer.evidence import MAX_EVIDENCE, is_borne_out, sentences_of_rivals
from rag.answer.follow_up_subjects import EarlierTurn, answers_elsewhere, may_answer_elsewhere
from rag.answer.named_subject import about_named
from rag.answer.next_dates import dates_only_gone_by, reports_on_days_to_come
from rag.answer.note_outlines import OUTLINE_LEAD
from rag.answer.passages import quoted_passages
from rag.answer.question_kind import asks_about_topic, asks_only_yes_or_no, names_only_the_kind
from rag.answer.question_parts import part_answers, question_parts, repeated_parts, with_subject
from rag.answer.quoted_evidence import evidence_block
from rag.answer.records import asked_record, dated_keys, dated_records_asked
from rag.answer.topic_passages import asks_about_days_alone, draws_on, draws_on_topic
from rag.answer.yes_no import NOT_SO, answers_yes_or_no_wrongly, denials, opens_with
from rag.follow_up import in_context

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
    quoted, and no more (another note may answer such a question); so, with no such note, is the properties record of
    a note the question names by its title, a row of which a question word keys ("Steph Ango / twitter: kepano",
    rag/answer/records.asked_record), and, asked when, the records holding every word asked about and a date of their
    own (`dated_records_asked`). `today`: an answer to when something next comes
    that dates it only before today is no answer, nor one saying how something went that the notes date after today,
    by its plan's figures (rag/answer/next_dates.py). Asked which was chosen, an answer naming another candidate than
    the notes' decision is none (rag/answer/choices.py).
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
    # A row of the record of the note the question names, keyed by a word of the question ("twitter: kepano").
    record = asked_record(question, passages) if not quoted_instead else None
    if record is not None:
        quoted_instead = quoted_passages(f"{NOTE_QUOTED_LEAD} {record.source} says:", [record], question)
    # Asked when, the records holding every word asked about and a date of their own ("When was I in Kyoto?").
    dated = dated_records_asked(question, passages) if not quoted_instead else []
    if dated:
        verb = "says" if len(dated) == 1 else "say"
        names = " and ".join(passage.source for passage in dated)
        rows_asked = " ".join([question, *(key for record in dated for key in dated_keys(record))])  # quoted first
        quoted_instead = quoted_passages(f"{NOTE_QUOTED_LEAD} {names} {verb}:", dated, rows_asked)

    asked_parts = question_parts(question)
    # A part read alone keeps the question's subject where it refers back to it: "How many layers does it have?"
    # asked of the TinyLlama model is not answered by the OSI model's "7 layers" (the 0.5B's "2. 7 layers" was shown,
    # read with its part alone). A part naming its own ("Is Wine an emulator?") is read against every passage: the
    # question's names (Vulkan, Direct3D) were its other part's, and kept out the notes saying Wine is not one.
    part_passages = {part: about_named(read_as, read) if refers_back(part) else read for part in asked_parts}
    # A yes-or-no part naming its subject by a pronoun is read with what the other parts ask about: "Did it help?"
    # alone shares no word with the sleep note's "time to fall asleep dropped from about 35 minutes to 15", which
    # bears out the 0.5B's "2. Yes, it helped." to "When did I stop having coffee …, and did it help?".
    with_subjects = {
        part: with_subject(part, asked_parts) for part in asked_parts if refers_back(part) and asks_only_yes_or_no(part)
    }

    def judged_parts(text: str, *, is_whole: bool) -> list[JudgedPart]:
        # An answer in numbered parts is judged part by part: one copied sentence bore out the 1.5B's "1. I had 1 TENS
        # session for my cervical spine. 2. The TENS session was treated by Transcutaneous Electrical Nerve …".
        answers = part_answers(text, len(asked_parts))
        if not answers:
            return []
        wholes = [*(True for _ in answers[:-1]), is_whole]  # the last part may still be being written
        repeated = repeated_parts(answers)  # one copied sentence given for two parts answers neither
        judged = []
        for index, (answer, part, whole) in enumerate(zip(answers, asked_parts, wholes, strict=True)):
            # A "Yes" its own part's notes deny is wrong however the whole question reads: the 0.5B's "1. Yes, Wine
            # is an emulator." was borne out by the Vulkan passages the whole question's names chose.
            is_denied = denied_in_part(answer, part, part_passages[part])
            verdict = (
                (
                    bears_out_whole(answer, is_whole=whole)
                    or bears_out_whole(answer, is_whole=whole, asked=part)
                    or (
                        part in with_subjects
                        and bears_out_whole(
                            answer, is_whole=whole, asked=with_subjects[part], read_from=part_passages[part]
                        )
                    )
                )
                and not is_denied
                and index not in repeated
            )
            # "1. Wine is an emulator." repeats its part's words, but says what the notes deny: a claim, a false one.
            no_claim = whole and not is_denied and claims_nothing(answer, question)
            judged.append(JudgedPart(answer, verdict, no_claim, is_denied))
        return judged

    def bears_out(text: str, *, is_whole: bool = True) -> bool:
        judged = judged_parts(text, is_whole=is_whole)
        if not judged:
            return bears_out_whole(text, is_whole=is_whole)
        return parts_borne_out([part.verdict for part in judged], [part.no_claim for part in judged])

    def parts_kept(text: str) -> KeptParts | None:
        judged = judged_parts(text, is_whole=True)
        if not judged:
            return None
        kinds = [gives_other_kind(part.text, question=asked) for part, asked in zip(judged, asked_parts, strict=True)]
        return kept_parts(judged, kinds)

    def bears_out_whole(
        text: str, *, is_whole: bool = True, asked: str = read_as, read_from: Sequence[Passage] | None = None
    ) -> bool:
        # `asked`: what the answer is read as answering; a part of the question for an answer to it ("2. €432", the
        # garden plan's whole budget, read with the whole question gave the allotment fee's €302 as the figure asked).
        if quoted_instead and opens_like_refusal(text):
            return False
        if of_the_note and is_whole and len(said_beyond(text, question)) < NOTE_ANSWER_MIN_TERMS:
            return False  # "Investment.", "The Analysis of Caste note about is: advaita-vedanta.org": no account of it
        return (
            is_borne_out(text, _read_for(asked, read_from), question=asked, is_whole=is_whole)
            and (not is_topic or draws_on_topic(text, question, passages))
            and (not (past or alone) or draws_on(text, question, of_the_days))
            and (not of_the_note or draws_on(text, question, of_the_note))
            and not (today is not None and dates_only_gone_by(text, question, today))
            and not (today is not None and reports_on_days_to_come(text, question, passages, today))
            and not chose_otherwise(text, passages, question=asked)
            and not names_only_the_kind(text, asked)
            and not answers_elsewhere(text, question, passages, turns)
        )

    def _read_for(asked: str, read_from: Sequence[Passage] | None = None) -> Sequence[Passage]:
        return read_from if read_from is not None else read if asked == read_as else part_passages[asked]

    def bears_out_so_far(text: str) -> bool:
        return not may_answer_elsewhere(text, question, turns) and bears_out(text, is_whole=False)

    def reply_instead(opening: str) -> str:
        # A "Yes" the notes deny is answered by the sentences denying it, before any note quoted whole.
        return denied_reply(opening, read, question=read_as) or quoted_instead or REFUSAL

    return OpeningCheck(
        bears_out,
        is_borne_out_so_far=bears_out_so_far,
        withheld_reply=reply_instead,
        parts_kept=parts_kept,
        parts=len(asked_parts),
        # "No / … This directly indicates that caffeine cut-off helped me fall asleep faster." (the 1.5B, stop 61)
        is_held_whole=asks_only_yes_or_no(question),
    )


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


@dataclass(frozen=True, slots=True)
class JudgedPart:
    """One numbered part of an answer as judged: borne out, claiming nothing, or a "Yes" or "No" its notes deny."""

    text: str
    verdict: bool
    no_claim: bool
    is_denied: bool


def kept_parts(parts: Sequence[JudgedPart], other_kind: Sequence[bool]) -> KeptParts | None:
    """Return the answer with its wrong parts in code's words, when each is wrong in a way that says so (else None).

    A numbered answer was withheld whole for one wrong part: the 0.5B's "1. Out of Control 2. 201483408" (an ISBN for
    the year asked), the 1.5B's "1. Yes, Wine is an emulator. 2. … DXVK …, VKD3D …". A part the notes deny ("Yes"
    where they say no) now reads "Not according to your notes.", one giving another kind of value than its part asks
    (`other_kind`: rag/answer/asked_values.py) "I couldn't find this in your notes.", and the parts borne out are
    shown as written, if one of them claims something. A part no sentence bears out, and no more, still withholds the
    whole answer: on vaultofknowledge's near miss "How many TENS sessions did I have …, and who treated me?" both
    models' second part, a copied "treated by Transcutaneous Electrical Nerve Stimulation" or "I treated me as a
    Ayah.", passes the word test, and only the whole answer's failing says the question is not answered.
    """
    wrong = [not part.verdict and not part.no_claim for part in parts]
    if not any(part.verdict and not part.no_claim for part in parts):
        return None
    told = [part.is_denied or kind for part, kind in zip(parts, other_kind, strict=True)]
    if any(is_wrong and not is_told for is_wrong, is_told in zip(wrong, told, strict=True)):
        return None
    texts = [
        _in_place(part.text, NOT_SO if part.is_denied else REFUSAL) if is_wrong else part.text
        for part, is_wrong in zip(parts, wrong, strict=True)
    ]
    return KeptParts("".join(texts), is_last_kept=not wrong[-1])


_PART_NUMBER = re.compile(r"^[ \t]*\d+[.)][ \t]*", re.MULTILINE)


def _in_place(part: str, words: str) -> str:
    """Return `part` with what it says after its number ("2. ", and any lead-in before it) replaced by `words`."""
    number = _PART_NUMBER.search(part)
    lead = part[: number.end()] if number else ""
    return f"{lead}{words}" + ("\n" if part.endswith("\n") else "")


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
