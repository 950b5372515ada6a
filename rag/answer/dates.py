"""Dates in an answer or a note, read as one term each, however they are written.

Read as numbers, "2026-12-04" is 2026, 12 and 4: the 0.5B answered "Steph Ango's phone number is 2026-12-04" (today's
date, from its prompt) and the answer check took it as borne out by a row dated "2023-09-12", on its "12". A date is
one term, the same whether a note writes "2023-09-12", "12 September 2023" or "September 12, 2023" (or the German
"12. März 2023"), so an answer in either form meets a note in the other, and only on the whole date.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import date as Day

from rag.notes.moment import iso_day

_MONTHS = {
    **dict.fromkeys(("january", "jan", "januar", "jänner"), 1),
    **dict.fromkeys(("february", "feb", "februar"), 2),
    **dict.fromkeys(("march", "mar", "märz", "maerz"), 3),
    **dict.fromkeys(("april", "apr"), 4),
    **dict.fromkeys(("may", "mai"), 5),
    **dict.fromkeys(("june", "jun", "juni"), 6),
    **dict.fromkeys(("july", "jul", "juli"), 7),
    **dict.fromkeys(("august", "aug"), 8),
    **dict.fromkeys(("september", "sep", "sept"), 9),
    **dict.fromkeys(("october", "oct", "oktober", "okt"), 10),
    **dict.fromkeys(("november", "nov"), 11),
    **dict.fromkeys(("december", "dec", "dezember", "dez"), 12),
}
MONTH_NUMBERS: dict[str, int] = _MONTHS  # every month's names and abbreviations, lower case (English and German)
MONTH_WORDS = frozenset(_MONTHS)
# "may" and "mar" are words too ("you may 3 times"): only capitalised are they months.
AMBIGUOUS_MONTHS = ("may", "mar", "mai")
_MONTH = (
    "(?:(?i:"
    + "|".join(sorted((name for name in _MONTHS if name not in AMBIGUOUS_MONTHS), key=len, reverse=True))
    + ")|May|Mar|Mai)"
)
_YEAR = r"[12]\d{3}"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = re.compile(
    # 2023-09-12, also with a time after it, as a property holding a date and time is shown ("2023-09-12T10:00:00")
    rf"(?<![\w.-])(?P<iso_year>{_YEAR})-(?P<iso_month>\d{{2}})(?:-(?P<iso_day>\d{{2}}))?(?:(?=T\d\d:\d\d)|(?![\w-]))"
    rf"|(?<![\w.:,])(?P<day>{_DAY})\.?\s+(?:of\s+)?(?P<month>{_MONTH})\b\.?(?:,?\s+(?P<year>{_YEAR})(?!\d))?"  # 12 Sep
    rf"|\b(?P<month_first>{_MONTH})\b\.?\s+(?:(?P<day_after>{_DAY})(?![\d.:])(?:,?\s+(?P<year_after>{_YEAR}))?"
    rf"|(?P<month_year>{_YEAR}))(?!\d)"  # September 12, 2023; September 2023
)


@dataclass(frozen=True, slots=True)
class Date:
    """A date as a text gives it: a year and a month, with a day or not; or a month and a day without a year."""

    year: int | None
    month: int
    day: int | None
    text: str = field(default="", compare=False)  # as written

    def is_near(self, today: Day, *, days: int) -> bool:
        """Return True when the date is within `days` of `today` (a month: any day of it; no year: never)."""
        if self.year is None:
            return False
        try:
            start = Day(self.year, self.month, self.day or 1)
        except ValueError:  # "31 February"
            return False
        end = start if self.day else Day(self.year + self.month // 12, self.month % 12 + 1, 1)
        return (start - today).days <= days and (today - end).days <= days

    @property
    def term(self) -> str:
        """Return the date as one term: "2023-09-12", "2023-09", or "09-12" for a day without a year."""
        if self.year is None:
            return f"{self.month:02}-{self.day:02}"
        return f"{self.year}-{self.month:02}" + (f"-{self.day:02}" if self.day else "")

    def parts(self) -> set[str]:
        """Return what the date also says: its year, its month, its day of the year.

        For a note's date, more precise than an answer may be: "in 2023" or "12 September" meets "2023-09-12".
        """
        found = {str(self.year)} if self.year else set()
        if self.year and self.day:
            found |= {f"{self.year}-{self.month:02}", f"{self.month:02}-{self.day:02}"}
        return found


def dates_in(text: str) -> tuple[list[Date], str]:
    """Return the dates `text` gives, and `text` with each replaced by a space (no longer read as its numbers)."""
    found: list[Date] = []

    def taken(match: re.Match[str]) -> str:
        date = _date_of(match)
        if date is None:
            return match[0]
        found.append(date)
        return " "

    return found, _DATE.sub(taken, text)


def _date_of(match: re.Match[str]) -> Date | None:
    """Return the date `match` gives, or None for numbers that are no date ("2023-45", "40 May")."""
    if match["iso_year"]:
        year, month, day = match["iso_year"], int(match["iso_month"]), match["iso_day"]
    elif match["day"]:
        year, month, day = match["year"], _MONTHS[match["month"].casefold()], match["day"]
    else:
        year = match["year_after"] or match["month_year"]
        month, day = _MONTHS[match["month_first"].casefold()], match["day_after"]
    day_number = int(day.rstrip("stndrh")) if day else None
    if not 1 <= month <= 12 or (day_number is not None and not 1 <= day_number <= 31):
        return None
    return Date(int(year) if year else None, month, day_number, match[0])


def day_keys(text: str) -> frozenset[str]:
    """Return the days `text` gives as date terms: "2026-11-15", or "11-15" for a day without a year ("Sun 15 Nov")."""
    return frozenset(found.term for found in dates_in(text)[0] if found.day is not None)


def days_meet(these: AbstractSet[str], those: AbstractSet[str]) -> bool:
    """Return True when a day of `these` is one of `those` (date terms, `day_keys`).

    Two whole dates meet when they are equal; a day without a year meets any of its month and day: "Sun 15 Nov" is
    2026-11-15, and 2025-11-15 is not.
    """

    def month_days(keys: AbstractSet[str]) -> set[str]:
        return {key[-5:] for key in keys}

    def yearless(keys: AbstractSet[str]) -> set[str]:
        return {key for key in keys if len(key) == len("11-15")}

    return bool(these & those or yearless(these) & month_days(those) or yearless(those) & month_days(these))


# A day, week or month in ISO form in a note's title: "2026-11-16", "2026-W46", "2026-11".
_ISO_DAY_IN_TITLE = re.compile(r"(?<!\d)\d{4}-(?:\d{2}-\d{2}(?!\d)|W\d{2}(?!\d)|\d{2}(?!-?\d))")


def days_in_title(title: str) -> frozenset[str]:
    """Return the days, weeks and months a note's title names: in ISO form, or a whole date written out.

    "2026-11-16 1-on-1 Priya", "2026-W46 Weekly Review", and "Entry of 12th Mar, 2025" (vaultofknowledge's daily
    notes, whose name no daily-notes setting gives), "March 12, 2025", "Wednesday, March 12th 2025". A date without
    its year ("Meeting 12 March") is no day's, nor is a day no calendar has ("2026-02-31", a typo in a file name).
    """
    found = {
        found
        for found in _ISO_DAY_IN_TITLE.findall(title)
        if len(found) != len("2026-11-16") or iso_day(found) is not None
    }
    found.update(day.isoformat() for day in whole_days(title))
    return frozenset(found)


def whole_days(text: str) -> list[Day]:
    """Return the days `text` gives whole, with their year, in its order ("31 February 2026" is none)."""
    found = []
    for written in dates_in(text)[0]:
        if written.year is not None and written.day is not None:
            try:
                found.append(Day(written.year, written.month, written.day))
            except ValueError:  # "31st Feb, 2025"
                continue
    return found
