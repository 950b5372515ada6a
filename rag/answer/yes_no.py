"""A "Yes" the notes deny: a yes-or-no question answered against the sentence that says "not".

Small models lean to "Yes". Asked "Is it an emulator?" after questions about Wine, the 1.5B answered "Yes, an
emulator will have to emulate the entire underlying hardware …", a sentence copied from the Wine note, which says
twice that Wine is not an emulator. Every word of it is the note's, so the word tests bear it out. What they cannot
see is the answer's polarity: the sentences saying most about what was asked deny it ("it is not an emulator").

Code reads that much and no more: a "Yes" opening an answer to a question asking only yes or no, where one of the
sentences sharing most of the question's words puts a negation right before one of them ("not an emulator", "does
not help", "not on Windows"), or an answer saying it without "Yes" ("Wine is an emulator.", `affirmed_denials`).
Code replies in its place NOT_SO over those sentences (`denials`; see agent/opening_check.py). A "Yes" whose own
words then deny what was asked is withheld too (`denies_itself`). A "No" is not judged against the notes, as a
sentence affirming is rarely worded as the question is ("The Pi stays on" for "Is the Pi still running?"), but a bare
"No" is shown only over a sentence denying (`bare_no_unsupported`), that sentence first. A "Yes" or "No" resting on
what the notes do not say is withheld (`from_silence`). Neither is released before the sentence after it ends.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from rag.answer.attribution import WIKILINK, Passage
from rag.answer.choices import passed_over
from rag.answer.citations import heading_in, note_title
from rag.answer.context import opens_like_refusal
from rag.answer.excerpts import answer_sentences, question_stems, sentences_of, stem
from rag.answer.planned_acts import planned_not_done
from rag.answer.question_kind import asks_only_yes_or_no
from rag.answer.rival_figures import Rival
from rag.answer.undone_notes import open_tasks_asked, undone_notes_asked

NOT_SO = "Not according to your notes."  # code's reply in place of a "Yes" they deny, over the sentences denying it
NEGATION_REACH = 3  # words from a negation to the word it denies: "not (1) an (2) emulator (3)", "not on Windows"
MIN_SHARED = 2  # question words a denying sentence holds (with its note's title and heading), or all of the question's

# An answer opening on its polarity ("Yes, …", "**Yes**.", "Ja, …"); "Correct." answers a yes-or-no question too. The
# answer to the first of a question's numbered parts opens on its number: "1. Yes, Wine is an emulator." (the 0.5B).
_NUMBERED = r"(?:\d+[.)]\s+[\W_]*)?"
_OPENS_YES = re.compile(rf"^[\W_]*{_NUMBERED}(?:yes|yeah|yep|ja|correct)\b", re.IGNORECASE)
_OPENS_NO = re.compile(rf"^[\W_]*{_NUMBERED}(?:no|nope|nein)\b", re.IGNORECASE)
_WORD = re.compile(r"\w+(?:'\w+)?")
_LIST_NUMBER = re.compile(rf"^{_NUMBERED}")  # "1. Wine is …", "2) **It** …": the number before a part's answer
# Words denying what follows them (English and German, as the notes here): "isn't" and "doesn't" by their ending.
_NEGATIONS = frozenset(
    {"not", "never", "no", "cannot", "neither", "nor", "without", "nicht", "nie", "niemals", "kein", "keine", "keinen"}
    | {"keiner", "keines", "keinem"}
)
# Verbs of giving something up: a question asking about doing so is not denied by a sentence saying "no" to the thing.
_GIVING_UP = frozenset(
    stem(word)
    for word in (
        "stop", "stops", "stopped", "stopping", "quit", "quits", "quitting", "avoid", "avoids", "avoided", "avoiding",
        "skip", "skips", "skipped", "skipping", "ditch", "ditched", "cut", "cuts", "drop", "drops", "dropped",
        "aufhören", "aufgehört", "verzichten", "verzichtet", "weglassen", "weggelassen",
    )
)  # fmt: skip
# The yes-or-no part a question opens on, before a part asking for something ("…, and which …?", "…; what …?").
_FIRST_CLAUSE = re.compile(
    r"^(?P<part>[^,;?]+?)\s*(?:,\s*and\b|;|,\s*(?=(?:which|what|who|how|where|when|why)\b))", re.I
)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
_FIRST_SENTENCE = re.compile(r"^.*?(?:[.!?](?=\s|$)|\n|$)", re.DOTALL)


def opens_with(answer: str) -> str | None:
    """Return "yes" or "no" when `answer` opens on it ("Yes, Wine …", "No."), None otherwise."""
    if _OPENS_YES.match(answer):
        return "yes"
    if _OPENS_NO.match(answer):
        return "no"
    return None


def reads_as(answer: str) -> str | None:
    """Return how `answer` replies to a yes-or-no question: by its first word, or else by its first sentence.

    "Wine is not an emulator." reads as "no", "Iotas stores its data in SQLite." as "yes"; an empty answer as None.
    """
    if (opening := opens_with(answer)) is not None:
        return opening
    first = _FIRST_SENTENCE.match(answer.strip())
    words = _words(first[0]) if first else []
    if not words:
        return None
    return "no" if any(_is_negation(word) for word in words) else "yes"


def answers_yes_or_no_wrongly(
    answer: str, said: AbstractSet[str], passages: Sequence[Passage], *, question: str
) -> bool:
    """Return True for a "Yes" the notes or its own words deny, or a "No" bare or from silence (see above)."""
    return (
        bool(denials(answer, passages, question=question))
        or denies_itself(answer, question=question)
        or affirms_itself(answer, question=question)
        or bare_no_unsupported(answer, said, passages, question=question)
        or from_silence(answer, question=question)
    )


def denies_itself(answer: str, *, question: str) -> bool:
    """Return True for a "Yes" whose own words then deny what was asked.

    The 1.5B, told to reply yes or no first: "Yes / The note … states that at 150 °C the flakes burned …,
    indicating that 150 °C is not a good temperature for pouring the chili oil." So does one saying that what it was
    asked whether was done is still to come (rag/answer/planned_acts.py): "Yes / … it is time to replace the
    cassette." (the 1.5B, asked "Did I replace the cassette when my commuter bike skipped gears?").
    """
    if not _judged(answer, question, reply="yes"):
        return False
    wanted = question_stems(_yes_or_no_part(question))
    reason = _after_opening(answer)
    if any(_denied(sentence, wanted) for sentence in answer_sentences(reason)):
        return True
    return bool(planned_not_done([Passage("", WIKILINK.sub(" ", reason))], question=question))


def affirms_itself(answer: str, *, question: str) -> bool:
    """Return True for a "No" whose own words then say what was asked, every word of it and no negation.

    The 1.5B, told to reply yes or no first: "No / The note … states that … time to fall asleep dropped from about 35
    minutes to 15. This directly indicates that caffeine cut-off helped me fall asleep faster."
    """
    if not _judged(answer, question, reply="no"):
        return False
    wanted = question_stems(_yes_or_no_part(question))
    return len(wanted) >= MIN_SHARED and any(
        wanted <= {stem(word) for word in words} and not any(_is_negation(word) for word in words)
        for sentence in answer_sentences(_after_opening(answer))
        if (words := _words(sentence))
    )


def gives_no_reason_yet(answer: str, *, question: str) -> bool:
    """Return True for the start of a "Yes" or "No" to a question asking only that, before its first sentence ends.

    It is judged early, to show it sooner, only with the sentence after it: the chili oil's "not a good temperature"
    came at the end of the sentence, after the words the check had found in the note; "No. The notes do not mention
    Haiku …" gives the "No" no reason (`from_silence`).
    """
    if _judged(answer, question):
        return not _SENTENCE_END.search(_after_opening(answer))
    # One saying it without "Yes" is judged by its first sentence (`affirmed_denials`): "1. Wine is an" says nothing.
    stated = _LIST_NUMBER.sub("", answer.lstrip(), count=1)
    return opens_with(answer) is None and bool(_yes_or_no_part(question)) and not _SENTENCE_END.search(stated)


def from_silence(answer: str, *, question: str) -> bool:
    """Return True for a "Yes" or "No" resting on what the notes do not say ("No. The notes do not mention Haiku …").

    A reply must be what the notes say: told to reply "No" if they say it is not so, the 1.5B answered "Does it run
    Windows programs on Haiku?" so after "What is Wine?", over the Wine note's "… on other operating systems such as
    UNIX systems, Haiku, etc.". Withheld, the refusal quotes that sentence first. A "Yes" so says nothing at all.
    """
    return _judged(answer, question) and opens_like_refusal(_after_opening(answer))


def denials(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the sentences of `passages` that deny what `answer`'s "Yes" affirms ([] when none do, or no "Yes").

    Those putting a negation before a word asked about, and the `status:` row of a note asked whether it was done
    that says it was not (rag/answer/undone_notes.py: "Did I file the tax return?" over `status: in-progress`).
    """
    if _judged(answer, question, reply="yes"):
        return [
            *denied_in(passages, question=question),
            *undone_notes_asked(passages, question=question),
            *open_tasks_asked(passages, question=question),  # "Yes" over "[ ] … sell the spare Pi case"
            *planned_not_done(passages, question=question),  # "Yes" over "Cassette replacement is … due next spring"
            *passed_over(passages, question=question),  # "Yes" to "Did I choose nomic?" under a decision for bge
        ]
    return affirmed_denials(answer, passages, question=question)


def affirmed_denials(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the denying sentences whose denied word `answer` affirms without a "Yes" ([] when none).

    The 0.5B answered "Is Wine an emulator, and which …?" with "1. Wine is an emulator.", every word of it in the
    Wine note, which says "it is not an emulator". An answer opening on neither "Yes" nor "No" is judged so only when
    its first sentence holds a word the notes deny and no negation: "Wine is a compatibility layer." names no
    emulator, and reads as the answer it is.
    """
    if opens_with(answer) is not None or not _yes_or_no_part(question):
        return []
    first = _FIRST_SENTENCE.match(_LIST_NUMBER.sub("", answer.strip(), count=1))
    words = _words(first[0]) if first else []
    if not words or any(_is_negation(word) for word in words):
        return []
    stated = {stem(word) for word in words}
    return [rival for rival in denied_in(passages, question=question) if stem(rival.figure.split()[-1]) in stated]


def sentences_saying_no(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the sentences denying what was asked, for a "No" to a question asking only yes or no ([] otherwise).

    Shown first under it: the 0.5B's bare "No" to "Does Plume support images for free?" was shown over a sentence on
    free licences holding the question's words, not over what the notes deny.
    """
    if not _judged(answer, question, reply="no"):
        return []
    return [*denied_in(passages, question=question, best_only=False), *_undone(passages, question=question)]


def undone_saying_no(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the tasks not done, or acts still to come, that name what a "No" denies was done ([] otherwise).

    Enough to bear it out. The 0.5B replies a bare "No" to every question asking yes or no; to "Did I paint the
    garden shed?" over "- [-] Paint the shed — too cold, next spring" (rag/answer/undone_notes.open_tasks_asked) it
    is right, though the task shares too few of the question's words to bear it out as a sentence; so to "Did I
    replace the cassette …?" over "Cassette replacement is probably due next spring" (rag/answer/planned_acts.py).
    """
    return _undone(passages, question=question) if _judged(answer, question, reply="no") else []


def _undone(passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the tasks not done and the acts still to come that name what `question` asks whether was done."""
    return [*open_tasks_asked(passages, question=question), *planned_not_done(passages, question=question)]


def bare_no_unsupported(answer: str, said: AbstractSet[str], passages: Sequence[Passage], *, question: str) -> bool:
    """Return True for a "No" saying nothing more (`said`: its words beyond the question) that no sentence denies.

    Told to reply yes or no first, the 0.5B replied "No." and nothing else to all nine of sample_vault's yes-or-no
    questions, five of them rightly: a bare "No" is shown only over a sentence saying so ("Doesn't help: foam
    rolling the IT band" for "Did foam rolling help my knee?"), as a bare "Yes" only over sentences about the question.
    """
    if said or not _judged(answer, question, reply="no"):
        return False
    return not sentences_saying_no(answer, passages, question=question)


def denied_in(passages: Sequence[Passage], *, question: str, best_only: bool = True) -> list[Rival]:
    """Return the sentences of `passages` denying what `question` asks, of those saying most about it.

    The sentences judged are those holding most of the question's words (at least MIN_SHARED, or all of a question
    with fewer), counting their note's title and heading: "it is not an emulator" in the Wine note holds "Wine".
    `best_only` False: any holding that many, as bears out a "No" ("you cannot get it back", asked whether the
    new-site trick brings Sela back to a site whose theme was changed, holds three words where another holds five).
    """
    wanted = question_stems(_yes_or_no_part(question) or question)
    if not wanted:
        return []
    scored: list[tuple[int, str, Passage]] = []
    for passage in passages:
        around = {stem(word) for word in _words(f"{note_title(passage.source)} {heading_in(passage.source)}")}
        for sentence in sentences_of(passage.text):
            stems = [stem(word) for word in _words(sentence)]
            shared = len(wanted & (around | set(stems)))
            scored.append((shared, sentence, passage))
    least = min(MIN_SHARED, len(wanted))
    best = max((shared for shared, _, _ in scored), default=0)
    if best < least:
        return []
    # Asked about giving something up ("did I stop having coffee …"), "no coffee after lunch" says it was given up:
    # only a sentence denying the giving up itself ("did not stop") denies what was asked.
    giving_up = wanted & _GIVING_UP
    return [
        Rival(figure=denied, sentence=sentence, source=passage.source)
        for shared, sentence, passage in scored
        if (shared == best or (not best_only and shared >= least))
        and (denied := _denied(sentence, giving_up or wanted))
    ]


def _after_opening(answer: str) -> str:
    """Return what follows an answer's "Yes" or "No" ("No. The notes …" -> "The notes …")."""
    rest = _OPENS_NO.sub("", _OPENS_YES.sub("", answer, count=1), count=1)
    return rest.lstrip(" \t\n.,:;!-\u2014*")


def _judged(answer: str, question: str, *, reply: str | None = None) -> bool:
    """Return True for an answer opening on `reply` ("yes", "no"; None: either) to a question asking yes or no.

    The question asks it alone or first, and denies nothing itself (see `_yes_or_no_part`).
    """
    opening = opens_with(answer)
    return opening is not None and reply in (None, opening) and bool(_yes_or_no_part(question))


def _yes_or_no_part(question: str) -> str:
    """Return what of `question` asks only yes or no, after the questions it follows ("" for none).

    A follow-up is judged in its context (rag.follow_up.in_context: "What is Wine?", then "Is it an emulator?" on the
    next line), whose last line is the question. A question may open on a yes-or-no part: "Is Wine an emulator, and
    which Vulkan-based implementations of Direct3D do my notes list?" was answered "Yes, Wine is an emulator. …" by
    the 1.5B; that part is judged, with its own words. One denying ("Is it true that Nix does not run on Windows?") is
    rightly answered "Yes, it does not …": none.
    """
    *before, asked = question.strip().split("\n")
    if not asks_only_yes_or_no(asked):
        opening = _FIRST_CLAUSE.match(asked)
        asked = f"{opening['part']}?" if opening and asks_only_yes_or_no(f"{opening['part']}?") else ""
    if not asked or any(_is_negation(word) for word in _words(asked)):
        return ""
    return "\n".join([*before, asked])


def _denied(sentence: str, wanted: frozenset[str]) -> str:
    """Return the words of `sentence` from a negation to a `wanted` word it denies ("not an emulator"), or ""."""
    words = _words(sentence)
    for start, word in enumerate(words):
        if not _is_negation(word):
            continue
        for end in range(start + 1, min(start + 1 + NEGATION_REACH, len(words))):
            if stem(words[end]) in wanted:
                return " ".join(words[start : end + 1])
    return ""


def _words(text: str) -> list[str]:
    return [word.casefold() for word in _WORD.findall(text.replace("\u2019", "'"))]  # "doesn’t" as "doesn't"


def _is_negation(word: str) -> bool:
    return word in _NEGATIONS or word.endswith("n't")
