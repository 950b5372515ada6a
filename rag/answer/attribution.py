"""Which passages an answer that cites nothing was drawn from: those holding its distinctive numbers and words.

Small local models often answer without one [[link]] (Qwen2.5-Coder 0.5B through the service cited inline in
none of the golden set's answers), however the rules ask. Their sources list used to be the three best-ranked hits,
which need not be what the answer says: "120 °C, bitter at 150 °C" came from the chili oil note, ranked fourth. So
an answer's sources are the passages that hold what it says and the question did not: its numbers (worth more, as a
number is rarely shared by chance) and its longer words, compared by stem. Only passages sent to the model count,
so a source is still never a link the model could not have read.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import date as Day
from math import ceil

from rag.answer.citations import note_title
from rag.answer.dates import dates_in, whole_days
from rag.answer.excerpts import FILLER, stem
from rag.answer.quote_words import holds_name, names_written
from rag.answer.units import SHORT_UNIT_LETTERS, measure_unit

MIN_EVIDENCE = 2  # one shared word is chance; a number, or two words, is evidence
MIN_SHARE = 0.25  # of what a longer answer says: two everyday words in common with a passage are chance too
NUMBER_WEIGHT = 2
# A number with the word after it, its unit if a short one or one of measure (rag.answer.units): "25 cm" is no
# evidence for a passage that says "25 g", nor "11 days" for "11 inch". A number's groups are one ("625,000,000"),
# and a number written on to letters is none, nor a part of it: "2.75G" had been read as "2", met by any "2G".
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)(?![.,]?\w)(?:\s?(%|°\s?[CF]?|[^\W\d_]+))?")
# A chapter and verse or a page and line ("Ayahs 2:144, 2:149"), no time: its numbers count nothing. The 1.5B's "2 TENS
# sessions" had been borne out by a sentence on the Ayahs revealed "during prayer sessions".
_REFERENCE = re.compile(r"(?<![\w.:])\d+:\d{3,}(?![\w:])")
# Words after a number that are no unit of it ("4 of them", "2 and 3").
NOT_UNITS = frozenset(("and", "the", "to", "in", "on", "at", "of", "for", "or", "by", "is", "was", "a", "an", "it"))
_WORD = re.compile(r"[^\W\d_]{4,}")
# A joined name is one term too: "polkit-kde-agent" is no "polkit" or "agent" ("kde" is too short to count).
_NAME = re.compile(r"(?<![\w-])[^\W_]+(?:[-_][^\W_]+)+(?![\w-])")
_ELEMENT = re.compile(r'<note source="([^"]*)"[^>]*>\n(.*?)\n</note>', re.DOTALL)
WIKILINK = re.compile(r"!?\[\[[^\]\n]*\]\]")  # a wikilink or embed as an answer writes it
# Words an answer uses for itself, not for the note's content.
_ANSWER_WORDS = frozenset(
    ("notes", "note", "according", "mentioned", "mentions", "says", "states", "stated", "based", "following")
    + ("citing", "cited", "citation")  # "as stated in [[…]]", "Citation: [[…]]": told to reply yes or no, then why
)  # "the following books:" frames a list


@dataclass(frozen=True, slots=True)
class Passage:
    """One passage the model read: the link it is cited by, and its text."""

    source: str
    text: str


def passages_in(context: str) -> list[Passage]:
    """Return the passages of a context built by rag.answer.context (its `<note>` elements), in order."""
    return [Passage(html.unescape(source), text) for source, text in _ELEMENT.findall(context)]


UNSUPPORTED_MIN_WORDS = 12  # shorter answers ("Yes.", "Two, in bed 3.") say too little to judge


@dataclass(frozen=True, slots=True)
class Attribution:
    """Where an answer that cites nothing came from, read from the passages the model read."""

    sources: list[str]  # of the passages holding its evidence, most evidence first (ties by rank)
    is_unsupported: bool  # long enough to judge, and sharing no number or word with any passage


def attribute(answer: str, passages: Sequence[Passage], *, question: str = "", limit: int = 3) -> Attribution:
    """Read `answer` against `passages` once: its sources, and whether it shares anything with them at all.

    Evidence is what the answer says beyond the question's own words: its numbers count NUMBER_WEIGHT, its other
    words of four letters or more one each (by stem); a passage with a source needs MIN_EVIDENCE and MIN_SHARE of
    the answer's whole weight to be one. An answer of UNSUPPORTED_MIN_WORDS or more that shares nothing with any
    passage came from the model's own knowledge, not the notes (recorded with Qwen2.5-Coder 0.5B: how to
    configure a Kubernetes ingress controller, over a vault with none), so the reply says so.

    A passage sharing only numbers with the answer is a source only if it holds what the question names, when it
    names something (`_names_of`): asked "What rating did I give Blade Runner?", the 1.5B's "7" had Catan and
    Futurama among its sources, whose records say "rating: 7" too.

    A passage of a note the answer names by its whole title (`names_title`) is a source however little of its text
    the answer shares: the 0.5B's "Futurama, Blade Runner" listed the table rows naming both and neither note, whose
    passages hold the records ("categories: [[Shows]] …") and, cut short, not the title.
    """
    text = WIKILINK.sub(" ", answer)
    said = said_beyond(answer, question)
    needed = max(MIN_EVIDENCE, MIN_SHARE * weight_of(said))
    names = _names_of(question)
    best: dict[str, tuple[int, int]] = {}  # source -> (its evidence, its first rank)
    shares_any = False
    for rank, passage in enumerate(passages):
        shared = said & terms_of(passage.text, bare_numbers=True)
        shares_any = shares_any or bool(shared)
        evidence = weight_of(shared)
        previous = best.get(passage.source)
        about = f"{passage.source} {passage.text}"
        if names and all(term[0].isdigit() for term in shared) and not holds_name(about, names):
            continue  # a figure any record may give ("rating: 7"), in a passage about something else
        if names_title(text, passage.source):
            evidence = max(evidence, ceil(needed))
        if passage.source and evidence >= needed and (previous is None or evidence > previous[0]):
            best[passage.source] = (evidence, rank if previous is None else previous[1])
    sources = sorted(best, key=lambda source: (-best[source][0], best[source][1]))[:limit]
    is_long = len(text.split()) >= UNSUPPORTED_MIN_WORDS
    return Attribution(sources, is_unsupported=is_long and bool(said) and bool(passages) and not shares_any)


def names_title(text: str, source: str) -> bool:
    """Return True when `text` writes the title of the note `source` links to as a whole name.

    A title of one word must be written as the note writes it ("Futurama", not the "jazz" of "jazz standards"); one
    of more words may be in any case ("blade runner"). Titles of fewer than MIN_TITLE_CHARS letters name nothing.
    """
    title = note_title(source).strip()
    if len(title) < MIN_TITLE_CHARS:
        return False
    flags = re.IGNORECASE if " " in title else 0
    return re.search(rf"(?<![\w-]){re.escape(title)}(?![\w-])", text, flags) is not None


MIN_TITLE_CHARS = 4


# Capitalised words naming no thing: days and months ("on Monday").
_NO_NAMES = frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february")
    + ("march", "april", "may", "june", "july", "august", "september", "october", "november", "december")
)


def _names_of(question: str) -> list[frozenset[str]]:
    """Return the names `question` writes ("Blade Runner"; quote_words.names_written), days and months left out."""
    return [name - _NO_NAMES for name in names_written(question) if name - _NO_NAMES]


_LIST_MARKER = re.compile(r"^\s*\d+[.)]\s", re.MULTILINE)
NEAR_TODAY_DAYS = 366  # a date this close to today may be worked out from it ("next Friday"), which no passage holds
# Numbers small enough to be written out, to their digits ("two" in a note is the answer's "2").
_DIGIT_WORDS = {
    word: str(value)
    for value, word in enumerate((
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
    ))
}  # fmt: skip
_DIGIT_WORD = re.compile(r"\b(" + "|".join(_DIGIT_WORDS) + r")\b", re.IGNORECASE)


CODE_LINE_CHARS = 3  # a code line this short ("}", "---") says nothing about where the code came from
# A fenced code block, closed or cut off by the end of the reply.
_FENCED = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<code>.*?)(?:^[ \t]*(?P=fence)[ \t]*$|\Z)", re.M | re.S)


def unread_numbers(
    answer: str, passages: Sequence[Passage], *, question: str = "", today: Day | None = None
) -> list[str]:
    """Return the numbers and dates `answer` states that neither a passage the model read nor the question holds.

    A small model misreads ("24 °C" for "4 °C") and makes numbers up; a number nobody could have read it from is the
    one claim code can check in any answer. Numbers are compared by value ("08" is "8"; "two" in a passage is "2")
    and by unit of measure where both name one ("11 days" is not read from "11 inch", but from "11 more days");
    list numbers are not checked. A date is compared whole, however written (rag.answer.dates), with the passages'
    sources too (a daily note's date is its title); one within NEAR_TODAY_DAYS of `today` may be worked out from it
    ("tomorrow"), and is not checked, nor is any date without `today` or a year: the 0.5B gave Kevin Kelly's book,
    published in 1992 by its note, as "Published: 2014-12-04".
    """
    dates, text = dates_in(_statement(answer))
    sources = (*(passage.text for passage in passages), question)
    # "1,500" in a note is read both as a thousands separator and as a decimal comma: an answer may write either.
    # With the unit of measure after each ("" for none): "11 days" is not read from "11 inch" (rag/answer/units.py).
    read = {(value, m.unit) for source in sources for m in _measures_in(source) for value in _readings(m.number)}
    read |= {(str(days), "d") for passage in passages for days in _spans(passage.text)}
    read_values = {value for value, _unit in read}
    unread = [
        f"{m.number} {m.word}" if m.unit else m.number
        for m in _measures_in(text)
        if not _readings(m.number) & read_values
        or (m.unit and not {(value, unit) for value in _readings(m.number) for unit in (m.unit, "")} & read)
    ]
    if today is not None:
        read_dates = {
            term
            for source in (*sources, *_sources(passages))
            for date in dates_in(source)[0]
            for term in (date.term, *date.parts())
        }
        unread += [
            date.text
            for date in dates
            if date.year is not None and date.term not in read_dates and not date.is_near(today, days=NEAR_TODAY_DAYS)
        ]
    return list(dict.fromkeys(unread))


SPAN_DATES = 12  # dates of one passage whose spans are worked out (a daily log may hold hundreds)


def _spans(text: str) -> set[int]:
    """Return the days between two whole dates of `text`, counted both ways ("2023-09-12" to "2023-09-30": 18, 19).

    Asked "How long was my Japan trip?", the 1.5B's "18 days", worked out from the trip's start and end, had been
    cautioned as a number no note holds.
    """
    days = sorted(set(whole_days(text)))[:SPAN_DATES]
    spans = {(later - earlier).days for index, earlier in enumerate(days) for later in days[index + 1 :]}
    return spans | {span + 1 for span in spans}


def _sources(passages: Sequence[Passage]) -> list[str]:
    return [passage.source for passage in passages if passage.source]


def writes_unread_code(answer: str, passages: Sequence[Passage]) -> bool:
    """Return True when `answer` holds a code block most of whose lines no passage the model read holds.

    Asked how to configure a Kubernetes ingress, which no note covers, the 0.5B wrote an Ingress manifest of its own
    under a sentence sharing words with the notes: no caution said it came from nowhere in them. Lines of three
    characters or fewer ("}", "---") say nothing either way; a block of one line may be a command a note names.
    """
    read = [" ".join(passage.text.split()) for passage in passages]
    for block in _FENCED.finditer(answer):
        lines = [" ".join(line.split()) for line in block["code"].splitlines() if len(line.strip()) > CODE_LINE_CHARS]
        unread = sum(not any(line in text for text in read) for line in lines)
        if len(lines) >= 2 and unread * 2 > len(lines):
            return True
    return False


@dataclass(frozen=True, slots=True)
class _Measure:
    """A number as a text writes it, with the word after it and the unit of measure that word names ("" for none)."""

    number: str
    word: str
    unit: str


def _measures_in(text: str) -> list[_Measure]:
    """Return the numbers of `text` ("two" read as "2"), each with its unit of measure, if one follows."""
    spelled = _DIGIT_WORD.sub(lambda match: _DIGIT_WORDS[match.group(1).casefold()], text)
    return [_Measure(number, word, measure_unit(word) or "") for number, word in _NUMBER.findall(spelled)]


_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")  # "1,500", "625,000,000", "1,234.5"


def _readings(number: str) -> set[str]:
    """Return the values `number` may be read as: "1,500" both as 1500 and as 1.5 (a decimal comma); "1,5" as 1.5."""
    return {_value(number), _value(number.replace(",", ""))} if _THOUSANDS.fullmatch(number) else {_value(number)}


def _value(number: str) -> str:
    """Return `number` as compared: a decimal comma as a point, leading zeros dropped ("08" -> "8", "0.5" kept)."""
    value = number.replace(",", ".")
    whole, dot, fraction = value.partition(".")
    return (whole.lstrip("0") or "0") + dot + fraction


def drawn_from(answer: str, passages: Sequence[Passage], *, question: str = "", limit: int = 3) -> list[str]:
    """Return the sources of the passages that hold `answer`'s evidence (see `attribute`)."""
    return attribute(answer, passages, question=question, limit=limit).sources


def is_unsupported(answer: str, passages: Sequence[Passage], *, question: str = "") -> bool:
    """Return True for an answer of some length that shares no number or word with any passage (see `attribute`)."""
    return attribute(answer, passages, question=question).is_unsupported


def said_beyond(answer: str, question: str) -> set[str]:
    """Return what `answer` says beyond `question`: its numbers and word stems less the question's.

    Links are left out, and list numbers ("2. [[The Machine Stops]]" says no 2), as `unread_numbers` leaves them.
    """
    return terms_of(_statement(answer)) - terms_of(question)


def _statement(answer: str) -> str:
    """Return what `answer` states: its text without its links and list numbers."""
    return _LIST_MARKER.sub(" ", WIKILINK.sub(" ", answer))


def weight_of(terms: AbstractSet[str]) -> int:
    """Return the evidence `terms` are worth: NUMBER_WEIGHT per number, one per word."""
    return sum(NUMBER_WEIGHT if term[0].isdigit() else 1 for term in terms)


def terms_of(text: str, *, bare_numbers: bool = False) -> set[str]:
    """Return the dates, numbers and word stems of `text`.

    A date is one term however written ("2023-09-12", see rag.answer.dates); a number has its unit ("25 cm"), if one
    follows, or is on its own ("25").
    `bare_numbers`: every number also on its own, so that an answer's "25" meets a passage's "25 g", and every date
    also as its year, month and day of the year, so that an answer's "in 2023" meets a passage's "2023-09-12".
    """
    dates, text = dates_in(text)
    numbers = {date.term for date in dates}
    if bare_numbers:
        numbers.update(*(date.parts() for date in dates))
    for value, word in _NUMBER.findall(_REFERENCE.sub(" ", text)):
        value, unit = value.replace(",", "."), _unit(word)
        numbers.add(f"{value} {unit}" if unit else value)
        if bare_numbers:
            numbers.add(value)
    words = {
        stem(word)
        for word in (match.casefold() for match in _WORD.findall(text))
        if word not in FILLER and word not in _ANSWER_WORDS
    }
    return numbers | words | {name.casefold() for name in _NAME.findall(text) if _is_name(name)}


def word_terms(text: str) -> frozenset[str]:
    """Return the word stems of `text` as `terms_of` reads them, without its numbers and dates.

    What a subject is called ("knee", "the garden"): a line about it need not give the question's numbers.
    """
    return frozenset(term for term in terms_of(text) if not term[:1].isdigit())


def _unit(word: str) -> str:
    """Return the unit `word` after a number writes, as compared ("" for none): "Hours" -> "h", "cm", "%"."""
    unit = word.replace(" ", "").casefold()
    if unit in NOT_UNITS:
        return ""
    return measure_unit(unit) or (unit if len(unit) <= SHORT_UNIT_LETTERS else "")


def _is_name(token: str) -> bool:
    """Return True for a joined name of three parts or more, or of two with a digit ("polkit-kde-agent", "v1-5").

    A letter anywhere makes it a name: "Q4_0", a quantization, was no term of "used Q4_0 quantization", which was
    then judged by "used" alone.
    """
    parts = re.split(r"[-_]", token)
    return any(c.isalpha() for c in token) and (len(parts) >= 3 or any(c.isdigit() for c in token))
