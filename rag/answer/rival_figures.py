"""A figure an answer takes from beside what was asked, where the notes give another figure of its kind for it.

A small model asked about one thing often answers with the figure the notes give for the thing next to it: asked
how long the shaped loaf rests in the fridge, Qwen2.5-Coder 0.5B answered "5 hours at 24 °C" (the bulk
fermentation, a row above "Cold retard: 14 hours in the fridge at 4 °C"); asked what the new cassette cost, "€10"
(from "A €10 chain checker saves a €40 cassette."). A sentence holds the figure, so the answer check's word test
passes it. What gives it away is where the figure stands: the notes give another figure of the same unit closer to
what the answer ties its figure to (in a sentence holding more of the answer's words around the figure, or in
the same sentence nearer to them).

The test is narrow on purpose, as withholding a right answer costs more than showing a wrong one with the notes'
sentences under it: only figures with a unit ("14 hours", "4 °C", "€40", "3.1 kg"), only rivals in the passage the
answer's figure comes from, never a figure the answer states itself ("120 °C, and at 150 °C they burned"), and the
rival must be nearer by a word or by RIVAL_MIN_CLOSER tokens in one sentence. Words are the answer's own, not the
question's: "The flakes burned at 150 °C", half an answer to "At what temperature do I pour the oil over the
flakes, and what went wrong when it was hotter?", ties 150 °C to the flakes burning, as the note does. The
question's words count where the answer puts them beside its figure ("rests in the fridge for 5 hours"): a figure
whose sentences hold none of them loses to a rival whose sentence holds one. A figure the answer gives alone ("1.
€10", asked what the cassette cost) is tied to the question's words.

A question may name a figure itself ("… in the 5 GHz band?"): an answer's figure that the notes give only beside
another figure of that unit ("36 dBm in 2.4GHz") answers for another thing (`given_for_another`), even copied.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rag.answer.attribution import NOT_UNITS, WIKILINK, Passage
from rag.answer.excerpts import answer_sentences, question_stems, sentences_of, stem
from rag.answer.units import measure_unit

# A currency before its number, or a unit after it (a percent, degrees, or a short word: h, kg, hours, km).
# A unit may be written on to its number ("2.4GHz", "36dBm", "5kg"): only units of measure, so "12th" or "4K" are not.
_FIGURE = re.compile(
    r"(?P<currency>[€$£¥])\s?(?P<amount>\d+(?:[.,]\d+)?)"
    r"|(?<![\w.:])(?P<value>\d+(?:[.,]\d+)?)(?:(?![\w:])\s?(?P<unit>%|°\s?[CF]|[^\W\d_]{1,7})"
    r"|(?P<attached>[kMGT]?(?:Hz|B|W|Wh|bps)|dBm?|mAh|[kcm]?m|[km]?g|m?s|ml|min|h))(?!\w)"
)
_NOT_UNITS = NOT_UNITS | {"with", "per", "x"}  # words after a number that are no unit of it; "12 weeks" is one
_TOKEN = re.compile(r"[€$£¥]?\d+(?:[.,]\d+)?|[^\W\d_]+")
BARE_NUMBER = re.compile(r"(?<![\w.,:])\d+(?:[.,]\d+)?(?![\w:]|[.,]\d)")  # "2.62", "1,5"; not "H100" or "2:144"
# Where an answer's sentence joins two statements, each with its own figure: "The fee will be €302, and the plan's
# estimate for the whole year's budget is €432." ties €302 to the fee alone, not to the year (whose €15 a missed
# hour of community work costs, in the committee's decisions): the 0.5B's right answer was withheld for it.
_CLAUSE_BREAK = re.compile(r";\s+|,\s+(?=(?:and|but|while|whereas|with|und|aber|mit)\b)", re.IGNORECASE)
RIVAL_MIN_CLOSER = 3  # tokens nearer the words a figure is tied to, in one sentence, for a rival to count
# The answer's words within this many tokens of its figure that are the question's too say what the figure is for:
# "rests in the fridge for 5 hours", "3.3 kg per plant".
ASKED_SPAN = 5


RIVAL_CAUTION = "The notes give another figure for this:"


@dataclass(frozen=True)
class Rival:
    """A figure of the notes standing nearer what an answer ties its own figure to, and where it stands."""

    figure: str  # as written: "14 hours", "€40"
    sentence: str
    source: str  # the passage's citation


@dataclass(frozen=True)
class _Figure:
    value: str
    unit: str
    position: int  # token index in its sentence
    written: str  # as the text writes it: "14 hours", "€40"


@dataclass(frozen=True)
class _Sentence:
    """A sentence of a passage as the test reads it: its token stems and figures, worked out once per call."""

    text: str  # as written, for the refusal to quote
    stems: tuple[str, ...]  # of its tokens, links left out, in order
    figures: tuple[_Figure, ...]


def rival_figures(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the notes' figures that stand nearer what the answer ties its own figures to, first found first.

    A figure with a unit the answer states beyond the question is tied to the longer words of its sentence ("rests
    in the fridge for 5 hours": rests, fridge; units are no such words). It stands where a sentence of a passage
    holds it; a rival is another figure of its unit in that passage, not stated by the answer. Returned: the
    rivals of each figure that no passage holds at least as near those words (more of them in its sentence, or as
    many and RIVAL_MIN_CLOSER tokens nearer), where some passage holds it near a rival that is nearer still.
    """
    asked_figures = _figures(question)
    asked = {(f.value, f.unit) for f in asked_figures}
    stated = {(f.value, f.unit) for f in _figures(_unlinked(answer))}
    if not stated - asked and not asked_figures:
        return []
    read = _statements_read(passages)
    question_words = question_stems(question)
    rivals: list[Rival] = []
    for sentence in (clause for text in answer_sentences(answer) for clause in _CLAUSE_BREAK.split(_unlinked(text))):
        said = _read(sentence)
        units = {stem(word.casefold()) for figure in said.figures for word in _TOKEN.findall(figure.written)}
        # A figure standing alone ("1. €10") answers what was asked: the question's words are what it is tied to.
        words = question_stems(sentence) - units or question_words
        for figure in said.figures:
            if (figure.value, figure.unit) in asked:
                continue
            beside = said.stems[max(figure.position - ASKED_SPAN, 0) : figure.position + ASKED_SPAN + 1]
            tied_to = _Ties(words, asked=words.intersection(beside) & question_words, question=words & question_words)
            found = [_rivals_in(source, sentences, figure, stated, tied_to) for source, sentences in read]
            if not any(rivals_here is None for rivals_here in found):  # no passage bears it out where it stands
                rivals.extend(rival for rivals_here in found if rivals_here for rival in rivals_here)
    rivals.extend(_given_for_another(answer, read, asked_figures, question=question))
    return _first_of_each(rivals)


def given_for_another(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the figures of the question's units the notes give the answer's figures for instead of the asked one.

    The 1.5B answered "What is the maximum EIRP India allows in the 5 GHz Wi-Fi band?" with "36 dBm", which the note
    gives for another band: "India allows 4W ERP (36 dBm) in 2.4GHz and in 865-868 MHz."; the 0.5B answered "How many
    output tokens per second did the Llama 8B … reach?" with "2.62", a row under the heading "TinyLlama 1.1B". A
    number of the answer (with its unit, or a bare one) counts so when a statement holding it names, in itself or in
    its passage's heading, another figure of an asked unit, and none names the asked one (a statement naming no
    figure of that unit, "FCC allows 36 dBm EIRP for Point to Point", says nothing either way). Judged before
    anything the answer copies: a copy of the sentence giving the figure for another band is no answer for the band
    asked.
    """
    asked = _figures(question)
    if not asked:  # most questions: nothing to read the passages for
        return []
    return _first_of_each(_given_for_another(answer, _statements_read(passages), asked, question=question))


def _given_for_another(
    answer: str, read: Sequence[tuple[Passage, Sequence[_Sentence]]], asked: Sequence[_Figure], *, question: str
) -> list[Rival]:
    """Return `given_for_another`'s rivals over passages read already (`asked`: the question's figures)."""
    if not asked:
        return []
    text = _unlinked(answer)
    figures = _figures(text)
    stated = {(f.value, f.unit) for f in figures} - {(f.value, f.unit) for f in asked}
    in_question = {value.replace(",", ".") for value in BARE_NUMBER.findall(question)}
    bare = {value.replace(",", ".") for value in BARE_NUMBER.findall(text)} - in_question - {f.value for f in figures}
    units = {figure.unit for figure in asked}
    wanted = {(figure.value, figure.unit) for figure in asked}
    rivals: list[Rival] = []
    for passage, sentences in read:
        heading = _figures(passage.source.strip("[]").partition("#")[2])
        for sentence in sentences:
            numbers = {token.replace(",", ".") for token in sentence.stems if token[:1].isdigit()}
            holds = any((f.value, f.unit) in stated for f in sentence.figures) or bool(bare & numbers)
            around = [*sentence.figures, *heading]
            if not holds or any((f.value, f.unit) in wanted for f in around):
                continue
            rivals.extend(Rival(f.written, sentence.text, passage.source) for f in around if f.unit in units)
    return rivals


def figures_stated(text: str, *, exclude: str = "") -> list[str]:
    """Return the figures with a unit `text` states, as compared ("3.1 kg", "14 h"), not those `exclude` states."""
    excluded = {(f.value, f.unit) for f in _figures(_unlinked(exclude))} if exclude else set()
    found = [(f.value, f.unit) for f in _figures(_unlinked(text)) if (f.value, f.unit) not in excluded]
    return [f"{value} {unit}" for value, unit in dict.fromkeys(found)]


def without_figures(text: str) -> str:
    """Return `text` with its figures with a unit left out ("Er bleibt 14 Std." -> "Er bleibt  .")."""
    return _FIGURE.sub(" ", text)


def _first_of_each(rivals: Sequence[Rival]) -> list[Rival]:
    """Return `rivals` with each figure once, where it was first found."""
    first: dict[str, Rival] = {}
    for rival in rivals:
        first.setdefault(rival.figure, rival)
    return list(first.values())


def _statements_read(passages: Sequence[Passage]) -> list[tuple[Passage, list[_Sentence]]]:
    """Return each passage with its statements read.

    The notes' statements are read apart as the answer's are: "NVIDIA H100 has 1.5 TB/s bandwidth, and that's much
    less than 7 TB/s required for 10 tokens per second" ties 10 tokens to what is required, not to the H100.
    """
    return [(passage, list(_statements_of(passage.text))) for passage in passages]


@lru_cache(maxsize=1024)  # the same passages are read for each early judgement of a streamed opening
def _statements_of(text: str) -> tuple[_Sentence, ...]:
    return tuple(_read(clause, sentence) for sentence, clause in _statements(text))


def _statements(text: str) -> list[tuple[str, str]]:
    """Return each statement of `text`'s sentences with the sentence it stands in (quoted as the notes write it)."""
    return [(sentence, clause) for sentence in sentences_of(text) for clause in _CLAUSE_BREAK.split(sentence)]


def _read(statement: str, sentence: str | None = None) -> _Sentence:
    text = _unlinked(statement)
    stems = tuple(stem(token.casefold()) for token in _TOKEN.findall(text))
    return _Sentence((sentence or statement).strip(), stems, tuple(_figures(text)))


@dataclass(frozen=True)
class _Ties:
    """The words an answer's sentence ties its figures to, and those of them the question asks about."""

    words: frozenset[str]
    asked: frozenset[str]  # the question's words beside the figure in the answer: what the figure is said to be for
    question: frozenset[str] = frozenset()  # those of `words` the question has anywhere


def _rivals_in(
    passage: Passage,
    sentences: Sequence[_Sentence],
    stated_figure: _Figure,
    stated: set[tuple[str, str]],
    tied_to: _Ties,
) -> list[Rival] | None:
    """Return the rival in `passage` of a figure the answer states, or None when the passage bears the figure out.

    [] when the passage does not hold the figure, or holds it and its rivals by none of the words it is tied to.
    A rival also counts when no sentence holding the figure has any of the question's words the answer puts beside
    it (ASKED_SPAN) and the rival's sentence has: the 0.5B's "The shaped sourdough loaf rests in the fridge for
    5 hours at 24 °C (the oven with only the light on)" ties 5 hours to the fridge, as asked, and to the oven's
    light by words it copied from the bulk fermentation's row, which holds nothing asked; the cold retard's row
    holds "fridge".
    """
    best_own: _Nearness | None = None
    best_rival: _Nearness | None = None
    rival: list[Rival] = []
    own_asked = 0  # the most asked words a sentence holding the figure has
    asked_rival: tuple[int, int] | None = None
    by_asked: list[Rival] = []
    for sentence in sentences:
        places = [place for place, token_stem in enumerate(sentence.stems) if token_stem in tied_to.words]
        asked = len(tied_to.asked.intersection(sentence.stems))
        for figure in sentence.figures:
            if figure.unit != stated_figure.unit:
                continue
            held = {sentence.stems[p] for p in places}
            nearness = (len(held), -_distance(figure.position, places), len(held & tied_to.question))
            if figure.value == stated_figure.value:
                best_own = nearness if best_own is None else max(best_own, nearness)
                own_asked = max(own_asked, asked)
            elif (figure.value, figure.unit) not in stated:
                found = Rival(figure.written, sentence.text, passage.source)
                if best_rival is None or nearness > best_rival:
                    best_rival, rival = nearness, [found]
                if asked and (asked_rival is None or (asked, nearness[1]) > asked_rival):
                    asked_rival, by_asked = (asked, nearness[1]), [found]
    if best_own is None:
        return []
    if best_rival is not None and _is_nearer(best_rival, best_own):
        return rival
    if own_asked == 0 and by_asked:
        return by_asked
    return None if best_own[0] > 0 else []


# Of a figure's sentence: how many of the words it is tied to it holds, minus its distance to the nearest, and how
# many of those words are the question's.
_Nearness = tuple[int, int, int]


def _is_nearer(rival: _Nearness, own: _Nearness) -> bool:
    """Return True when the rival holds more of the tied words, or as many and is RIVAL_MIN_CLOSER tokens nearer.

    One word more, none of them the question's, counts as many: the 1.5B's right "one top-end Nvidia datacenter card
    could run GPT-3.5 in practice at a rate of 0.5-1 tokens per second" was withheld for the "rate" in "would only
    suffice for a rate of 2 tokens per second", where the note's "so one could expect 0.5-1 tokens per second"
    holds no word of it but "second".
    """
    more = rival[0] - own[0]
    if more > 1 or (more == 1 and rival[2] > own[2]):
        return True
    return more >= 0 and rival[0] > 0 and rival[1] - own[1] >= RIVAL_MIN_CLOSER


def _distance(position: int, places: Sequence[int]) -> int:
    return min((abs(position - place) for place in places), default=1_000)


def _unlinked(text: str) -> str:
    """Return `text` without its links: "[[Tomato Varieties#2026 results]]" states no figure."""
    return WIKILINK.sub(" ", text)


def _figures(text: str) -> list[_Figure]:
    """Return the figures with a unit in `text`, with their token positions."""
    starts = [match.start() for match in _TOKEN.finditer(text)]
    found: list[_Figure] = []
    for match in _FIGURE.finditer(text):
        if match["currency"]:
            value, unit = match["amount"], match["currency"]
        else:
            value, unit = match["value"], _unit(match["unit"] or match["attached"])
            if unit in _NOT_UNITS:
                continue
        position = sum(1 for start in starts if start < match.start())
        found.append(_Figure(value.replace(",", "."), unit, position, " ".join(match[0].split())))
    return found


def _unit(unit: str) -> str:
    """Return a unit as compared: "hours" and "h" as "h" (rag.answer.units), "sprints" as "sprint".

    A unit of measure is compared by its name; another with case, spaces and a plural's "s" dropped.
    """
    unit = unit.replace(" ", "").casefold()
    return measure_unit(unit) or (unit[:-1] if len(unit) > 3 and unit.endswith("s") else unit)
