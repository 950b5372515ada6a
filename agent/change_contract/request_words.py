"""What a change request calls notes in its own words, before any note is looked at: new names, templates, notes.

Pure readings of the request's text (its values: `request_values`); `vault_references` and `candidates` match them
against the vault.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.change_contract.request_values import DAILY_WORDS, DAY_WORDS, QUOTED, blanked, quoted_values

LINK = re.compile(r"\[\[([^\]|#^]+)(?:[#^][^\]|]*)?(?:\|[^\]]*)?\]\]")
PATH = re.compile(r"(?<![\w/])((?:[\w .-]+/)+[\w .-]+\.md)\b", re.IGNORECASE)
# A note name Obsidian allows and links do not break on (agent.propose.paths.FORBIDDEN_IN_NAMES).
NAME_PATTERN = r"^[^\n*\"\\/<>:|?#^\[\]]{1,100}$"
# The name a request gives a note: after "called"/"named"/"titled", or, renaming, after a "to"/"as" (each one:
# "rename Draft to Back to School" may mean either), quoted, a [[link]], or words up to what starts the note's text.
_NAMING = re.compile(r"\b(?:called|named|titled|entitled|namens|genannt|betitelt)\s+", re.IGNORECASE)
_RENAMING = re.compile(r"\b(?:rename|renaming)\b", re.IGNORECASE)
_RENAMED_TO = re.compile(r"\s(?:to|as)\s+", re.IGNORECASE)
# What ends an unquoted name: what starts the note's text ("… with the text", "containing"), its folder ("… in the
# How To folder"), a colon, a final period, a template clause ending in "template" ("using the Movie Template"). Not a
# bare "with": "Meeting with Bob" is a name (offered cut as well, the 0.5B took the cut). Not "from the template X"
# either: `_TEMPLATE_FIRST` decides whether that names a template or is part of the name.
_NAME_END = re.compile(
    r"\s+(?:with\s+(?:the\s+)?(?:text|content|line|body)|containing|that\s+says|saying|and\s+(?:the\s+)?text"
    r"|mit\s+(?:dem\s+)?(?:text|inhalt))\b|[,;:\n\"“„«]|\.\s*$"
    r"|\s+(?:in|into|under|im)\s+(?:the\s+|my\s+|dem\s+)?(?:[\w-]+\s+){0,4}(?:folder|ordner)\b"
    r"|\s+(?:im|in\s+den)\s+ordner\b"
    # the words before "template" hold no other "template": "Notes from the Template Workshop using the X Template"
    r"|\s+(?:using|from|based\s+on|with)\s+(?:the\s+|my\s+|a\s+)?(?:(?!\btemplate\b)[^,.;:\n]){0,60}?\btemplate\b"
    r"(?=\s*(?:$|[,.;:!?]|\s(?:in|into|and|with|for)\b))"
    r"|\s+(?:linking|that\s+links|which\s+links|listing)\b",
    re.IGNORECASE,
)
# "from the template Meeting" after a name: a template, or the name's own words ("Notes from the Template Workshop").
_TEMPLATE_FIRST = re.compile(r"\s+(?:using|from|based\s+on|with)\s+(?:the\s+|my\s+|a\s+)?(template)\b", re.IGNORECASE)
_MAX_TEMPLATE_WORDS = 5  # words after "template" that may be its name
TemplateCheck = Callable[[str], bool]  # whether words name one of the vault's templates ("Meeting")
# "using the Movie Template", "from the template Meeting": the template a new note starts from.
_TEMPLATE_NAMED = re.compile(
    r"\b(?:using|with|from|based\s+on|mit|aus)\s+(?:the\s+|my\s+|a\s+|der\s+|dem\s+)?"
    r"(?:(?:template|vorlage)\s+[\"“]?(?P<after>[^,.;:\n\"“”]{1,60}?)[\"”]?(?=\s*(?:[,.;:\n]|$))"
    r"|(?P<before>[^,.;:\n\"“”]{1,60}?)\s+(?:template|vorlage)\b)",
    re.IGNORECASE,
)
# What gives a new note its text: quoted text, or a clause ("with the text ...", "saying ...", a colon).
_GIVES_TEXT = re.compile(
    r"\b(?:(?:with|and)\s+(?:the\s+)?(?:text|content|line|body)|containing|that\s+says|saying|listing"
    r"|mit\s+(?:dem\s+)?(?:text|inhalt))\b|:\s*\S",
    re.IGNORECASE,
)
# Verbs that start a change: after "and" they join a second change to the first ("... and add the tag x").
CHANGE_VERBS = (
    r"(?:add|set|remove|delete|move|rename|tag|untag|create|append|prepend|mark|put|make|change|link"
    r"|füge|setze|entferne|lösche|verschiebe|benenne|ajoute|supprime)"
)
MOVING = re.compile(r"\b(?:move|moving|archive|relocate|verschiebe|verschieben|archiviere)\b", re.IGNORECASE)
_CREATING = re.compile(r"\b(?:create|new|erstelle|neue)\b", re.IGNORECASE)
# Words that name a note ("the Dune note", "the note Dune", "add the tag x to Dune", 'the "Dune" note') but need not
# be a note's whole title. Between "the" and "note" no article or preposition ("the end of the note" names none);
# after "note" or ending the request, only capitalised words ("the note about bread" describes a note).
_STOP = r"(?!(?:the|a|an|my|your|to|of|in|on|at|for|with|from|into|about|and|or|this|that|it|its)\b)"
_WORD = r"[^\s\"“”„«»\[\]|#^.,;:!?]+"
_TITLE = r"[A-Z0-9][^\s\"“”„«»\[\]|#^,;:!?]*(?:\s+[A-Z0-9][^\s\"“”„«»\[\]|#^,;:!?]*){0,5}"
_OPEN, _CLOSE = '["“„«]', '["”“»]'
_NOTE_PHRASES = (
    re.compile(
        rf"\b(?:the|my|your)\s+({_STOP}{_WORD}(?:\s+{_STOP}{_WORD}){{0,5}}?)\s+(?:note|page|notiz)\b", re.IGNORECASE
    ),
    re.compile(rf"\b(?:the|my|your)\s+{_OPEN}([^\"“”„«»\n]+){_CLOSE}\s+(?:note|page|notiz)\b", re.IGNORECASE),
    re.compile(rf"\b[Nn]ote\s+(?:(?:called|named|titled)\s+)?{_OPEN}?({_TITLE}){_CLOSE}?"),
)
# A capitalised name ending the request: "add the tag favorite to Dune". Not after "set ... to" (a value), "a task to"
# (the task: "to Call Mom"), nor in a move (its folder).
_TO_NAME = re.compile(rf"\b(?:to|from|in|on|into)\s+{_OPEN}?({_TITLE}){_CLOSE}?\s*[.!?]?\s*$")
_NOT_TO_NAME = re.compile(r"\b(?:set|change|make|mark|switch|update|task|todo|to-do|reminder)\b", re.IGNORECASE)
_NOT_NAMES = {"same", "previous", "last", "next", "new", "other", "whole", "current", "first", "entire"}


def given_names(request: str, *, is_template: TemplateCheck | None = None) -> tuple[str, ...]:
    """Return the names `request` gives a note it creates or renames ("called Plum Pruning", 'rename X to "Y"').

    A small model asked to copy a name adds words of its own ("Inbox Prune the plum tree ..."): the contract binds
    the name to these instead. A quoted name, or a [[link]], is taken whole; an unquoted one runs to what starts the
    note's text ("with the text", "containing", a colon), its folder or its template, trailing "note" and "page"
    aside. A rename offers the words after each "to" or "as" (the longest first). Only names Obsidian allows are
    offered. `is_template` (the vault's templates) decides whether "from the template X" in a name names a template.
    """
    cleaned = (_without_suffixes(name) for _, name in _given_spans(request, is_template))
    return tuple(dict.fromkeys(name for name in cleaned if re.match(NAME_PATTERN, name)))


def _given_spans(request: str, is_template: TemplateCheck | None) -> list[tuple[tuple[int, int], str]]:
    """Return where each name `request` gives is written, and the name (see `given_names`)."""
    starts = [match.end() for match in _NAMING.finditer(request)]
    if (renaming := _RENAMING.search(request)) is not None:
        starts += [match.end() for match in _RENAMED_TO.finditer(request, renaming.end())]
    found: list[tuple[tuple[int, int], str]] = []
    for start in starts:
        rest = request[start:]
        if (quoted := QUOTED.match(rest)) is not None:
            found.append(((start, start + quoted.end()), next(g for g in quoted.groups() if g is not None)))
        elif (link := re.match(r"\[\[([^\]|#^]+)", rest)) is not None:
            found.append(((start, start + link.end()), link.group(1)))
        else:
            name = _unquoted_name(rest, is_template)
            found.append(((start, start + len(name)), name))
    return found


def _unquoted_name(rest: str, is_template: TemplateCheck | None) -> str:
    """Return the words of an unquoted name that starts `rest`: up to its text, folder, or a template it names."""
    end = _NAME_END.search(rest)
    stop = end.start() if end is not None else len(rest)
    for clause in _TEMPLATE_FIRST.finditer(rest, 0, stop):
        if _names_template(clause, rest[clause.end() :], is_template):
            return rest[: clause.start()]
    return rest[:stop]


def _names_template(clause: re.Match[str], after: str, is_template: TemplateCheck | None) -> bool:
    """Return True when "from the template X" inside a name names a template rather than being part of the name.

    The vault decides where it can: a template of that name. Without one, a title capitalises its words: "Notes
    from the Template Workshop" is a name, "Kickoff from the template Meeting" names a template.
    """
    if is_template is not None and any(is_template(words) for words in leading_words(_cut_at_name_end(after))):
        return True
    return clause[1][:1].islower()


def leading_words(text: str) -> list[str]:
    """Return the readings of the first words of `text` as a name, longest first ("Meeting Notes" -> ..., "Meeting").

    Up to the first punctuation, quotes aside, at most five words.
    """
    words = re.split(r"[,.;:!?\n]", text, maxsplit=1)[0].strip().strip('"“”„«»').split()[:_MAX_TEMPLATE_WORDS]
    return [" ".join(words[:count]) for count in range(len(words), 0, -1)]


def _cut_at_name_end(text: str) -> str:
    """Return `text` up to what would end a name in it ("Meeting with the text hi" -> "Meeting")."""
    end = _NAME_END.search(text)
    return text[: end.start()] if end is not None else text


def _without_suffixes(name: str) -> str:
    """Return `name` without a trailing " note"/" page" or ".md" ("called Plum Pruning note")."""
    name = re.sub(r"(?:\.md)?\s+(?:note|page|notiz)$", "", name.strip(), flags=re.IGNORECASE).strip()
    return name[:-3] if name.casefold().endswith(".md") else name


def template_phrase(request: str, *, is_template: TemplateCheck | None = None) -> str:
    """Return the words naming the template a new note starts from ("Movie" in "using the Movie Template"), or "".

    Words inside the note's name are not looked at: 'called "Notes from the Template Workshop"' names no template.
    """
    names = [span for span, _ in _given_spans(request, is_template)]
    found = _TEMPLATE_NAMED.search(blanked(request, names))
    if found is None:
        return ""
    return _cut_at_name_end(found["after"] or found["before"] or "").strip()


def gives_text(request: str) -> bool:
    """Return True when the request gives a new note text: quoted, or after "with the text", "saying", a colon.

    Without it, the note is created empty (or from its template): the 0.5B asked for text wrote its own ("a movie by
    James Cameron ... released in 2012"). A quoted name ('called "Ideas"') is no text: it became the note's text.
    """
    names = set(given_names(request))
    return any(value not in names for value in quoted_values(request)) or _GIVES_TEXT.search(request) is not None


# "into a new folder called Games", "to a new folder Games": a folder the move makes.


def note_phrases(request: str) -> list[str]:
    """Return the words `request` names a note by ("the Dune note", "to Dune", "[[Dune]]"), whether one exists or not.

    A description ("my note about bread", "add a task to buy milk") names none: its retrieval hits may be right.
    """
    found = [*LINK.findall(request), *PATH.findall(request)]
    found += [match[1] for pattern in _NOTE_PHRASES for match in pattern.finditer(request)]
    to_name = _TO_NAME.search(request)
    if to_name and not MOVING.search(request) and not _NOT_TO_NAME.search(request, 0, to_name.start()):
        found.append(to_name[1])
    # A name a create or rename gives ("called Dune", "rename X to Dune") is no note to find.
    is_naming = _CREATING.search(request) or _RENAMING.search(request)
    new_names = {name.casefold() for name in given_names(request)} if is_naming else set()
    phrases = (phrase.strip().rstrip(".").strip() for phrase in found)
    return list(dict.fromkeys(p for p in phrases if p and p.casefold() not in new_names and not _is_day_phrase(p)))


def _is_day_phrase(phrase: str) -> bool:
    """Return True for words that mean a daily note or the note talked about ("the daily note", "the same note")."""
    words = re.findall(r"\w+", phrase.casefold()) or [""]
    return bool(DAILY_WORDS.search(phrase)) or words[0] in _NOT_NAMES or any(w in DAY_WORDS for w in words)
