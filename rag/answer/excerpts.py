"""The part of a passage that answers a question: the sentences sharing most words with it, cut safely.

A passage is split into rows (its lines) and each row into sentences. For the model, `best_excerpt` keeps the one
run of sentences, within a character budget, that holds the most distinct question words (compared by a crude
stem, so "proofing" meets "proof", and found at a compound's end, so "Bergkäse" holds "Käse"), so its lines can be
named, or a shorter run and one sentence apart from it when the two hold more of them (a gap marked by a line of
"…"); for a one-line snippet, `key_sentences` keeps each sentence that adds a question word, with what follows it.
Cuts fall only between sentences or at spaces, never inside a `[[wikilink]]`, `![[embed]]`, `[text](url)` or inline
code: a link cut in half swallows what follows it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from os.path import commonprefix

from rag.answer.code_spans import code_ranges
from rag.answer.measure_kinds import kinds_asked, kinds_given
from rag.spellings import one_spelling

QUESTION_CHARS = 4_096  # as much of a question as the embedder reads (its window of 256 tokens, 16 chars each)
ELLIPSIS = "…"
_WORD = re.compile(r"\w+")
_SENTENCE_GAP = re.compile(r"(?<=[.!?…])\s+")
_SPACE = re.compile(r"\s+")
_LIST_NUMBER = re.compile(r"\s*\d{1,9}[.)]")  # "1. Mix ...": the number's period ends no sentence
# A period that ends no sentence: a common abbreviation ("Nov. 8", "Dr. Vogt", "z.B.", "A. Smith"); a degree's "C"
# or "F" is none ("at 4 °C. Before that").
_NO_SENTENCE_END = re.compile(
    r"(?<!°)(?<!° )\b(?:[A-Z]|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|Mr|Mrs|Ms|Dr|Prof|St|vs|etc|approx|"
    r"ca|cf|vol|Nr|bzw|ggf|usw|z\.B|d\.h|u\.a|e\.g|i\.e)\.$"
)
# Nor does a day's, in a date written the German way ("Am 8. November"); "in bed 3. Watered." ends one.
_DAY_OF_MONTH = re.compile(r"(?<![\w.])\d{1,2}\.$")
_MONTH = re.compile(r"(?:Jan|Feb|Mar|Mär|Apr|May|Mai|Jun|Jul|Aug|Sep|Oct|Okt|Nov|Dec|Dez)[a-zä]*\b", re.IGNORECASE)
# A wikilink or embed, or a Markdown link or image: text a cut must not fall inside.
LINKS = re.compile(r"!?\[\[[^\]\n]*\]\]|!?\[[^\]\n]*\]\([^)\n]*\)")
_SUFFIXES = ("ings", "ing", "ers", "ies", "ied", "es", "ed", "er", "ly", "s")
# Question words that say nothing about where the answer is in a passage.
FILLER = frozenset(
    ("what", "when", "where", "which", "while", "does", "have", "with", "that", "this", "from", "into", "about")
    + ("much", "many", "long", "your", "there", "their", "would", "could", "should", "also", "wird", "wann", "welche")
)


# Three-letter words of a question that say nothing about where the answer is (English and German); the others
# ("lid", "oil", "fee", "RAM", "Tag") point at it as longer words do.
SHORT_FILLER = frozenset(
    ("the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was")
    + ("one", "our", "out", "has", "him", "his", "how", "man", "new", "now", "old", "see", "two")
    + ("way", "who", "did", "its", "let", "put", "say", "she", "too", "use", "why", "yes", "get")
    + ("got", "may", "own", "per", "via", "etc", "yet", "nor", "due", "off")
    + ("der", "die", "das", "und", "ist", "ein", "mit", "von", "den", "dem", "des", "für", "wie")
    + ("was", "wer", "auf", "aus", "bei", "hat", "sie", "ich", "mir", "uns", "zum", "zur")
)


@dataclass(frozen=True, slots=True)
class Excerpt:
    """The kept part of a text: the rows it spans (0-based, inclusive) and whether text was left out around it."""

    text: str
    first_row: int
    last_row: int
    is_cut_before: bool
    is_cut_after: bool


@dataclass(frozen=True, slots=True)
class _Unit:
    """One sentence: its row, its span in the row, and the question stems it holds."""

    row: int
    start: int
    end: int
    stems: frozenset[str]


def question_stems(question: str) -> frozenset[str]:
    """Return the stems of the words of `question` that can point at an answer (no filler, no short words)."""
    words = (word.casefold() for word in _WORD.findall(question[:QUESTION_CHARS]))
    return frozenset(stem(word) for word in words if len(word) > 3 and word not in FILLER)


def excerpt_stems(question: str) -> frozenset[str]:
    """Return the question words a passage is cut by: `question_stems` and three-letter words saying something.

    Asked "What will the allotment fee be in 2027 …?", the garden plan's "Annual fee for 2027 rises from €284 to €302
    per plot" was cut from its passage, "How far did I run on 2026-11-10?" lost "06:50 Tempo run, 8.4 km total.":
    "fee" and "run" were no question words. Counted, passages cut to 1,000 characters held more of the expected
    evidence on two vaults' golden sets, and less on none (docs/benchmarks.md, stop 56). With them, the kinds of figure
    it asks for (rag/answer/measure_kinds.py: "How hot should the oven be?" wants the sentences giving a temperature).
    """
    return question_stems(question) | short_words(question[:QUESTION_CHARS]) | kinds_asked(question)


def short_words(text: str) -> frozenset[str]:
    """Return the three-letter words of `text` saying something ("lid", "fee", "run"; not "the", "how"), casefolded."""
    words = (word.casefold() for word in _WORD.findall(text))
    return frozenset(word for word in words if len(word) == 3 and word.isalpha() and word not in SHORT_FILLER)


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Return a crude stem of a lower-case word: common English endings dropped, at least four letters kept.

    A British spelling is stemmed as its American one ("colours" as "colors"): a note and a question, or a reply,
    may spell a word either way.
    """
    word = one_spelling(word)
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    if word.endswith("ed") and len(word) >= 5:  # "baked" is "bake", as "bakes" is: a short verb's "e" stays
        return word[:-1]
    return word


def protected_spans(row: str) -> list[tuple[int, int]]:
    """Return the spans of `row` no cut may fall inside: links, embeds and inline code."""
    return sorted([*(match.span() for match in LINKS.finditer(row)), *code_ranges(row)])


def best_excerpt(text: str, question: str, *, max_chars: int) -> Excerpt:
    """Return the part of `text` (at most about `max_chars`) that shares most words with `question`.

    Budget left once the run reaches the passage's end goes to the sentences before it. Line breaks are kept. When a
    sentence apart from the run holds question words it lacks, a shorter run and that sentence may be kept instead
    (`_run_and_sentence`).
    One sentence longer than the budget is cut at a space (never inside a link or code).
    """
    rows = text.split("\n")
    if len(text) <= max_chars:
        return Excerpt(text, 0, len(rows) - 1, is_cut_before=False, is_cut_after=False)
    wanted = excerpt_stems(question)
    units = [unit for number, row in enumerate(rows) for unit in _units(number, row, wanted)]
    if not units:
        return Excerpt("", 0, 0, is_cut_before=False, is_cut_after=False)
    first, last = _best_run(units, max_chars)
    if (pair := _run_and_sentence(rows, units, first, last, max_chars)) is not None:
        return pair
    while first > 0 and _run_chars(units, first - 1, last) <= max_chars:
        first -= 1
    return _render(rows, units, first, last, max_chars)


LEFT_OUT = f"\n{ELLIPSIS}\n"  # between the two parts of an excerpt that are not next to each other


def _run_and_sentence(
    rows: Sequence[str], units: Sequence[_Unit], first: int, last: int, max_chars: int
) -> Excerpt | None:
    """Return a shorter run and a sentence apart from it that hold more question words than the best run (None).

    A table's header row shares the question's words ("Variety | Plants | Harvest 2026"), and its rows fill the
    room, so the best run stopped short of the sentence under the table that answers "which variety gave the most
    per plant?" ("Sungold yielded most per plant (3.1 kg each)"). The sentence that holds most of the words the run
    lacks goes with the best run that still fits beside it, when the two hold more distinct words than the run.
    """
    covered = _stems_of(units, first, last)
    lacking = [i for i, unit in enumerate(units) if unit.stems - covered and _run_chars(units, i, i) < max_chars]
    if not lacking:
        return None
    extra = min(lacking, key=lambda i: (-len(units[i].stems - covered), -len(units[i].stems), i))
    room = max_chars - _run_chars(units, extra, extra) - len(LEFT_OUT)
    run = _best_run_within(units, room, apart_from=extra)
    if run is None:
        return None
    run_first, run_last = run
    both = _stems_of(units, run_first, run_last) | units[extra].stems
    if len(both) <= len(covered):
        return None
    # The room left goes to the sentences after the one apart, never up to the run (the gap stays a gap).
    limit = run_first - 2 if run_first > extra else len(units) - 1
    extra_last = extra
    while extra_last < limit and _pair_chars(units, (run_first, run_last), (extra, extra_last + 1)) <= max_chars:
        extra_last += 1
    (first, last), (other_first, other_last) = sorted([(run_first, run_last), (extra, extra_last)])
    return Excerpt(
        LEFT_OUT.join([_rows_text(rows, units, first, last), _rows_text(rows, units, other_first, other_last)]),
        units[first].row,
        units[other_last].row,
        is_cut_before=first > 0,
        is_cut_after=other_last < len(units) - 1,
    )


def _pair_chars(units: Sequence[_Unit], run: tuple[int, int], other: tuple[int, int]) -> int:
    return _run_chars(units, *run) + len(LEFT_OUT) + _run_chars(units, *other)


def _best_run_within(units: Sequence[_Unit], max_chars: int, *, apart_from: int) -> tuple[int, int] | None:
    """Return the best run of `units` within `max_chars` that neither holds nor touches unit `apart_from`."""
    if max_chars <= 0:
        return None
    before, after = list(units[: max(apart_from - 1, 0)]), list(units[apart_from + 2 :])
    best: tuple[tuple[int, int], tuple[int, int]] | None = None  # (score, run)
    for offset, part in ((0, before), (apart_from + 2, after)):
        if not part or not any(unit.stems for unit in part):
            continue
        first, last = _best_run(part, max_chars)
        if _run_chars(part, first, last) > max_chars:
            continue
        score = (len(_stems_of(part, first, last)), -(first + offset))
        if best is None or score > best[0]:
            best = (score, (first + offset, last + offset))
    return None if best is None else best[1]


def _rows_text(rows: Sequence[str], units: Sequence[_Unit], first: int, last: int) -> str:
    """Return units first..last as written: whole rows' parts, line breaks kept."""
    kept: list[str] = []
    for row in range(units[first].row, units[last].row + 1):
        in_row = [unit for unit in units[first : last + 1] if unit.row == row]
        kept.append(rows[row][in_row[0].start : in_row[-1].end] if in_row else "")
    return "\n".join(kept)


@dataclass(frozen=True, slots=True)
class KeySentences:
    """Runs of sentences in text order, and whether text was left out before the first or after the last."""

    runs: tuple[str, ...]
    is_cut_before: bool
    is_cut_after: bool


def key_sentences(text: str, question: str, *, max_chars: int) -> KeySentences:
    """Return the sentences of `text` that hold question words not seen in a better one, each with what follows it.

    For a one-line snippet: the answer may sit after an earlier sentence that shares a word too ("rest" in "rest
    45 minutes" before "14 hours in the fridge"), so each sentence adding a question word gets shown, best first,
    and the budget left goes to the sentences after each. Rows are joined by spaces.
    """
    wanted = excerpt_stems(question)
    units = [unit for number, row in enumerate(text.split("\n")) for unit in _units(number, row, wanted)]
    if not units:
        return KeySentences((), is_cut_before=False, is_cut_after=False)
    ranked = sorted((i for i, unit in enumerate(units) if unit.stems), key=lambda i: (-len(units[i].stems), i))
    runs: list[list[int]] = []
    covered: set[str] = set()
    for index in ranked:
        fits = _chars([*runs, [index, index]], units) <= max_chars
        if units[index].stems - covered and (fits or not runs):
            runs.append([index, index])
            covered |= units[index].stems
    runs = runs or [[0, 0]]
    for run in runs:  # best first: the sentences after it, up to the next run or the budget
        starts = {other[0] for other in runs}
        while run[1] + 1 < len(units) and run[1] + 1 not in starts:
            if _chars(runs, units) + 1 + units[run[1] + 1].end - units[run[1] + 1].start > max_chars:
                break
            run[1] += 1
    ordered = _merged(sorted(runs))
    rows = text.split("\n")
    parts = tuple(" ".join(rows[u.row][u.start : u.end] for u in units[first : last + 1]) for first, last in ordered)
    return KeySentences(parts, is_cut_before=ordered[0][0] > 0, is_cut_after=ordered[-1][1] < len(units) - 1)


def sentences_of(text: str) -> list[str]:
    """Return the sentences of `text`, row by row, cut only between sentences outside links and code.

    Kept for the next call: for a passage's text, read again and again. An answer's, new at each early judgement of
    a streamed opening, goes through `answer_sentences`, so its prefixes do not push the passages out of the cache.
    """
    return list(_sentences(text))


def answer_sentences(text: str) -> list[str]:
    """Return the sentences of `text` as `sentences_of` does, without keeping them."""
    return list(_sentences.__wrapped__(text))


# The answer check reads the same passages' sentences many times a reply (each early judgement of a streamed
# opening, each of its tests): with this and the caches of rival_figures and evidence, a judgement over six passages
# of sample_vault took 6-8 ms where it took 30-37 ms (stop 44, one run).
@lru_cache(maxsize=1024)
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(
        row[unit.start : unit.end] for number, row in enumerate(text.split("\n")) for unit in _units(number, row)
    )


GAP = " … "  # between runs of a snippet that are not next to each other


def _chars(runs: Sequence[Sequence[int]], units: Sequence[_Unit]) -> int:
    gaps = len(GAP) * max(0, len(runs) - 1)
    return gaps + sum(_run_chars(units, first, last) for first, last in runs)


def _merged(runs: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for first, last in runs:
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]))
        else:
            merged.append((first, last))
    return merged


def _units(number: int, row: str, wanted: frozenset[str] = frozenset()) -> list[_Unit]:
    spans = protected_spans(row)
    cuts = [
        gap
        for gap in _SENTENCE_GAP.finditer(row)
        if not _inside(spans, gap.start())
        and not _LIST_NUMBER.fullmatch(row[: gap.start()])
        and not _NO_SENTENCE_END.search(row, 0, gap.start())
        and not (_DAY_OF_MONTH.search(row, 0, gap.start()) and _MONTH.match(row, gap.end()))
        and not row[gap.end() : gap.end() + 1].islower()  # "e.g. the", "approx. two": no new sentence
    ]
    bounds = [(0, len(row))]
    if cuts:
        starts = [0, *(gap.end() for gap in cuts)]
        ends = [*(gap.start() for gap in cuts), len(row)]
        bounds = list(zip(starts, ends, strict=True))
    units = []
    for start, end in bounds:
        if row[start:end].strip():
            stems = _wanted_in(row[start:end], wanted) if wanted else frozenset()
            units.append(_Unit(number, start, end, stems))
    return units


MIN_COMPOUND_PART = 4  # the letters a question word must have to be found at a longer word's end
MIN_COMPOUND_HEAD = 3  # and the letters before it there: "Bergkäse" holds "käse", "string" no "ring"


def _wanted_in(text: str, wanted: frozenset[str]) -> frozenset[str]:
    """Return the stems of `wanted` that words of `text` have, or end with as a compound's last part.

    German writes its nouns together: asked "Welchen Käse nimmt Oma?", the Käsespätzle recipe's lines "250 g würziger
    Bergkäse" and "100 g Emmentaler" were cut from the passage, and its steps sent, which say "Käse" eight times.
    """
    found = set(kinds_given(text, wanted))
    parts = [part for part in wanted if len(part) >= MIN_COMPOUND_PART]
    for word in _WORD.findall(text):
        stemmed = stem(word.casefold())
        if stemmed in wanted:
            found.add(stemmed)
            continue
        found.update(part for part in parts if len(stemmed) - len(part) >= MIN_COMPOUND_HEAD and stemmed.endswith(part))
    return frozenset(found)


def _best_run(units: Sequence[_Unit], max_chars: int) -> tuple[int, int]:
    """Return the first and last unit of the run within budget holding most distinct question stems."""
    starts = [index for index, unit in enumerate(units) if unit.stems] or [0]
    # (distinct stems, stems of the first sentence, stem hits, -start): a run opening on its best sentence wins
    best: tuple[int, int, int, int, int] | None = None  # ... and its end
    for start in starts:
        end = start
        while end + 1 < len(units) and _run_chars(units, start, end + 1) <= max_chars:
            end += 1
        covered = _stems_of(units, start, end)
        hits = sum(len(unit.stems) for unit in units[start : end + 1])
        score = (len(covered), len(units[start].stems), hits, -start, end)
        if best is None or score[:4] > best[:4]:
            best = score
    if best is None:
        raise ValueError("a passage with text has at least one sentence")
    return -best[3], best[4]


def _stems_of(units: Sequence[_Unit], first: int, last: int) -> frozenset[str]:
    """Return the distinct question stems units first..last hold."""
    return frozenset().union(*(unit.stems for unit in units[first : last + 1]))


def _run_chars(units: Sequence[_Unit], first: int, last: int) -> int:
    """Return the characters of units first..last as rendered: a space or a newline between two."""
    return sum(unit.end - unit.start for unit in units[first : last + 1]) + (last - first)


def _render(rows: Sequence[str], units: Sequence[_Unit], first: int, last: int, max_chars: int) -> Excerpt:
    excerpt = _rows_text(rows, units, first, last)
    is_cut_after = last < len(units) - 1
    if len(excerpt) > max_chars:  # one sentence over the budget: cut it at a space outside links and code
        excerpt = cut_at_space(excerpt, max_chars)
        is_cut_after = True
    return Excerpt(excerpt, units[first].row, units[last].row, is_cut_before=first > 0, is_cut_after=is_cut_after)


def shortened(text: str, max_chars: int) -> str:
    """Return `text`, or when longer than `max_chars` its start cut at a space (`cut_at_space`) and " …"."""
    return text if len(text) <= max_chars else f"{cut_at_space(text, max_chars)} {ELLIPSIS}"


def cut_at_space(text: str, max_chars: int) -> str:
    """Return `text` cut at the last space before `max_chars` that is outside every link and code span."""
    spans = protected_spans(text)
    spaces = [match.start() for match in _SPACE.finditer(text, 0, max_chars + 1) if not _inside(spans, match.start())]
    if spaces and spaces[-1] > 0:
        return text[: spaces[-1]].rstrip()
    # No space before the budget: keep up to the first one after it, so a link is never split.
    later = next((m.start() for m in _SPACE.finditer(text, max_chars) if not _inside(spans, m.start())), len(text))
    return text[:later].rstrip()


def _inside(spans: Sequence[tuple[int, int]], position: int) -> bool:
    return any(start < position < end for start, end in spans)


FORM_PREFIX = 5  # letters two forms of a word share at least ("flexib"): "form" of "formula" and "format" is chance


def is_form_of(term: str, word: str) -> bool:
    """Return True when `term` and `word` are forms of one word ("flexibility" and "flexible").

    "replace" and "replacement" too. They share FORM_PREFIX letters or more, and all but the last three of the
    shorter: not "formula" and "format".
    """
    common = len(commonprefix([term, word]))
    return not term[0].isdigit() and common >= FORM_PREFIX and common >= min(len(term), len(word)) - 3
