"""The days a question names: a date, a month, today, tomorrow, a week day, the weekend, a week, a month.

A search ranks notes by their words, and a day is one word among many, or none ("yesterday"): the questions about
tasks by date (rag/answer/due_questions.py) and about what the notes of a day say (agent/day_notes.py) read the
days here, relative to today.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from rag.answer.dates import AMBIGUOUS_MONTHS, MONTH_NUMBERS, MONTH_WORDS, Date, dates_in

# Days named relative to today, with how many days from today they are.
_RELATIVE_DAYS = (
    (re.compile(r"\b(?:today|tonight|heute)\b", re.IGNORECASE), 0),
    (re.compile(r"\b(?:tomorrow|morgen)\b", re.IGNORECASE), 1),
    (re.compile(r"\b(?:yesterday|gestern)\b", re.IGNORECASE), -1),
)
# Week days, Monday first (English and German), and how a question places one: the coming one by default.
_WEEKDAYS = (
    ("monday", "montag"),
    ("tuesday", "dienstag"),
    ("wednesday", "mittwoch"),
    ("thursday", "donnerstag"),
    ("friday", "freitag"),
    ("saturday", "samstag", "sonnabend"),
    ("sunday", "sonntag"),
)
_WEEKDAY = re.compile(
    r"\b(?:(?P<which>next|last|nächsten?|letzten?)\s+)?(?P<day>"
    + "|".join(name for names in _WEEKDAYS for name in names)
    + r")s?\b",
    re.IGNORECASE,
)
_WEEKEND = re.compile(r"\b(?:this\s+|the\s+)?weekend\b|\bwochenende\b", re.IGNORECASE)
_LAST_WEEKEND = re.compile(
    r"\b(?:last|this\s+past|past|previous)\s+weekend\b|\b(?:letzte[sn]?|vorige[sn]?)\s+wochenende\b", re.IGNORECASE
)
_THIS_WEEK = re.compile(r"\b(?:this|current)\s+week\b|\bdiese[rn]?\s+woche\b", re.IGNORECASE)
_NEXT_WEEK = re.compile(r"\bnext\s+week\b|\bnächste[rn]?\s+woche\b", re.IGNORECASE)
_LAST_WEEK = re.compile(
    r"\b(?:last|past|previous)\s+week\b|\bletzte[rn]?\s+woche\b|\bvorige[rn]?\s+woche\b", re.IGNORECASE
)
_SENTENCE_ENDS = ("?", "!", ". ", ";", "\n")  # where a sentence of a question ends
_WEEK_OF = re.compile(r"\bweek\s+(?:of|from|starting)\b|\bwoche\s+(?:vom|ab)\b", re.IGNORECASE)  # "the week of 9 Nov"
# What joins two dates into a span, written between them: "from 9 to 12 November", "2026-11-09 – 2026-11-11",
# "between … and …" (an "and" only after "between": "on 2026-11-09 and on 2026-11-12" asks of two days).
_SPAN_JOIN = re.compile(r"\s*(?:to|until|till|through|bis|-|–|—)\s*", re.IGNORECASE)
_BETWEEN = re.compile(r"\b(?:between|zwischen)\s*(?:the\s+)?$", re.IGNORECASE)
# A span whose month is written once: a day's number before a date starting with its day ("from 9 to 12 November",
# "9.-12. November", "between 9 and 12 Nov"), or after one starting with its month ("November 9-12", "Nov 9 to 12,
# 2026", whose year then follows the second number).
_JOIN = r"\s*(?P<join>to|until|till|through|bis|and|und|-|–|—)\s*(?:the\s+)?"
# Day numbers listed beside a date whose month is written once: "on 9 and 12 November", "9., 10. und 12. November"
# (before a date starting with its day), "November 9 and 12" (after one starting with its month).
_LIST = r"\s*(?:,|and|und|&)\s*(?:the\s+)?"
# A day's number before a date, or after one; not a number of money ("$5 - 12 November") nor a time of day
# ("November 9 - 11 am", "12 - 14 Uhr").
_NUMBER_BEFORE = r"(?<![\d.,:/$€£-])\b(?P<day>\d{1,2})(?:st|nd|rd|th|\.)?"
_NUMBER_AFTER = (
    r"(?P<day>\d{1,2})(?:st|nd|rd|th)?(?![\d.:/]\d)\b(?!\s*(?:am|pm|a\.m\.|p\.m\.|uhr|h|hrs?|hours?|o'clock)\b)"
)
_DAY_BEFORE = re.compile(_NUMBER_BEFORE + _JOIN + r"$", re.IGNORECASE)
_DAY_AFTER = re.compile(r"^" + _JOIN + _NUMBER_AFTER + r"(?:,?\s*(?P<year>(?:19|20)\d{2})\b)?", re.IGNORECASE)
_LISTED_BEFORE = re.compile(_NUMBER_BEFORE + _LIST + r"$", re.IGNORECASE)
_LISTED_AFTER = re.compile(r"^" + _LIST + _NUMBER_AFTER, re.IGNORECASE)
_THIS_MONTH = re.compile(r"\bthis\s+month\b|\bdiese[nm]?\s+monat\b", re.IGNORECASE)
_LAST_MONTH = re.compile(r"\b(?:last|past|previous)\s+month\b|\bletzte[nm]?\s+monat\b", re.IGNORECASE)
# A whole year ("in 2023", "this year", "last year") or a month alone ("in March"), for a period gone by.
_YEAR_NAMED = re.compile(r"\b(?:in|during|from|of|im\s+jahr)\s+(?P<year>(?:19|20)\d{2})\b", re.IGNORECASE)
_THIS_YEAR = re.compile(r"\bthis\s+year\b|\bdieses\s+jahr\b", re.IGNORECASE)
_LAST_YEAR = re.compile(r"\b(?:last|past|previous)\s+year\b|\bletztes\s+jahr\b", re.IGNORECASE)
_MONTH_ALONE = re.compile(r"\b(?:in|during|im)\s+(?P<month>[A-Za-zä]{3,9})\b(?!\s+\d)", re.IGNORECASE)

# Words that name a day or a span of days, lower case: "What did I write on 13 November?" is about no topic of words.
DAY_WORDS = MONTH_WORDS | frozenset(
    (*(name for names in _WEEKDAYS for name in names), *(f"{names[0]}s" for names in _WEEKDAYS),
     "today", "tonight", "tomorrow", "yesterday", "heute", "morgen", "gestern", "week", "weekend", "month", "woche",
     "wochenende", "monat", "last", "next", "past", "previous", "letzte", "letzten", "nächste", "nächsten", "vorige",
     "vorigen")
)  # fmt: skip


def names_a_day(question: str) -> bool:
    """Return True when `question` names a day or a span of days in any of the forms `days_named` reads."""
    return days_named(question, date.today()) is not None


def days_named(question: str, today: date, *, past: bool = False) -> tuple[date, date] | None:
    """Return the first and last day `question` names (inclusive), or None when it names none.

    The first form found counts, in this order: a written date (a month alone is the whole month; "the week of" a
    date is that week, Monday to Sunday; two dates with "from … to", "between … and" the days from one to the other;
    without a year, this year's, or with `past` the last one gone by, as
    "What did I do on 28 December?" asked in January means), today / tomorrow / yesterday, a week day (the coming
    one, today on that day; "next Tuesday" is next week's, "last Friday" the one before today), last weekend, the
    weekend (this week's), this / next / last week (Monday to Sunday), this / last month.
    """
    found, _ = dates_in(question)
    if found:
        days = _days_of_date(found[0], today, past=past)
        if days is not None and days[0] == days[1] and _WEEK_OF.search(question):  # that day's week, Monday first
            monday = days[0] - timedelta(days=days[0].weekday())
            return monday, monday + timedelta(days=6)
        if days is not None and len(found) > 1 and _is_span(question, found[0], found[1]):
            until = _span_end(days[0], found[1])
            if until is not None and until >= days[0]:
                return days[0], until
        if days is not None and (span := _span_of_day_numbers(question, found[0], today, past=past)) is not None:
            return span
        return days
    for words, offset in _RELATIVE_DAYS:
        if words.search(question):
            day = today + timedelta(days=offset)
            return day, day
    monday = today - timedelta(days=today.weekday())
    if (weekday := _WEEKDAY.search(question)) is not None:
        day = _weekday(weekday, today, _week_named(question, weekday.start()))
        return day, day
    if _LAST_WEEKEND.search(question):  # the Saturday and Sunday before this week
        return monday - timedelta(days=2), monday - timedelta(days=1)
    if _WEEKEND.search(question):  # this week's Saturday and Sunday (on a Sunday, the one left)
        return max(today, monday + timedelta(days=5)), monday + timedelta(days=6)
    if _THIS_WEEK.search(question):
        return monday, monday + timedelta(days=6)
    if _NEXT_WEEK.search(question):
        return monday + timedelta(days=7), monday + timedelta(days=13)
    if _LAST_WEEK.search(question):
        return monday - timedelta(days=7), monday - timedelta(days=1)
    if _THIS_MONTH.search(question):
        return _days_of(today.year, today.month, None)
    if _LAST_MONTH.search(question):
        last_month = today.replace(day=1) - timedelta(days=1)
        return _days_of(last_month.year, last_month.month, None)
    return None


# The latest day's entry, named so rather than by its date: "What did I write in my last daily entry?" (over
# vaultofknowledge, refused by the relevance floor: its words are in no note), "Summarize my latest journal entry".
LATEST_ENTRY = re.compile(
    r"\b(?:(?:in|on|from|of)\s+)?(?:my|the)\s+(?:last|latest|most\s+recent|newest)\s+"
    r"(?:daily\s+(?:note|entry|page|log)|journal(?:\s+entry)?|diary(?:\s+entry)?|day\s+note|entry)\b",
    re.IGNORECASE,
)


def latest_entry_as_day(question: str) -> str:
    """Return `question` with "my last daily entry" put as "today" (the checks read it so): one day, not a topic."""
    return LATEST_ENTRY.sub("today", question)


def period_named(question: str, today: date) -> tuple[date, date] | None:
    """Return the days of a period gone by that `question` names: any form `days_named` reads, a year, a month alone.

    "Which notes did I create in 2023?", "… this year", "… in March" (the last March begun: this year's in March).
    """
    if (days := days_named(question, today, past=True)) is not None:
        return days
    if (year := _YEAR_NAMED.search(question)) is not None:
        return date(int(year["year"]), 1, 1), date(int(year["year"]), 12, 31)
    if _THIS_YEAR.search(question):
        return date(today.year, 1, 1), date(today.year, 12, 31)
    if _LAST_YEAR.search(question):
        return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)
    for found in _MONTH_ALONE.finditer(question):
        month = MONTH_NUMBERS.get(found["month"].casefold())
        is_word = found["month"].casefold() in AMBIGUOUS_MONTHS and not found["month"][0].isupper()  # "in may be"
        if month is not None and not is_word:
            return _days_of(today.year if month <= today.month else today.year - 1, month, None)
    return None


def listed_days(question: str, today: date, *, past: bool = False, gone_by: bool = False) -> set[date]:
    """Return the days `question` lists beside the first day or span it names (`days_named`), each one day.

    "What did I do on 9 and 12 November?" asks of two days, not of the 12th nor of the days between; so do "on
    2026-11-09 and 2026-11-12", "November 9 and 12" and "on Monday and Friday" (a week day unqualified is the coming
    one, and with `gone_by` the one gone by too, as `past_weekday` reads the first for who looks up notes of a day).
    """
    first = days_named(question, today, past=past)
    if first is None:
        return set()
    found, _ = dates_in(question)
    if not found:
        return _listed_weekdays(question, today, first[0], gone_by=gone_by) if first[0] == first[1] else set()
    listed: set[date] = set()
    for index, written in enumerate(found):
        if index == 1 and first[0] != first[1] and _is_span(question, found[0], found[1]):
            continue  # the span's end, read with its start
        days = _days_of_date(written, today, past=past)
        if index > 0 and days is not None and days[0] == days[1]:
            listed.add(days[0])
        if written.day is not None and days is not None:
            listed.update(_listed_numbers(question, written, days[0]))
    return listed - {first[0]} if first[0] == first[1] else {day for day in listed if not first[0] <= day <= first[1]}


def _listed_numbers(question: str, written: Date, day: date) -> set[date]:
    """Return the days of the numbers listed beside `written` (read as `day`), in its month and year."""
    start = question.find(written.text)
    if start < 0 or not written.text:
        return set()
    numbers: list[int] = []
    if written.text[0].isdigit():  # "9, 10 and 12 November": numbers before it, nearest first
        before = question[:start]
        while (number := _LISTED_BEFORE.search(before)) is not None:
            numbers.append(int(number["day"]))
            before = before[: number.start()]
    else:  # "November 9 and 12"
        after = question[start + len(written.text) :]
        while (number := _LISTED_AFTER.match(after)) is not None:
            numbers.append(int(number["day"]))
            after = after[number.end() :]
    listed = set()
    for listed_day in numbers:
        try:
            listed.add(day.replace(day=listed_day))
        except ValueError:  # "November 31 and 9"
            continue
    return listed


def _listed_weekdays(question: str, today: date, first: date, *, gone_by: bool) -> set[date]:
    """Return the days of the week days `question` names but the `first` day read (`gone_by`: the last one too).

    The first day may be a week day's ("Monday and Friday") or not ("today and Friday").
    """
    listed: set[date] = set()
    for weekday in _WEEKDAY.finditer(question):
        week = _week_named(question, weekday.start())
        if (coming := _weekday(weekday, today, week)) == first:
            continue  # `days_named`'s, and `past_weekday` reads the one gone by
        listed.add(coming)
        if gone_by and not weekday["which"] and week is None:
            listed.add(_last_before(_weekday_number(weekday), today))
    return listed


def past_weekday(question: str, today: date) -> date | None:
    """Return the week day before today that `question` names without "next" or "last", else None.

    "What did I do on Monday?" asked on a Saturday means the Monday gone by, while `days_named` takes the coming one,
    as a question about what is due does: who looks up notes of a day takes both.
    """
    weekday = _WEEKDAY.search(question)
    if (
        weekday is None
        or weekday["which"]
        or dates_in(question)[0]
        or _week_named(question, weekday.start()) is not None
    ):
        return None
    return _last_before(_weekday_number(weekday), today)


def _week_named(question: str, at: int) -> int | None:
    """Return the week named beside the week day at `at`, in weeks from this one ("Friday last week": -1).

    Only in its sentence: "What did I do on Friday? And what is planned next week?" asks of the Friday gone by.
    """
    start = max((question.rfind(mark, 0, at) for mark in _SENTENCE_ENDS), default=-1) + 1
    ends = [end for mark in _SENTENCE_ENDS if (end := question.find(mark, at)) >= 0]
    sentence = question[start : min(ends, default=len(question))]
    for words, weeks in ((_LAST_WEEK, -1), (_NEXT_WEEK, 1), (_THIS_WEEK, 0)):
        if words.search(sentence):
            return weeks
    return None


def _weekday(match: re.Match[str], today: date, week: int | None) -> date:
    """Return the day a week day names: the coming one (today on that day).

    "next Tuesday" is the Tuesday of next week, "last Friday" the one before today; with a `week` named beside it
    ("Friday last week", "am Freitag letzte Woche", "Monday of next week"), that week's.
    """
    number = _weekday_number(match)
    which = (match["which"] or "").casefold()
    if not which and week is not None:
        return today - timedelta(days=today.weekday()) + timedelta(days=7 * week + number)
    if which.startswith(("last", "letzt")):
        return _last_before(number, today)
    if which.startswith(("next", "nächst")):
        return today - timedelta(days=today.weekday()) + timedelta(days=7 + number)
    return today + timedelta(days=(number - today.weekday()) % 7)


def _is_span(question: str, first: Date, second: Date) -> bool:
    """Return True when `question` joins the two dates it gives into a span ("from … to …", "between … and …")."""
    start = question.find(first.text)
    end = question.find(second.text, start + len(first.text))
    if start < 0 or end < 0:
        return False
    joined = question[start + len(first.text) : end]
    if _SPAN_JOIN.fullmatch(joined):
        return True
    return joined.strip().casefold() in ("and", "und") and bool(_BETWEEN.search(question[:start]))


def _span_of_day_numbers(question: str, found: Date, today: date, *, past: bool) -> tuple[date, date] | None:
    """Return the days from one number to another with the month written once beside them, else None.

    "from 9 to 12 November" and "9-12 Nov" are read as "12 November" alone, "November 9-12" as its 9th alone.
    An "and" joins them only after "between" ("on 9 and 12 November" asks of two days).
    """
    if found.day is None or not found.text:
        return None
    start = question.find(found.text)
    before, after = question[:start], question[start + len(found.text) :]
    if found.text[0].isdigit():  # "12 November": the first number before it
        number = _DAY_BEFORE.search(before)
        if number is None or int(number["day"]) >= found.day:
            return None
        first, last, year = int(number["day"]), found.day, found.year
        before = before[: number.start()]
    else:  # "November 9": the last number after it
        number = _DAY_AFTER.match(after)
        if number is None or int(number["day"]) <= found.day:
            return None
        first, last, year = (
            found.day,
            int(number["day"]),
            found.year or (int(number["year"]) if number["year"] else None),
        )
    if number["join"].casefold() in ("and", "und") and not _BETWEEN.search(before):
        return None
    days = _days_of_date(Date(year, found.month, first), today, past=past)  # the first day says the year
    try:
        return (days[0], days[0].replace(day=last)) if days is not None else None
    except ValueError:  # "November 9-31"
        return None


def _span_end(start: date, end: Date) -> date | None:
    """Return the last day of a span from `start` to the date `end`; without a year, the first such day from `start`.

    Asked on 18 November of "from 9 November to 25 November" (the past), the 9th is this year's: so is the 25th.
    """
    if end.year is not None:
        days = _days_of(end.year, end.month, end.day)
        return days[1] if days is not None else None
    for year in (start.year, start.year + 1):  # "from 28 December to 3 January"
        days = _days_of(year, end.month, end.day)
        if days is not None and days[1] >= start:
            return days[1]
    return None


def _days_of_date(found: Date, today: date, *, past: bool) -> tuple[date, date] | None:
    """Return the days a written date gives; without a year, this year's, or with `past` the last one gone by."""
    year = found.year or today.year
    if found.year is None and past and (found.month, found.day or 1) > (today.month, today.day):
        year -= 1
    return _days_of(year, found.month, found.day)


def _weekday_number(match: re.Match[str]) -> int:
    """Return the number of the week day `match` names, Monday 0."""
    return next(index for index, names in enumerate(_WEEKDAYS) if match["day"].casefold() in names)


def _last_before(number: int, today: date) -> date:
    """Return the last day of week day `number` (Monday 0) before today."""
    return today - timedelta(days=(today.weekday() - number - 1) % 7 + 1)


def _days_of(year: int, month: int, day: int | None) -> tuple[date, date] | None:
    """Return the one day, or the whole month when no day is given (None: no such day, "31 February")."""
    try:
        if day is not None:
            return date(year, month, day), date(year, month, day)
        return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
    except ValueError:
        return None
