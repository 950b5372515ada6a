"""Whether a question asks for something to name, only for a yes or a no, for an amount, or about a topic."""

from __future__ import annotations

import re

from rag.answer.days_named import names_a_day

# A question asking for a thing, a time, a place, a reason or a way opens on one of these (English and German, the
# languages the notes here are written in), at its start or after a comma or "and": "…, and why not nomic?". Not
# German "was", which opens English yes-or-no questions too ("Was it worth it?").
_ASKS_FOR = re.compile(
    r"(?:^|[,;:]\s*|\band\s+|\bund\s+)"
    r"(?:which|what|who|whom|whose|when|where|why|how"
    r"|welche[rsnm]?|wer|wen|wem|wessen|wann|wo|wohin|woher|warum|weshalb|wieso|wie)\b",
    re.IGNORECASE,
)
# "… bge or nomic?": the question names what may answer it, so an answer naming nothing more still answers it.
_OFFERS_CHOICE = re.compile(r"\b(?:or|oder)\b", re.IGNORECASE)
# A question opening on a yes-or-no part ("Is Wine an emulator, and which …?") is answered in part by "No.".
_YES_OR_NO_OPENING = re.compile(
    r"^(?:is|are|was|were|am|do|does|did|can|could|will|would|should|shall|has|have|had|may|might|must"
    r"|ist|sind|war|waren|hat|habe|hast|haben|kann|kannst|gibt|wird|muss|soll)\b",
    re.IGNORECASE,
)


def asks_for_something(question: str) -> bool:
    """Return True when `question` asks for something to be named ("Which model did I choose?"), not a yes or no.

    An answer to it that says nothing beyond the question's own words answers nothing: the 0.5B replied "nomic" to
    "Which embedding model did I choose for the librarian, and why not nomic?". A question offering a choice ("Did I
    pick bge or nomic?", "Which did I choose, bge or nomic?") is answered by one of its own words, and one opening
    on a yes-or-no part by "No." ("Is Wine an emulator, and which …?": the 0.5B's "No, Wine is not an emulator.").
    """
    text = question.strip()
    return bool(_ASKS_FOR.search(text)) and not _OFFERS_CHOICE.search(text) and not _YES_OR_NO_OPENING.match(text)


def asks_only_yes_or_no(question: str) -> bool:
    """Return True when `question` asks only for a yes or a no ("Is Wine an emulator?"), not for a choice or a name.

    Not "Is Wine an emulator, and which …?" (a part asks for a name), nor "Did I pick bge or nomic?" (a choice), nor
    a request put as a question ("Can you list my notes on X?", "Do you know what …?").
    """
    text = question.strip()
    if _REQUEST.match(text) or _ASKS_FOR.search(text) or _OFFERS_CHOICE.search(text):
        return False
    return bool(_YES_OR_NO_OPENING.match(text))


_REQUEST = re.compile(r"^(?:can|could|would|will|do)\s+you\b", re.IGNORECASE)


# A question asking for an amount or a time, which no note's name gives ("How much did the cassette cost?").
_ASKS_FOR_AMOUNT = re.compile(
    r"\b(?:how (?:much|many|long|often|far|old|big|fast)|when|what (?:time|date|year|day)|which (?:date|year|day)"
    r"|wie (?:viel|viele|lange|oft|weit|alt)|wann)\b",
    re.IGNORECASE,
)


# A question asking for a day or a year ("When did I plant it?", "On which date is the race?").
_ASKS_WHEN = re.compile(
    r"\b(?:when|(?:what|which) (?:date|day|year|month)|wann|an welchem tag|in welchem jahr)\b", re.IGNORECASE
)


def asks_for_amount_anywhere(question: str) -> bool:
    """Return True when any part of `question` asks for an amount or a time ("How many cloves, and which variety?")."""
    return bool(_ASKS_FOR_AMOUNT.search(question))


def asks_when(question: str) -> bool:
    """Return True when `question` asks for a day or a year: a date in the notes may answer it."""
    return bool(_ASKS_WHEN.search(question))


# A question asking for a thing, a person or a place, which a note's name may give ("Which book …?").
_ASKS_FOR_NAME = re.compile(
    r"\b(?:(?:which|what)(?!\s+(?:time|date|year|day)\b)|who|whom|whose|where|welche[rsnm]?|wer|wen|wem|wo)\b",
    re.IGNORECASE,
)


def asks_for_amount(question: str) -> bool:
    """Return True when `question` asks only for an amount or a time, which a link to a note does not give.

    The 1.5B, asked the near miss "How much did the new cassette for my commuter bike cost?", answered
    "[[Bike Repair Notes#For next time]] [[Bike Repair Notes]]". A question that also asks which thing ("Which
    book by Kevin Kelly have I noted, and when was it published?") may be answered in part by a link.
    """
    return bool(_ASKS_FOR_AMOUNT.search(question)) and not _ASKS_FOR_NAME.search(question)


# A question asking for a value no note's name is: an address, a phone number, a password, a port or a version.
_ASKS_FOR_VALUE = re.compile(
    r"\b(?:what|which|welche[rsnm]?|wie)\b[^?]*\b(?:address|url|e-?mail|phone|password|port|version|ip"
    r"|adresse|telefonnummer|passwort|kennwort)\b",
    re.IGNORECASE,
)


def asks_for_value(question: str) -> bool:
    """Return True when `question` asks for an address, a number to call, a password, a port or a version.

    A link to a note gives none of them: the 1.5B answered "What is the address of my own WordPress blog that uses
    the Sela theme?", which no note gives, with "[[How I revived Sela#For a new site (my trick)]]".
    """
    return bool(_ASKS_FOR_VALUE.search(question))


# A question asking for a count, a sum, a length of time, a frequency or a date, which an answer states by a figure or
# a word for one. Not "when" (answered by an event as well: "after the move") nor "how big", "how fast" ("tiny").
_ASKS_FOR_FIGURE = re.compile(
    r"\b(?:how (?:much|many|long|often)|(?:what|which|in which|in what) (?:year|date|time)"
    r"|wie (?:viel|viele|lange|oft)|in welchem jahr)\b",
    re.IGNORECASE,
)
# What states such a figure besides digits: number and quantity words, and words for times, spans and frequencies.
_FIGURE_WORDS = re.compile(
    r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|hundreds?|thousands?"
    r"|(?:thir|four|fif|six|seven|eigh|nine)teen|(?:twen|thir|for|fif|six|seven|eigh|nine)ty"
    r"|millions?|dozens?|half|once|twice|none|no|nothing|free|single|couple|few|several|many|all|every|each"
    r"|january|february|march|april|may|june|july|august|september|october|november|december"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|yesterday|tomorrow|tonight|overnight"
    r"|morning|afternoon|evening|night|noon|midnight|spring|summer|autumn|fall|winter|daily|weekly|monthly"
    r"|yearly|annually|hourly|seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|ago|since|until|till"
    r"|while|briefly|forever|never|always|often|sometimes|rarely|usually|recently|soon"
    r"|null|eins?|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|hundert|tausend|halb|einmal|zweimal"
    r"|keine?n?|nichts|kostenlos|umsonst|alle|jede[nrs]?|heute|gestern|morgen|nie|immer|oft|manchmal|täglich"
    r"|wöchentlich|monatlich|jährlich|sekunden?|minuten?|stunden?|tage?n?|wochen?|monate?n?|jahre?n?|seit|bis)\b",
    re.IGNORECASE,
)


def asks_for_figure(question: str) -> bool:
    """Return True when `question` asks only for a count, a sum, a span, a frequency or a date.

    An answer to it stating none answers something else: the 1.5B answered "In which year was cdmaOne first
    launched commercially?", which no note dates, with the note's "cdmaOne was the first technology that made use
    of the CDMA access method." (`gives_figure`).
    """
    return bool(_ASKS_FOR_FIGURE.search(question)) and not _ASKS_FOR_NAME.search(_ASKS_FOR_FIGURE.sub(" ", question))


def gives_figure(answer: str) -> bool:
    """Return True when `answer` states a figure: a digit, or a word for a number, a quantity, a time or a span."""
    return any(character.isdigit() for character in answer) or bool(_FIGURE_WORDS.search(answer))


# What a request may open with before what it asks: "please", "ok,", "can you" (at the message's start).
POLITE_OPENING = r"^(?:(?:please|pls|hey|ok|okay)[,!]?\s+)?(?:(?:can|could|would|will) you(?: please)?\s+)?"
# A request for what the notes say about a topic, not for one fact: "Summarize my notes on X", "What do I think about
# X?", "Tell me about X", "What did I do on Monday?", "Was steht in meinen Notizen über X?". Only at the message's
# start ("please", "can you" may come first): "How do I explain X to my team?" asks for a way.
_ABOUT_TOPIC = re.compile(
    POLITE_OPENING + r"(?:"
    r"summari[sz]e|sum up|recap|give me (?:an? )?(?:overview|summary|rundown|recap)"
    r"|tell me (?:about|everything|what (?:i|my notes|the notes) (?:say|know|think|wrote|have))"
    r"|what (?:do|did) (?:i|my notes|the notes) (?:say|think|know|write|note|have|learn)(?: down)? (?:about|on|of)"
    r"|what (?:have|had) i (?:written|noted|said|learned|learnt|found out|got) (?:down )?(?:about|on)"
    r"|what(?:'s| is| do i have) in my notes (?:about|on)|what are my (?:notes|thoughts|ideas) (?:on|about)"
    r"|fass(?:e)? .{1,80} zusammen|zusammenfassung|erzähl(?:e)? mir (?:etwas |alles )?(?:über|von)"
    r"|was (?:steht|sagen|habe ich) (?:in )?meine[n]? notizen(?: (?:über|zu[mr]?|von|zu))?"
    r"|was (?:weiß|denke|halte) ich (?:über|von|zu)"
    r")",
    re.IGNORECASE,
)


# What the notes of some days say (agent/day_notes.py): "What did I do on 2026-11-16?", "What happened yesterday?",
# "What did I write last week?". Only with a day named: "What happened to my fig tree?" asks for one fact.
_ABOUT_DAYS = re.compile(
    POLITE_OPENING + r"what (?:did i (?:do|write|note|get done)|have i (?:done|written)|happened|went on)\b",
    re.IGNORECASE,
)


def asks_about_topic(question: str) -> bool:
    """Return True when `question` asks what the notes say about a topic rather than for one fact.

    There is no single fact whose absence makes it a near miss: a note about the topic answers it. The grounding
    rule "if the notes do not answer the question, refuse" made the 1.5B refuse "Summarize my notes on Obsidian
    alternatives." with the note of that name among the passages (three of four seeds), and "What do I think about
    push up boards?" with the note reviewing them first (three of four); told to say what the notes say and to
    refuse only when no note is about it, it answered both in four of four (docs/answers.md).
    """
    text = question.strip()
    return bool(_ABOUT_TOPIC.match(text)) or (bool(_ABOUT_DAYS.match(text)) and names_a_day(text))


def topic_of(question: str) -> str:
    """Return what a question about a topic is about: its words after the request ("" for any other question)."""
    text = question.strip()
    match = _ABOUT_TOPIC.match(text) or (_ABOUT_DAYS.match(text) if names_a_day(text) else None)
    return text[match.end() :] if match else ""


# "Which hotel did I stay at?": the kind of thing asked for, named right after "which" or "what" (not a verb).
_KIND_ASKED = re.compile(r"\b(?:which|what|welche[rsnm]?)\s+(?:kind of\s+|sort of\s+)?(?P<kind>[^\W\d_][\w-]*)", re.I)
_NO_KIND = frozenset((
    "is", "are", "was", "were", "am", "be", "do", "does", "did", "have", "has", "had", "can", "could", "will",
    "would", "should", "shall", "may", "might", "must", "i", "you", "we", "they", "he", "she", "it", "my", "your",
    "the", "a", "an", "this", "that", "these", "those", "of", "in", "on", "to", "for", "about", "else", "time",
    "date", "year", "day", "days", "month", "week", "note", "notes", "one", "ones", "ist", "sind", "war", "hat",
    "habe", "kann",
))  # fmt: skip


def kind_asked(question: str) -> str:
    """Return the kind of thing `question` asks for ("hotel" of "Which hotel did I stay at in Kyoto?"), or "".

    "" for "What did I discuss?", "Which is better?", "What time …?" (an amount), "Which notes …?".
    """
    match = _KIND_ASKED.search(question)
    kind = match["kind"].casefold() if match else ""
    return "" if kind in _NO_KIND else kind


# "Which hotel …?", "What book …?", "…, and which model …": the thing asked for, named by its kind.
# The kind is the last word before the verb ("What finish time am I aiming for?": time), else the first after it
# (`kind_asked` takes the word after "what", "finish" there, which is right for the links it judges).
_WHICH_KIND = re.compile(
    r"(?:^|[,;:]\s*|\band\s+)(?:which|what)\s+(?:(?P<phrase>(?:[^\W\d_]+\s+){0,2}?(?P<head>[^\W\d_]{3,}))\s+"
    r"(?:am|is|are|was|were|do|does|did|have|has|had|will|would|can|could|should)\b|(?P<kind>[^\W\d_]{3,})\b)",
    re.IGNORECASE,
)
# Words after "what" that name no kind of thing: "What is …", "What kind of …", "What did …".
_NOT_A_KIND = frozenset(
    ("is", "are", "was", "were", "did", "does", "will", "would", "can", "could", "should", "has", "have", "had")
    + ("kind", "sort", "type", "else", "about", "happened", "the", "this", "that", "these", "those", "time")
)


def names_only_the_kind(answer: str, question: str) -> bool:
    """Return True when `question` asks which thing of a kind and `answer` names only the kind ("a hotel").

    Asked "Which hotel did I stay at in Kyoto?" (no note names one), the 1.5B answered "I stayed at a hotel in Kyoto
    during the 2023 Japan Trip.": every word borne out, and no hotel named. The kind with "a", "an" or "some" before
    it, not followed by its name ("a hotel called …", "a book: …", "a book, Out of Control", "a finish time of
    1:49:00") nor after one in its sentence ("Out of Control, a book by Kevin Kelly"), answers no "which".
    """
    for found in _WHICH_KIND.finditer(question):
        kind = (found["head"] or found["kind"]).casefold()
        if kind in _NOT_A_KIND:
            continue
        # The kind in any case; after a comma, a name opens on a capital, a quote or a link (case counts there).
        vague = re.compile(
            rf"(?i:\b(?:a|an|some)\s+(?:[^\W\d_]+\s+)?{re.escape(kind)}(?:e?s)?\b)"
            rf"(?!(?i:\s+(?:called|named|of)\b)|\s*[:(\"“\[]|\s*,\s*(?:the\s+)?[\"“\[A-Z])"
        )
        asked = {word.casefold() for word in _CAPITALISED.findall(question)}
        for said in vague.finditer(answer):
            opening = _SENTENCE_START.split(answer[: said.start()])[-1]  # its sentence up to the kind
            if not any(word.casefold() not in asked | _NO_NAME for word in _CAPITALISED.findall(opening)):
                return True  # "I stayed at a hotel …", not "Out of Control, a book by Kevin Kelly"
    return False


_SENTENCE_START = re.compile(r"[.!?]\s+|\n")
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][\w'’-]*")
# Capitalised words opening a sentence that name nothing: "I", "The", "It", "My" …
_NO_NAME = frozenset(
    ("i", "the", "it", "its", "a", "an", "this", "that", "these", "those", "my", "in", "on", "at", "yes", "no", "you")
    + ("your", "we", "our", "there", "based", "according", "from", "for", "during", "after", "before", "when")
)
