"""A name given for "who", where the sentence saying what the answer claims names someone else.

Asked "In my Metal Gear notes, who gives Naked Snake the title Big Boss, and after what?" over vaultofknowledge,
Qwen2.5-Coder 0.5B answered "Solid Snake gives Naked Snake the title Big Boss after killing The Boss." The notes say
"After killing The Boss, he got the title of Big Boss by Zero, a member of the American Philosophers." Every word of
the answer is in the note (Solid Snake is in its plot too), so the word test bears it out: what is wrong is who.

The test is narrow: the question asks who (whom, whose; "wer", "wen", "wem"), the answer names someone the question
does not (a run of capitalised words, its first word counted), and says something beyond the question besides that
name ("killing"). The sentences of the passages holding most of that claim and of the question's words are the ones
saying it; when none of them (with the sentence before it, its note and heading) names the answer's person, and one
of them names another the question does not, those are the rivals: the answer is withheld and they are shown first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.attribution import WIKILINK, Passage, said_beyond, terms_of
from rag.answer.excerpts import answer_sentences, question_stems, sentences_of, stem
from rag.answer.named_subject import name_runs
from rag.answer.quote_words import WORDS, normalised
from rag.answer.rival_figures import Rival

# A question asking who: opening on the word, or a part of it doing so ("…, and who treated me?"), or after a
# preposition ("by whom"); not a relative clause ("a site whose theme I changed").
_ASKS_WHO = re.compile(
    r"(?:^|[,;]\s*(?:and\s+|und\s+)?|\b(?:and|und)\s+|\b(?:by|to|from|with|for|of|von|mit|für)\s+)"
    r"(?:who|whom|whose|wer|wen|wem|wessen)\b",
    re.IGNORECASE,
)
# Words an answer's first sentence may open with that name no one: "No. …", "The …", "In my notes, …".
_OPENERS = frozenset(("yes", "no", "the", "in", "according", "based", "my", "your", "ja", "nein", "laut", "der", "die"))
MIN_QUESTION_WORDS = 2  # a sentence saying the claim shares this many of the question's words, or all it has


def asks_who(question: str) -> bool:
    """Return True when `question`, or a part of it, asks who ("Who chairs …?", "…, and who treated me?")."""
    return _ASKS_WHO.search(question) is not None


def given_by_another(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the sentences saying what `answer` claims that name another person than the one it gives for who."""
    if not asks_who(question):
        return []
    if roles := role_of_another(answer, passages, question=question):
        return roles
    statements = answer_sentences(WIKILINK.sub(" ", answer))
    asked = {word.casefold() for word in WORDS.findall(normalised(question))}
    given = [
        run
        for run in name_runs(statements[0] if statements else "")
        if not {word.casefold() for word in run} <= asked | _OPENERS
    ]
    if not given:
        return []
    given_words = {word.casefold() for run in given for word in run}
    named = given_words | {stem(word) for word in given_words}  # the name's words as terms are weighed: by stem
    claim = {term for term in said_beyond(answer, question) if not {term, *term.split()} & named}
    if not claim:
        return []
    wanted = question_stems(question)
    least = min(MIN_QUESTION_WORDS, len(wanted))
    scored = []
    for passage in passages:
        sentences = sentences_of(passage.text)
        for at, sentence in enumerate(sentences):
            terms = terms_of(sentence)
            held, shared = len(claim & terms), len(wanted & question_stems(sentence))
            if held and shared >= least:
                scored.append((held + shared, at, sentence, passage, sentences))
    if not scored:
        return []
    best = max(score for score, *_ in scored)
    saying = [entry for entry in scored if entry[0] == best]
    if any(_names_any(given, passage, sentences, at) for _, at, _, passage, sentences in saying):
        return []
    return [
        Rival(figure=" ".join(given[0]), sentence=sentence, source=passage.source)
        for _, _, sentence, passage, _ in saying
        if any(not {w.casefold() for w in run} <= asked | given_words for run in name_runs(sentence))
    ]


def _names_any(given: list[list[str]], passage: Passage, sentences: list[str], at: int) -> bool:
    """Return True when the sentence at `at`, the one before it, or the passage's note and heading name a `given`."""
    around = " ".join([passage.source, sentences[at - 1] if at else "", sentences[at]])
    named = " ".join(WORDS.findall(normalised(around))).casefold()
    return any(_is_named(" ".join(run), named) for run in given)


# A name with its role in brackets after it, as meeting notes list attendees: "Piotr Kowalski (treasurer)".
_NAME_ROLE = re.compile(r"([^\W\d_][\w.'-]*(?:[ \t]+[^\W\d_][\w.'-]*){0,3})[ \t]*\(([^()\n]{1,40})\)")


def role_of_another(answer: str, passages: Sequence[Passage], *, question: str) -> list[Rival]:
    """Return the sentences giving the role asked for to another than the person `answer` names, who has another.

    Asked "Who is the treasurer of the allotment association?", the 0.5B answered "Herr Albrecht" over the meeting's
    "attendees: Brigitte Sommer (chair), Piotr Kowalski (treasurer), Herr Albrecht (nature officer)": one sentence
    holds every name, so no word test tells them apart. [] when the answer names a holder of the role, or no one
    the notes give a role.
    """
    asked = question_stems(question)
    pairs = [
        (name.strip(), role, sentence, passage)
        for passage in passages
        for sentence in sentences_of(passage.text)
        for name, role in _NAME_ROLE.findall(sentence)
    ]
    holders = [pair for pair in pairs if question_stems(pair[1]) & asked]
    named = " ".join(WORDS.findall(normalised(WIKILINK.sub(" ", answer)))).casefold()
    if not holders or any(_is_named(pair[0], named) for pair in holders):
        return []
    if not any(_is_named(pair[0], named) for pair in pairs if pair not in holders):
        return []
    return [Rival(figure=name, sentence=sentence, source=passage.source) for name, _, sentence, passage in holders]


def _is_named(name: str, named: str) -> bool:
    """Return True when the words of `name` stand together in `named` (the answer's words, folded)."""
    words = " ".join(WORDS.findall(normalised(name))).casefold()
    return bool(words) and f" {words} " in f" {named} "
