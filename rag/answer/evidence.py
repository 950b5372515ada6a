"""The sentences of the notes an answer rests on, chosen by code and shown in the notes' own words.

Small local models misread what they are given and answer in a word: Qwen2.5-Coder 0.5B wrote "14 hours at 24 °C"
over a note saying "14 hours in the fridge at 4 °C", "Matina" for the best-yielding tomato, "nomic" for which
embedding model was chosen. Under such an answer, the sentences of the passages it read that hold what it says let
the user check it against the note itself. Code picks them, as rag/answer/attribution picks an answer's sources: by
the numbers and words the answer states beyond the question's own, so every one is copied verbatim from a passage
the model read, and its link is that passage's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from rag.answer.asked_values import gives_other_kind, read_otherwise
from rag.answer.attribution import MIN_EVIDENCE, Passage, said_beyond, terms_of, weight_of
from rag.answer.changed_figures import misread_figures
from rag.answer.citations import note_of, note_title
from rag.answer.context import opens_like_refusal
from rag.answer.counted_nouns import counted_elsewhere
from rag.answer.dates import day_keys, days_meet
from rag.answer.excerpts import is_form_of, question_stems, sentences_of, short_words, shortened, stem
from rag.answer.external_links import named_hosts, neutralise_links
from rag.answer.figure_owners import owned_elsewhere
from rag.answer.link_answers import links_passages_read, unread_links_as_text
from rag.answer.named_subject import about_named, named_elsewhere
from rag.answer.question_kind import asks_for_figure, asks_for_something, gives_figure
from rag.answer.quotable import display, plain, quotable_sentences, with_neighbour
from rag.answer.quoted_evidence import Evidence
from rag.answer.record_dates import misdated
from rag.answer.records import PROPERTY_ROW, record_text
from rag.answer.rival_figures import Rival, given_for_another
from rag.answer.row_labels import labelled_for_another
from rag.answer.who_answers import given_by_another
from rag.answer.year_rows import given_for_another_year
from rag.answer.yes_no import answers_yes_or_no_wrongly, gives_no_reason_yet, undone_saying_no
from rag.notes.inline import WIKILINK

MAX_EVIDENCE = 2  # sentences shown: the best, and one more only when it holds more of what the answer says
EVIDENCE_CHARS = 280  # a longer sentence is cut at a space, as a snippet is
MIN_COPIED_CHARS = 40  # a sentence an answer repeats that makes its note a source (`copied_from`)
ON_TOPIC_WORDS = 2  # question words that make one shared answer word evidence
RESTATED_SHARE = 2 / 3  # of an answer's terms in one sentence: the answer restates it (`is_borne_out`)
RESTATED_MIN_WEIGHT = 3  # a number and a word, or three words: less is chance
COMPOUND_HEAD_LETTERS = 4  # letters of each part of a compound counted as its last part's word ("berg" + "käse")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class _Candidate:
    text: str
    source: str
    holds: frozenset[str]  # the answer's terms (beyond the question's) the sentence holds
    on_topic: int  # question words the sentence holds: of two sentences holding the same, the one about the question
    order: int  # passage rank, then place in it
    is_repeated: bool  # the answer already says it word for word
    shown: str = ""  # as quoted, when other than `text`: a short sentence with the one before it in its line
    is_row: bool = False  # a row of a note's properties record ("author: [[E. M. Forster]]")


def evidence_for(
    answer: str,
    passages: Sequence[Passage],
    *,
    question: str = "",
    limit: int = MAX_EVIDENCE,
    max_chars: int = EVIDENCE_CHARS,
    on_topic_words: int = ON_TOPIC_WORDS,
    beyond: AbstractSet[str] | None = None,
    with_short_words: bool = False,
) -> list[Evidence]:
    """Return the sentences of `passages` that hold most of what `answer` says, best first ([] for none).

    What an answer says is what `rag.answer.attribution` weighs: its numbers (with their units) and longer words
    by stem, less the question's own. The first sentence must hold MIN_EVIDENCE of that (all of it, for an answer
    saying less: "2 %"; or one term, beside two of the question's words), each further one MIN_EVIDENCE the
    sentences before it do not. A sentence must also share a word with the question, itself or by its note and
    heading (a table row "Total | €432" under "Budget"): two words of a long answer in a to-do line are chance.
    Ties go to the sentence holding more of the question's words, then to the better-ranked passage. A sentence the
    answer repeats word for word (compared as quotes are) is not shown again, but what it holds counts as shown.
    Headings, table header rows and rules are no sentences. An answer that says nothing beyond the question
    ("nomic", asked why not nomic; "Yes."; "Käsespätzle") gets the sentences that hold most of the question's own
    terms, by the same rules, among those that say something beyond it (a map-of-content line "[[Embedding Model
    Choice]]: which model and why" does not): what the notes say about what was asked, where the answer gives
    nothing to check; from the notes it links to, when it is only a link and they hold such a sentence.
    `beyond`: `said_beyond(answer, question)` when the caller has it already.
    `with_short_words`: for an answer saying nothing beyond the question, its three-letter words count as its longer
    ones do (`closest_to`); the answer check (`is_borne_out`) weighs longer words only.
    """
    if not answer.strip():  # no answer (a turn stopped before the model wrote one): nothing to check
        return []
    beyond = frozenset(said_beyond(answer, question) if beyond is None else beyond)
    if not beyond and opens_like_refusal(answer):  # "Not in the notes.": no sentence is what it says
        return []
    # Asked how the loaf is baked "with the lid on and off", the sentence saying "20 minutes with the lid on" says more
    # about it than "One loaf, about 900 g baked.": the question's three-letter words count where they are sought.
    short = short_words(question) if with_short_words and not beyond else frozenset()
    said = beyond or frozenset(terms_of(question)) | short
    if not said:
        return []
    wanted = question_stems(question) | short
    days = day_keys(question)
    passages = about_named(question, passages)  # "7 layers" of the OSI model is no answer about TinyLlama's
    candidates = [c for c in _candidates(said, passages, wanted, plain(answer), days) if c.on_topic or not wanted]
    if not beyond:  # only a sentence saying something beyond the question can show what the notes say about it
        candidates = [c for c in candidates if weight_of(said_beyond(c.text, question)) >= MIN_EVIDENCE]
        # An answer that is only a link points at its note: what that note says, not a sentence elsewhere that
        # shares two common words of the question ("uses", "theme" in a bookmarks list).
        cited = {note_of(match[2]) for match in WIKILINK.finditer(answer)}
        candidates = [c for c in candidates if note_of(c.source) in cited] or candidates
    covered: set[str] = set().union(*(c.holds for c in candidates if c.is_repeated))
    candidates = [c for c in candidates if not c.is_repeated]
    chosen: list[_Candidate] = []
    while candidates and len(chosen) < limit:
        best = max(candidates, key=lambda c: (weight_of(c.holds - covered), c.on_topic, -c.order))
        new = weight_of(best.holds - covered)
        # A record's row holding the rest of what the answer says is shown however little that is: "E. M. Forster,
        # 1909" rests on "year: 1909" and on "author: [[E. M. Forster]]", one name, less than MIN_EVIDENCE.
        completes = best.is_row and new > 0 and said - covered <= best.holds
        if not completes and not _is_evidence(
            new,
            best.on_topic,
            first=not (chosen or covered),
            said=said,
            on_topic_words=on_topic_words,
            is_label=_is_label(best.text),
        ):
            break
        chosen.append(best)
        covered |= best.holds
        candidates = [c for c in candidates if c.text != best.text]
    hosts = named_hosts(question)  # a quoted image is still rendered: one from a host not named is shown as text
    return [Evidence(shortened(neutralise_links(c.shown or c.text, hosts), max_chars), c.source) for c in chosen]


def closest_to(question: str, passages: Sequence[Passage], *, limit: int = MAX_EVIDENCE) -> list[Evidence]:
    """Return the sentences of `passages` that say most about `question` beyond its own words, best first.

    For the model's refusal: small models refuse questions worded unlike the note that answers them (the 1.5B
    refused "how fast could one top-end Nvidia datacenter card run GPT-3.5?" over "one could expect 0.5-1 tokens
    per second on a single H100"), and a near miss is refused rightly. Either way the user sees what the notes read
    do say about it, verbatim, and judges. Picked as `evidence_for` picks them for an answer that says nothing
    beyond the question.
    """
    return evidence_for(question, passages, question=question, limit=limit, with_short_words=True)


def sentences_of_rivals(rivals: Sequence[Rival]) -> list[Evidence]:
    """Return the sentences the rival figures stand in, as shown, each once (see rag/answer/rival_figures.py)."""
    shown = (
        Evidence(shortened(neutralise_links(text, ()), EVIDENCE_CHARS), rival.source)
        for rival in rivals
        if (text := display(rival.sentence))
    )
    return list(dict.fromkeys(shown))


def copied_from(answer: str, passages: Sequence[Passage]) -> list[str]:
    """Return the links of the passages a sentence of which `answer` repeats word for word, in passage order.

    An answer that copies a note's sentence comes from that note, whatever it cites: the 0.5B answered "What did I
    bring to the potluck?" with the weekly review's sentences and cited only the recipe the review embeds. A
    sentence shorter than MIN_COPIED_CHARS ("Mulched with straw.") may be said in any note.
    """
    written = plain(answer)
    found = []
    for passage in passages:
        if passage.source and any(
            len(text) >= MIN_COPIED_CHARS and plain(text) in written
            for text in map(display, sentences_of(passage.text))
        ):
            found.append(passage.source)
    return list(dict.fromkeys(found))


def repeats_sentences(answer: str, passages: Sequence[Passage], *, question: str = "") -> bool:
    """Return True when `answer` repeats, word for word, a sentence of `passages` about the question.

    Such a sentence is not quoted again under the answer ("Your notes say:" leaves it out), but it is no sign that
    the notes do not bear the answer out: the 0.5B answered "What does the Important Project note say?" with the
    note's two task lines and a sentence of its own, and was shown "Closest in your notes:" for it.
    """
    beyond = frozenset(said_beyond(answer, question))
    return bool(beyond) and bool(_repeated_about(beyond, answer, passages, question_stems(question)))


def _repeated_about(
    said: frozenset[str], answer: str, passages: Sequence[Passage], wanted: frozenset[str]
) -> list[_Candidate]:
    """Return the sentences of `passages` holding some of `said` that `answer` repeats word for word.

    Only those about the question (sharing a word with it, as evidence must: an aside copied proves nothing asked),
    unless the question has no such word (`wanted` empty).
    """
    return [
        c for c in _candidates(said, passages, wanted, plain(answer)) if c.is_repeated and (c.on_topic or not wanted)
    ]


def is_borne_out(answer: str, passages: Sequence[Passage], *, question: str = "", is_whole: bool = True) -> bool:
    """Return True when a sentence of `passages` holds what `answer` says, or `answer` repeats one word for word.

    The test an answer must pass before it is shown (agent/opening_check.py). A refusal passes (it claims nothing),
    and so does an answer saying nothing beyond the question ("Yes."), when the passages say something about what
    was asked: `evidence_for` then picks those sentences. What fails is an answer whose words and numbers no sentence
    holds: the sourdough's ingredients given for "my mom's plum cake", a Kubernetes manifest the model wrote from
    its own knowledge, "Kyoto" asked which hotel was booked there.

    Withholding an answer asks for more certainty than showing a sentence under it, so one of its terms in a
    sentence sharing one word with the question, itself or by its note and heading, is enough here: the 1.5B's
    "Oma verwendet Bergkäse für die Käsespätzle." rests on "Der Bergkäse ist das ganze Rezept." in the Käsespätzle
    note. An answer saying nothing beyond the question keeps the stricter rule ("Kyoto" is no answer).

    `is_whole` False: `answer` is the start of a reply still being written, judged early to show it sooner. It must
    say enough to judge (MIN_EVIDENCE beyond the question: a number, or two longer words), and restating one
    sentence does not count: a start restates a sentence trivially ("wheat flour, whole wheat flour," of a recipe's
    "Whole wheat flour" row), whatever follows.
    """
    about = about_named(question, passages)  # rag/answer/named_subject.py
    if named_elsewhere(answer, passages, question=question, about=about):  # "Kevin Kelly", asked who wrote another's
        return False
    passages = about
    written, answer = answer, unread_links_as_text(answer, passages)  # "[[kepano]]", a value in link brackets
    said = frozenset(said_beyond(answer, question))
    if not is_whole and weight_of(said) < MIN_EVIDENCE:  # too little said yet to judge
        return False
    if not is_whole and gives_no_reason_yet(written, question=question):  # "Yes / … is not a good temperature"
        return False
    if opens_like_refusal(answer):
        return True
    if asks_for_figure(question) and not gives_figure(answer):  # asked "which year", a copied sentence dating nothing
        return False
    if gives_other_kind(answer, question=question, is_whole=is_whole):  # "1366 points" for a price, "your-blog.…"
        return False
    if read_otherwise(answer, passages, question=question):  # "€11" of "11–34" cogs, "wordpress.com" of "your-blog.…"
        return False
    if given_for_another(answer, passages, question=question):  # "36 dBm" asked for 5 GHz, given for 2.4GHz
        return False
    if given_for_another_year(answer, passages, question=question):  # "8" plants asked for 2026, of `plants_2027: 8`
        return False
    if labelled_for_another(answer, passages, question=question):  # "4.89" of a "Bits Per Weight:" row
        return False
    if misdated(answer, passages, question=question):  # "published on" a note's "created:" date, or another's
        return False
    if answers_yes_or_no_wrongly(answer, said, passages, question=question):  # "Yes" over "not an emulator"
        return False
    if copied_from(answer, passages) or undone_saying_no(answer, passages, question=question):  # "No" over "[ ] …"
        return True
    if misread_figures(answer, passages, question=question):  # "5 hours" in the fridge for 14; "114" shortened to 110
        return False
    # "Green Zebra … 3.1 kg each", which is Sungold's; as written: a link cited names no one the figure is given to
    if owned_elsewhere(written, passages, question=question):
        return False
    if given_by_another(answer, passages, question=question):  # "Solid Snake" where the sentence says "by Zero"
        return False
    if counted_elsewhere(answer, passages, question=question):  # "10" folders, of "10 Categories"; "43 folders"
        return False
    if (
        said
        and is_whole
        and (
            _restated(said, passages, answer, question_stems(question))
            or _repeats_all(said, answer, passages, question=question)
        )
    ):
        return True
    if not said and links_passages_read(answer, passages, question=question):
        return True
    if not said and asks_for_something(question):  # "nomic", asked which model was chosen "and why not nomic?"
        return False
    on_topic_words = 1 if said else ON_TOPIC_WORDS
    return bool(evidence_for(answer, passages, question=question, on_topic_words=on_topic_words, beyond=said))


def _repeats_all(said: frozenset[str], answer: str, passages: Sequence[Passage], *, question: str) -> bool:
    """Return True when sentences of `passages` about the question, each repeated word for word, hold all `said`.

    Lines too short to count as copied ("- [ ] #task ==Profit== 📅 2021-11-22") are what a list of tasks is made
    of: asked which tasks were due on a day, the 0.5B listed the two lines its passages gave, and was withheld, as
    the sentences it repeated are not shown again under an answer and so were no evidence for it. Words saying what
    the notes do (_REPORTING) claim nothing: "The notes mention QOwnNotes, Iotas and Plume." repeats three lines.
    """
    wanted = question_stems(question)  # a question with no word to be about bears out no repeated line here
    claimed = said - _REPORTING
    if not wanted or not claimed:
        return False
    repeated = _repeated_about(said, answer, passages, wanted)
    held = frozenset().union(*(c.holds for c in repeated))
    # A word the answer puts in another form than a line beside those it repeats ("flexibility" of "- Flexible", after
    # "- Spreadsheet" and "- Formulas" word for word) is held too.
    sources = {c.source for c in repeated}
    forms = frozenset().union(*(_stems(passage.text) for passage in passages if passage.source in sources))
    return all(term in held or any(is_form_of(term, word) for word in forms) for term in claimed)


# Words an answer uses to say what the notes do with what it repeats of them, not to claim anything of its own.
# Beside attribution's _ANSWER_WORDS ("according", "says", "mentioned"), which no text's terms ever hold: a note's
# "list" or "include" is its content, so these are set aside only here, where every other word is a repeated line's.
_REPORTING = frozenset(
    stem(word)
    for word in (
        "mention", "mentions", "mentioned", "list", "lists", "listed", "include", "includes", "including",
        "contain", "contains", "describe", "describes", "discuss", "discusses", "cover", "covers", "following",
        "several", "various", "items", "also", "note", "noted", "notes", "wrote", "written",
        # Where in a note it says so: "This is stated in the note [[…]] under the "Settings" section." (the 1.5B)
        "section", "sections", "heading", "headings", "under",
        # What frames a code block it repeats: "You can use the following command:\n```sh\nsystemctl restart …"
        "command", "commands", "snippet", "formula", "code",
    )
)  # fmt: skip


def _restated(said: frozenset[str], passages: Sequence[Passage], answer: str, wanted: frozenset[str]) -> bool:
    """Return True when one sentence of `passages` holds most of what an answer says (RESTATED_SHARE of it, or more).

    Such an answer restates that sentence, whether or not the sentence shares a word with the question: the 1.5B
    answered "What therapy did I get for my neck?" with "I got Transcutaneous Electrical Nerve Stimulation (TENS) /
    Electropathy from my cervical spine.", the note's "What I got for my cervical spine: Transcutaneous Electrical
    Nerve Stimulation (TENS) / Electropathy" in other order. The sourdough's ingredients given for a plum cake are
    spread over the recipe's rows, each holding less. But a sentence about the notes it links, restated without
    them, is said of something else (`_said_of_another`). `wanted`: the question's words (`question_stems`).
    """
    whole = weight_of(said)
    if whole < RESTATED_MIN_WEIGHT:
        return False
    for passage in passages:
        for sentence in sentences_of(passage.text):
            held = weight_of(said & terms_of(sentence, bare_numbers=True))
            is_most = held >= RESTATED_MIN_WEIGHT and held >= RESTATED_SHARE * whole
            if is_most and not _said_of_another(sentence, answer, wanted):
                return True
    return False


def _said_of_another(sentence: str, answer: str, wanted: frozenset[str]) -> bool:
    """Return True for a sentence about the notes it links, which an answer restates naming none of them.

    Asked for the ingredients of "my mom's plum cake", a note not written yet, the 1.5B wrote "[[Mom's Plum Cake]] —
    the weekend loaf; recipe only" over the Kitchen MOC's "[[Sourdough]] — the weekend loaf; [[Sourdough#Final
    recipe|recipe only]]": the sourdough's words, given to the cake. A sentence sharing a word with the question is
    about what was asked, whatever it links.
    """
    linked = {note_title(match[0]).casefold() for match in WIKILINK.finditer(sentence)}
    if not linked or _shared(_stems(sentence), wanted):
        return False
    named = plain(answer).casefold()
    return not any(title in named for title in linked)


def _is_evidence(
    new: int, on_topic: int, *, first: bool, said: frozenset[str], on_topic_words: int, is_label: bool = False
) -> bool:
    """Return whether a sentence holding `new` weight of the answer's terms not yet shown is worth showing.

    A further sentence needs MIN_EVIDENCE. The first needs as much, or all the answer says when that is less, or
    one of its terms in a sentence holding ON_TOPIC_WORDS of the question's: "You planted 24 cloves of Germidour",
    asked how many garlic cloves were planted, has only "Germidour" in the sentence that says 42 (and plants and
    cloves). Not in a label (`_is_label`), which states nothing: the 0.5B's "… switched off … because it is not
    compatible with Wayland." had rested on an outline's "**Wayland Compositors**" (its note's heading: "Display").
    """
    if not first:
        return new >= MIN_EVIDENCE
    return new >= min(MIN_EVIDENCE, weight_of(said)) or (new >= 1 and on_topic >= on_topic_words and not is_label)


LABEL_MAX_WORDS = 3  # "**Wayland Compositors**", "- Types of Yoga": a line naming something, saying nothing of it


def _is_label(sentence: str) -> bool:
    """Return True for a line of a few words and no figure: an outline's or a list's label, not a statement."""
    words = _LABEL_WORDS.findall(sentence)
    return len(words) <= LABEL_MAX_WORDS and not any(char.isdigit() for char in sentence)


_LABEL_WORDS = re.compile(r"[^\W\d_]+")


def _candidates(
    said: frozenset[str],
    passages: Sequence[Passage],
    wanted: frozenset[str],
    answer: str,
    days: frozenset[str] = frozenset(),
) -> list[_Candidate]:
    """Return the sentences of `passages` holding something of `said`, each with how on topic it is.

    On topic: the question's words (`wanted`) it or its note and heading (or properties record) share; else one of
    the days the question names (`days`, rag.answer.dates.day_keys), in any form: asked "How far did I run on
    2026-11-15?", whose only long word is its year, the running log's "Sun 15 Nov: long run 13 km" is about that day.
    """
    found: list[_Candidate] = []
    short = any(len(term) == 3 and term.isalpha() for term in said)  # the question's three-letter words are sought
    for rank, passage in enumerate(passages):
        if not passage.source:  # a tool result without a note: nothing to link to
            continue
        where = _stems(passage.source) & wanted
        # A properties record's rows are about what its rows name: "year: 1992" beside "author: [[Kevin Kelly]]";
        # by the least a sentence may be, so that a sentence saying "42 cloves of Germidour" itself comes first. What
        # they name are their values: every book's record has a "year" row, and asked "Who wrote The Machine Stops,
        # and in which year …?", the 0.5B's "Kevin Kelly" rested on Out of Control's "author: [[Kevin Kelly]]".
        record = record_text(passage.text)
        in_record = bool(_stems(" ".join(row["value"] for row in PROPERTY_ROW.finditer(record))) & wanted)
        source_on_day = bool(days) and days_meet(days, day_keys(passage.source))
        for place, text in enumerate(quotable_sentences(passage)):
            holds = frozenset(said & (terms_of(text, bare_numbers=True) | (short_words(text) if short else set())))
            if holds:
                # A sentence giving days of its own is of those ("Wed 11 Nov: 8 km" under "Week 46 (9 – 15 Nov)").
                own_days = day_keys(text) if days else frozenset()
                on_day = days_meet(days, own_days) if own_days else source_on_day
                on_topic = len(_shared(_stems(text), wanted) | where) or int(on_day) or int(in_record)
                order = rank * 10_000 + place
                shown = with_neighbour(passage).get(text, "")
                is_row = bool(record) and bool(PROPERTY_ROW.match(text))
                repeated = plain(text) in answer
                found.append(_Candidate(text, passage.source, holds, on_topic, order, repeated, shown, is_row))
    return found


def _shared(stems: frozenset[str], wanted: frozenset[str]) -> frozenset[str]:
    """Return the question's stems (`wanted`) a sentence's `stems` hold, each itself or as a compound's last part.

    German writes compounds as one word, the kind it names last: asked "Welchen Käse nimmt Oma?", the recipe's
    "250 g würziger Bergkäse" is about the cheese asked for.
    """
    return frozenset(
        word
        for word in wanted
        if word in stems or (len(word) >= COMPOUND_HEAD_LETTERS and any(_is_compound_of(stem, word) for stem in stems))
    )


def _is_compound_of(word: str, head: str) -> bool:
    """Return True when `word` is `head` with a word of its own before it ("bergkäse" of "käse")."""
    return len(word) - len(head) >= COMPOUND_HEAD_LETTERS and word.endswith(head)  # "rezept" is no kind of "zept"


def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(word.casefold()) for word in _WORD.findall(text))
