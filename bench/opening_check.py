"""Which recorded model replies the answer check would withhold, by golden item kind (agent/opening_check.py).

Usage: python -m bench.opening_check --recorded DIR --golden bench/golden/sample_vault.yaml [--verbose]
       python -m bench.opening_check --recorded DIR --golden bench/golden/sample_vault-days.yaml --vault sample_vault
       python -m bench.opening_check --recorded DIR --follow-ups

DIR holds the model calls of an eval run recorded by `bench.recording_proxy` (a plain answer's request carries
its passages and its question). Each reply is replayed through the check as it streamed, piece by piece, against
the passages it was written from; no model and no index are needed, so the same replies can be read again after
a change to the check. Printed per kind of item (answer, refuse): the replies shown, the model's own refusals,
and those withheld, with the opening each was judged on and, for an answer item, the expected facts it held
(a withheld answer holding one is a refusal the check caused). Also how many characters were held before the
first was shown, against the whole reply's length: what the check adds to the first text.

`--vault`: the vault the run was asked over, to read the notes of the days each question names as the service did
(agent/day_notes.py), on the day the prompt says it was ("Today is 2026-12-05") or else the day the recording was saved
(a prompt is told the date only when its question depends on it); without it no question names days.

`--follow-ups`: every recorded plain answer to a message after earlier turns (a run of conversations, such as
bench/questions/sample_vault.follow_ups.yaml asked two turns each), printed with its verdict and with the verdict
it gets when the earlier turns are not read for what the follow-up newly names (rag/answer/follow_up_subjects.py).
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from agent.day_notes import DayNotes, NamedDays
from agent.echo_trim import EchoTrim, PartEchoTrim
from agent.opening_check import EARLIER_IN_CONVERSATION, NO_DAYS, answer_check
from agent.opening_hold import OpeningCheck
from agent.prompts import DAYS_ADVICE, PARTS_LEAD, TOPIC_ADVICE, YES_NO_ADVICE
from agent.tools.reader import VaultReader
from app.eval.golden import GoldenItem, load_golden_set
from app.eval.matching import found_facts
from core.settings import Settings
from rag.answer.attribution import Passage, passages_in
from rag.answer.context import opens_like_refusal
from rag.answer.follow_up_subjects import EarlierTurn
from rag.answer.question_parts import question_parts
from tests.edit_fakes import NoSearch
from tests.recorded_replies import load_recording

_QUESTION = re.compile(r"\n(?:Question|Request): (?P<question>.*)\Z", re.S)
# The line after a request about a topic, about days alone or asking yes or no, or the lines listing a question's
# parts (agent/prompts.py), which the question is not.
_ADVICE = re.compile(
    "\n(?:"
    + "|".join(
        [
            re.escape(TOPIC_ADVICE),
            re.escape(YES_NO_ADVICE),
            re.escape(DAYS_ADVICE).replace(re.escape("{days}"), "[^:]+"),
            *(rf"{re.escape(lead)}(?:\n\d\. [^\n]*)+" for lead in PARTS_LEAD.values()),
        ]
    )
    + ")$"
)
_TODAY = re.compile(r"Today is (\d{4}-\d{2}-\d{2})")
# The days a question names and their notes, on the day it was asked (as agent/day_notes.DayNotes.named).
DaysOf = Callable[[str, date], NamedDays]


@dataclass(frozen=True)
class Replayed:
    """One recorded reply, read through the check."""

    item: GoldenItem
    reply: str
    outcome: str  # "shown", "model refusal", "withheld" or "parts kept" (its wrong parts told so)
    opening: str  # what the check judged (what was held)
    facts: int  # expected facts the reply states (answer items)


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recorded", type=Path, required=True, help="a bench.recording_proxy --out folder")
    parser.add_argument("--golden", type=Path, help="the golden set the run asked")
    parser.add_argument("--follow-ups", action="store_true", help="replay the answers to follow-ups instead")
    parser.add_argument("--verbose", action="store_true", help="print every withheld reply and its opening")
    parser.add_argument("--vault", type=Path, help="the vault the run asked over: read the days questions name")
    return parser.parse_args()


def days_in(vault: Path) -> DaysOf:
    """Return what finds the days a question names and their notes in `vault`, on a given day."""
    settings = Settings(_env_file=None, vault_path=vault, data_dir=Path(tempfile.mkdtemp())).vault

    def named(question: str, today: date) -> NamedDays:
        reader = VaultReader(settings, NoSearch(), clock=lambda: datetime(today.year, today.month, today.day, 12))
        return DayNotes(reader).named(question)

    return named


def asked_on(request: dict[str, Any]) -> date | None:
    """Return the day a recorded call says it is ("Today is 2026-12-05 (Saturday)."), or None."""
    content = request["messages"][-1].get("content")
    found = _TODAY.search(content) if isinstance(content, str) else None
    return date.fromisoformat(found[1]) if found else None


def _recorded_on(path: Path) -> date:
    """Return the day a recording was saved: the day asked, for a call not told the date (rag/answer/time_cues.py)."""
    return date.fromtimestamp(path.stat().st_mtime)


def plain_answer_call(request: dict[str, Any]) -> tuple[str, list[Passage]] | None:
    """Return the question and passages of a plain answer's call (None for a quote, contract or tool call)."""
    if request.get("response_format") or request.get("tools"):
        return None
    content = request["messages"][-1].get("content")
    match = _QUESTION.search(content) if isinstance(content, str) else None
    passages = passages_in(content) if isinstance(content, str) else []
    question = _ADVICE.sub("", match["question"]).strip() if match else ""
    return (question, passages) if question and passages else None


def earlier_turns_of(request: dict[str, Any]) -> list[EarlierTurn]:
    """Return the earlier questions of a recorded call, each with the reply the model read for it."""
    turns: list[EarlierTurn] = []
    messages = request["messages"][1:-1]  # after the system message, before this turn's question
    for asked, replied in zip(messages, messages[1:], strict=False):
        if asked["role"] == "user" and replied["role"] == "assistant" and replied.get("content"):
            turns.append(EarlierTurn(str(asked["content"]), str(replied["content"])))
    return turns


def replay(
    pieces: list[str],
    question: str,
    passages: list[Passage],
    turns: list[EarlierTurn] | None = None,
    *,
    checks_new_subjects: bool = True,
    days: NamedDays = NO_DAYS,
    today: date | None = None,
) -> OpeningCheck:
    """Feed `pieces` to the check as the service does, stopping where it stops the model.

    `turns`: the conversation before the question, whose last question it is read as following (the service does so
    only for a question the search read as a follow-up); `checks_new_subjects` False: without
    rag/answer/follow_up_subjects.py's rule; `days`: the days the question names and their notes; `today`: the day
    it was asked on (the service's clock).
    """
    earlier = [Passage(EARLIER_IN_CONVERSATION, text) for turn in turns or [] for text in (turn.question, turn.reply)]
    follows = turns[-1].question if turns else ""
    check = answer_check(
        question,
        passages,
        earlier,
        turns=(turns or []) if checks_new_subjects else [],
        follows=follows,
        days=days,
        today=today,
    )
    # What the service shows the check: without the question or its parts echoed (agent/echo_trim.py).
    echo, part_echo = EchoTrim(question), PartEchoTrim(question_parts(question))
    for piece in pieces:
        check.feed(part_echo.feed(echo.feed(piece)))
        if check.is_withheld:
            return check
    check.feed(part_echo.feed(echo.finish()) + part_echo.finish())
    check.finish()
    return check


def replayed(folder: Path, items: dict[str, GoldenItem], days_of: DaysOf | None = None) -> list[Replayed]:
    """Return the recorded plain answers to the golden set's questions, each read through the check.

    `days_of`: how the service found the days each question names (`days_in`); None: no question names any.
    """
    found: list[Replayed] = []
    for path in sorted(folder.glob("*.json")):
        recording = load_recording(path)
        call = plain_answer_call(recording.request)
        item = items.get(call[0]) if call else None
        if call is None or item is None or item.kind == "edit":
            continue
        pieces = list(recording.pieces)
        reply = recording.text
        today = asked_on(recording.request) or _recorded_on(path)
        days = days_of(call[0], today) if days_of is not None and today is not None else NO_DAYS
        check = replay(pieces, *call, days=days, today=today)
        outcome = "withheld" if check.is_withheld else "model refusal" if opens_like_refusal(reply) else "shown"
        outcome = "parts kept" if check.kept else outcome
        facts = sum(found_facts(check.kept or reply, item.facts)) if item.facts else 0
        found.append(Replayed(item, check.kept or reply, outcome, check.opening, facts))
    return found


def replay_follow_ups(folder: Path) -> None:
    """Print each recorded answer to a follow-up with its verdict, marking those follow_up_subjects decides."""
    changed = 0
    for path in sorted(folder.glob("*.json")):
        recording = load_recording(path)
        call = plain_answer_call(recording.request)
        turns = earlier_turns_of(recording.request)
        if call is None or not turns:
            continue
        pieces = list(recording.pieces)
        check = replay(pieces, *call, turns)
        is_decided_by_subject = check.is_withheld != replay(pieces, *call, turns, checks_new_subjects=False).is_withheld
        changed += is_decided_by_subject
        verdict = "withheld" if check.is_withheld else "refusal" if opens_like_refusal(recording.text) else "shown"
        mark = "  <- new subject" if is_decided_by_subject else ""
        print(f"- {turns[-1].question!r} -> {call[0]!r}: {verdict}{mark}\n    {recording.text[:240]!r}")
    print(f"verdicts the new-subject rule changes: {changed}")


def main() -> None:
    """Replay the recorded replies and print what the check does with them."""
    args = parse_args()
    if args.follow_ups:
        replay_follow_ups(args.recorded)
        return
    if args.golden is None:
        raise SystemExit("--golden is needed (or --follow-ups)")
    golden = load_golden_set(args.golden)
    items = {" ".join(item.question.split()): item for item in golden.items}
    results = replayed(args.recorded, items, days_in(args.vault) if args.vault else None)
    if not results:
        raise SystemExit(f"no recorded plain answer in {args.recorded} asks a question of {args.golden}")
    counts = Counter((result.item.kind, result.outcome) for result in results)
    for kind in ("answer", "refuse"):
        of_kind = [result for result in results if result.item.kind == kind]
        outcomes = ("shown", "model refusal", "withheld", "parts kept")
        shown = ", ".join(f"{counts[kind, outcome]} {outcome}" for outcome in outcomes)
        print(f"{kind:<7} {len(of_kind):>3} replies: {shown}")
    costly = [r for r in results if r.item.kind == "answer" and r.outcome == "withheld" and r.facts]
    print(f"withheld answers stating an expected fact: {len(costly)}")
    held = [len(result.opening) for result in results if result.outcome != "withheld"]
    whole = [len(result.reply) for result in results if result.outcome != "withheld"]
    if held:
        print(
            f"characters held before the first shown (median): {statistics.median(held):.0f} of a reply's "
            f"{statistics.median(whole):.0f}"
        )
    if args.verbose:
        for result in results:
            if result.outcome == "withheld":
                print(f"- {result.item.id} ({result.item.kind}, {result.facts} facts): {result.opening!r}")
            elif result.outcome == "parts kept":
                print(f"- {result.item.id} ({result.item.kind}, {result.facts} facts), parts kept: {result.reply!r}")


if __name__ == "__main__":
    main()
