"""Questions about the vault's links and tags ("Which notes link to Books?", "Which notes are tagged clippings?").

What links to a note, and which notes carry a tag, are facts of the link graph and the tags, not of any passage a
search finds: asked "Which notes link to Books?" over kepano-obsidian, the 0.5B wrote the links of its passages
run together and repeated "[[Book Template]]" until it was cut off; asked how many notes are tagged clippings, it
refused; asked which tags it uses most, it named words of its passages. Such a question is answered by code from
the vault (agent/tools/vault_lists.py); this module only reads what the question asks: the backlinks or the links of
a note it names, the notes of a tag, or the tags in use. The note's name is resolved against the vault by the agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rag.answer.dates import MONTH_WORDS
from rag.answer.kind_questions import kind_asked

_END = r"\s*[?.!]*\s*$"
_NAME = r"(?P<name>\S.{0,150}?)"
# The notes linking to one: "Which notes link to Books?", "What links to [[Books]]?", "Show the backlinks of Books",
# "How many notes link to the Books note?", "Welche Notizen verlinken auf Books?".
_BACKLINKS = re.compile(
    rf"^\W*(?:(?:which|what)\s+(?:other\s+)?(?:notes?|pages?|files?)\s+(?:links?|points?|refers?|are\s+linking)\s+to"
    rf"|what\s+links\s+to|how\s+many\s+(?:other\s+)?(?:notes?|pages?|files?)\s+(?:link|point|refer)\s+to"
    rf"|(?:(?:please\s+)?(?:show|list|give|find|get)(?:\s+me)?\s+)?(?:(?:all|what\s+are)\s+)?(?:the\s+|my\s+)?"
    rf"(?:backlinks|incoming\s+links)\s+(?:of|for|to|into)"
    rf"|(?:(?:please\s+)?(?:show|list|give|find|get)(?:\s+me)?\s+)(?:all\s+)?(?:the\s+|my\s+)?(?:notes?|pages?)"
    rf"\s+(?:that\s+)?(?:link|linking|point|pointing)\s+to"
    rf"|welche\s+(?:notizen|seiten)\s+(?:verlinken|verweisen)\s+(?:auf|zu))\s+{_NAME}{_END}",
    re.IGNORECASE,
)
# The links of one: "What does Books link to?", "Which notes does Kevin Kelly link to?", "List the links in Books".
_OUTGOING = re.compile(
    rf"^\W*(?:(?:what|which)\s+(?:notes?\s+|pages?\s+)?does\s+{_NAME}\s+link\s+to{_END}"
    rf"|(?:(?:please\s+)?(?:show|list|give|get)(?:\s+me)?\s+)(?:all\s+)?(?:the\s+)?(?:links|outgoing\s+links)"
    rf"\s+(?:in|of|from)\s+{_NAME.replace('name', 'name2')}{_END})",
    re.IGNORECASE,
)
# Notes of a tag: "Which notes are tagged clippings?", "How many notes have the tag #evergreen?", "List the notes
# with #events", "Welche Notizen haben den Tag #reise?". The question asks for notes (not "what is tagged …
# about"), and names the tag after "tagged", "the tag" or as "#tag".
_ASKS_NOTES = re.compile(
    r"^\W*(?:(?:which|what|how\s+many)\s+(?:of\s+my\s+)?(?:notes?|pages?|files?)|(?:please\s+)?(?:list|show|give|find"
    r"|get)(?:\s+me)?\s+(?:all\s+)?(?:the\s+|my\s+)?(?:notes?|pages?|files?)|are\s+there\s+(?:any\s+)?(?:notes?|pages?)"
    r"|welche\s+(?:notizen|seiten)|wie\s+viele\s+(?:notizen|seiten))\b",
    re.IGNORECASE,
)
_TAG_NAMED = re.compile(
    r"\b(?:tagged(?:\s+(?:with|as))?|with\s+(?:the\s+)?tag|(?:has|have|having|carry|carrying|use|using|with)"
    r"\s+(?:the\s+)?tag|(?:mit\s+dem|den|das)\s+tag|getaggt(?:\s+mit)?)\s+#?(?P<tag>[^\s#,;!?\"'`]+)"
    r"|(?<![\w#&])#(?P<hashtag>[^\s#,;!?\"'`\]\[]+)",
    re.IGNORECASE,
)
# The tags in use: "What tags do I use most?", "List my tags", "Which tags are in my vault?", "How many tags …".
_TAG_COUNTS = re.compile(
    r"^\W*(?:(?:what|which)\s+(?:are\s+)?(?:(?:the|my)\s+)?(?:most\s+(?:used|common|frequent|popular)\s+)?tags\b"
    r"(?!\s+(?:does|do|did|is|are|has|have)\s+(?!i\b|we\b|my\b|the\s+vault\b|in\b|there\b|used\b)\S)"
    r"|(?:please\s+)?(?:list|show|give|get)(?:\s+me)?\s+(?:all\s+)?(?:(?:the|my)\s+)?(?:most\s+used\s+)?tags\b"
    r"|how\s+many\s+(?:different\s+)?tags\b|welche\s+tags\b)",
    re.IGNORECASE,
)
# The notes changed lately: "Which notes did I change this week?", "What did I edit yesterday?", "Show my recently
# modified notes", "What was the last note I edited?". By the files' modification times: "created" is no such
# question (a file's creation time is not kept on every system, and a synced vault rewrites it).
_CHANGED = r"(?:change|changed|edit|edited|modify|modified|update|updated|touch|touched|work(?:ed)?\s+on)"
_RECENT = re.compile(
    rf"^\W*(?:(?:which|what)\s+(?:notes?|files?|pages?)\s+(?:did|have|had)\s+(?:i|we)\s+(?:recently\s+|last\s+)?{_CHANGED}"
    rf"|(?:which|what)\s+(?:notes?|files?|pages?)\s+(?:were|was|are|is|have\s+been|has\s+been)\s+(?:recently\s+|last\s+)?"
    rf"(?:changed|edited|modified|updated|touched)"
    rf"|what\s+did\s+(?:i|we)\s+(?:write|work\s+on)\s+(?:most\s+)?(?:recently|lately|last)(?=\s*[?.!]*$)"
    # "What did I change in the Sourdough note?" asks what the note says: a place named is for the search.
    rf"|what\s+did\s+(?:i|we)\s+(?:change|edit|modify|update)(?!.*\b(?:in|to|about|of|on)\s+(?!(?:my|the)\s+"
    rf"(?:vault|notes)\b|\w+day\b|\d))"
    rf"|(?:(?:please\s+)?(?:list|show|give|get)(?:\s+me)?\s+)?(?:(?:my|the)\s+)?(?:(?:most\s+)?recently|last|latest)"
    rf"\s+(?:changed\s+|edited\s+|modified\s+|updated\s+)?(?:notes?|files?|edits|changes)"
    rf"|(?:what|which)\s+(?:was|were|is|are)\s+the\s+(?:last|latest|most\s+recent)\s+(?:notes?|files?)\s+(?:i|we)\s+"
    rf"(?:changed|edited|modified|updated|touched|worked\s+on|wrote))\b",
    re.IGNORECASE,
)
# The notes of a folder: "Which notes are in the Clippings folder?", "How many notes are in my Projects folder?",
# "What's in the How To folder?", "List the notes in the Inbox folder". The word "folder" says the name is one.
_IN_FOLDER = re.compile(
    r"^\W*(?:(?:which|what)\s+(?:notes?|files?|pages?)\s+(?:are|do\s+(?:i|we)\s+have|are\s+there)\s+in"
    r"|how\s+many\s+(?:notes?|files?|pages?)\s+(?:are\s+(?:there\s+)?in|do\s+(?:i|we)\s+have\s+in|does)"
    r"|what(?:'s|\s+is)\s+in|(?:(?:please\s+)?(?:list|show|give|get)(?:\s+me)?\s+)(?:all\s+)?(?:the\s+|my\s+)?"
    r"(?:notes?|files?|pages?)\s+(?:in|of|under)|welche\s+notizen\s+(?:sind|liegen|stehen)\s+im)"
    r"\s+(?:the\s+|my\s+|our\s+)?(?:folder\s+)?(?P<name>\S.{0,150}?)\s+(?:folder|ordner)(?:\s+have)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# A folder summed up: "Summarize the Clippings folder", "Give me an overview of my Projects folder" (kepano-obsidian:
# the 0.5B refused the first with the Clippings category note's table quoted). Its notes, each with its opening.
_FOLDER_SUMMARY = re.compile(
    r"^\W*(?:(?:please|can\s+you|could\s+you)\s+)*(?:summari[sz]e|sum\s+up|recap|give\s+me\s+(?:an?\s+)?"
    r"(?:overview|summary|rundown)\s+of)\s+(?:the\s+|my\s+|our\s+)?(?:folder\s+)?(?P<name>\S.{0,150}?)\s+"
    r"(?:folder|ordner)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# The whole vault's count: "How many notes do I have?", "How many notes are in my vault?".
_VAULT_COUNT = re.compile(
    r"^\W*how\s+many\s+(?:notes?|files?|pages?)\s+(?:do\s+(?:i|we)\s+have|are\s+(?:there\s+)?in\s+(?:my|the|this)"
    r"\s+vault|does\s+(?:my|the|this)\s+vault\s+(?:have|hold|contain)|are\s+there)(?:\s+in\s+(?:total|all))?"
    r"\s*[?.!]*\s*$|^\W*wie\s+viele\s+notizen\s+(?:habe\s+ich|hat\s+(?:mein|der)\s+vault)\b",
    re.IGNORECASE,
)
# Notes by a property: "Which notes have status active?", "Which notes have a rating of 7?", "Which notes have the
# property due?", "List the notes with status: done". The vault says whether the name is a property (agent side):
# "Which notes have links to X?" names none, and goes on.
_PROPERTY_ASKED = re.compile(
    r"^\W*(?:(?:which|what)\s+(?:of\s+my\s+)?(?P<of>[\w-]+)\s+(?:have|has|carry|use)|(?:(?:please\s+)?(?:list|show|give"
    r"|get|find)(?:\s+me)?\s+)(?:all\s+)?(?:the\s+|my\s+)?(?P<of2>[\w-]+)\s+(?:with|having|that\s+have))"
    r"\s+(?:the\s+|a\s+|an\s+)?(?:(?:property|field)\s+)?[\"'`]?(?P<prop>[\w][\w -]{0,38}?)[\"'`]?"
    r"(?:(?:\s*[:=]\s*|\s+(?:set\s+to|of|equal\s+to|equals|is|as)\s+|\s+)[\"'`]?(?P<value>[^\"'`?!]{1,80}?)[\"'`]?)?"
    r"(?:\s+(?:property|field|set))?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "Which movies did I rate 7 or higher?", "… have I rated 8 or more?", "… are rated over 7?": the notes of a kind
# by their rating.
_RATED = re.compile(
    r"^\W*(?:which|what)\s+(?:of\s+my\s+)?(?P<of>[\w-]+(?:\s+[\w-]+)?)\s+(?:did\s+(?:i|we)\s+(?:rate|score|give)"
    r"|have\s+(?:i|we)\s+"
    r"(?:rated|scored|given)|(?:are|were)\s+rated)\s+(?:a\s+)?"
    r"(?P<value>[^?!]{1,40}?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# One note's own tags: "What tags does Dune have?", "What are the tags of [[Dune]]?", "How is the Dune note tagged?",
# "Which tags are on Dune?", "Welche Tags hat Dune?". "What tags are in my vault?" asks for the tags in use.
_NOTE_TAGS = re.compile(
    rf"^\W*(?:(?:what|which)\s+tags\s+(?:does|did)\s+{_NAME}\s+(?:have|has|carry|use)"
    rf"|(?:what|which)\s+(?:are\s+)?(?:the\s+)?tags\s+(?:are\s+)?(?:of|on|in|for)\s+{_NAME.replace('name', 'name2')}"
    rf"|(?:how|what)\s+is\s+{_NAME.replace('name', 'name3')}\s+tagged(?:\s+(?:with|as))?"
    rf"|(?:(?:please\s+)?(?:show|list|give|get)(?:\s+me)?\s+)(?:all\s+)?(?:the\s+)?tags\s+(?:of|on|in|for)\s+"
    rf"{_NAME.replace('name', 'name4')}|welche\s+tags\s+hat\s+{_NAME.replace('name', 'name5')}){_END}",
    re.IGNORECASE,
)
# One note's properties: "What properties does Dune have?", "Show the properties of Dune", "What is in the
# frontmatter of Dune?", "Welche Eigenschaften hat Dune?".
_PROPERTIES = r"(?:properties|metadata|frontmatter|front\s+matter|yaml)"
_NOTE_PROPERTIES = re.compile(
    rf"^\W*(?:(?:what|which)\s+{_PROPERTIES}\s+(?:does|did)\s+{_NAME}\s+have"
    rf"|(?:what|which)\s+(?:are|is)\s+(?:(?:in\s+)?the\s+)?{_PROPERTIES}\s+(?:of|on|in|for)\s+"
    rf"{_NAME.replace('name', 'name2')}"
    rf"|(?:(?:please\s+)?(?:show|list|give|get)(?:\s+me)?\s+)(?:all\s+)?(?:the\s+)?{_PROPERTIES}\s+(?:of|on|in|for)\s+"
    rf"{_NAME.replace('name', 'name3')}|welche\s+eigenschaften\s+hat\s+{_NAME.replace('name', 'name4')}){_END}",
    re.IGNORECASE,
)
# When one note was made: "When did I create the Kyoto note?", "When was [[Kyoto]] created?". Not "written" or
# "started": "When did I start running?" asks the notes what they say.
_NOTE_CREATED = re.compile(
    rf"^\W*(?:when\s+did\s+(?:i|we)\s+(?:create|make|add)\s+{_NAME}"
    rf"|when\s+(?:was|were)\s+{_NAME.replace('name', 'name2')}\s+(?:created|made|added)){_END}",
    re.IGNORECASE,
)
# Names that are the whole vault, not a note: "What tags are in my vault?".
_WHOLE_VAULT = frozenset({"vault", "my vault", "the vault", "notes", "my notes", "all notes", "all my notes"})
# The notes made in a period: "Which notes did I create in 2023?", "What notes were created this week?", "List the
# notes I made last month". By the notes' creation-date property (agent/tools/created_notes.py). What follows the
# verb may only say when: "Which notes did I write about Kyoto?" is for the search.
_MADE = r"(?:create|created|make|made|start|started|add|added|write|wrote|written|begin|began|begun)"
_CREATED = re.compile(
    rf"^\W*(?:(?:which|what)\s+(?:new\s+)?(?:notes?|files?|pages?)\s+(?:did|have|had)\s+(?:i|we)\s+(?:recently\s+)?{_MADE}"
    rf"|(?:which|what)\s+(?:new\s+)?(?:notes?|files?|pages?)\s+(?:were|was|have\s+been|has\s+been)\s+(?:recently\s+)?"
    rf"{_MADE}|(?:(?:please\s+)?(?:list|show|give|get)(?:\s+me)?\s+)(?:all\s+)?(?:the\s+|my\s+)?(?:new\s+)?"
    rf"(?:notes?|files?|pages?)\s+(?:(?:that\s+)?(?:i|we)\s+(?:have\s+)?)?{_MADE}"
    rf"|how\s+many\s+(?:new\s+)?(?:notes?|files?|pages?)\s+(?:did\s+(?:i|we)\s+{_MADE}|(?:were|have\s+been)\s+{_MADE}))"
    rf"\b(?P<when>[^?!]*?){_END}",
    re.IGNORECASE,
)
# A folder the notes changed or made are asked of: "Which notes did I change in the Projects folder this week?".
_FOLDER_NAMED = re.compile(
    r"\s+(?:in|under|inside|from)\s+(?:the\s+|my\s+|our\s+)?(?P<folder>\S.{0,80}?)\s+(?:folder|ordner)\b",
    re.IGNORECASE,
)
# The words a period is said in; any other word after "Which notes did I create" is a topic.
_PERIOD_WORDS = frozenset(
    {
        *("in", "on", "during", "since", "over", "from", "to", "until", "and", "between", "of", "the", "so", "far"),
        *("this", "last", "past", "previous", "next", "recently", "lately", "today", "yesterday", "weekend"),
        *("week", "weeks", "month", "months", "year", "years", "st", "nd", "rd", "th"),
        *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    }
)

# Words naming any note, not a kind of them.
_ANY_NOTE = frozenset({"note", "notes", "page", "pages", "file", "files"})
# Tasks are listed by the task lists, checkboxes and task notes both ("Which tasks have priority high?").
_TASK_KINDS = frozenset({"tasks", "todos", "to-dos", "aufgaben"})
_CLEAN_NAME = re.compile(r"^(?:the|my|our)\s+|\s+(?:note|page|file)$", re.IGNORECASE)

VaultAskKind = Literal[
    "backlinks",
    "outgoing",
    "tagged",
    "tags",
    "recent",
    "folder",
    "count",
    "property",
    "note_tags",
    "note_properties",
    "note_created",
    "created",
    "of_kind",
]


@dataclass(frozen=True, slots=True)
class VaultAsk:
    """What a question asks of the vault's links or tags.

    The notes linking to `name` (backlinks), its links (outgoing), the notes of a `tag` (tagged), the tags in use
    (tags), the notes changed lately (recent), the notes of the folder `name` (folder; `value` "openings": each with
    its opening, asked to sum the folder up), the number of notes (count),
    the notes whose property `name` has `value` (property; "" for any value), the tags (note_tags), properties
    (note_properties) or creation date (note_created) of the note `name`, the notes made in the period the question
    names (created), the notes of the kind `of` (of_kind: "List my books"; `value` "open": those whose status is
    no closed one; "in progress": those in hand now, `name` the verb asked, "reading"; "liked": by their rating).
    """

    kind: VaultAskKind
    # the note (backlinks, outgoing, note_…) or folder (folder, recent, created) named, as written; of_kind in
    # progress: the verb asked ("reading")
    name: str = ""
    tag: str = ""  # without "#", for tagged
    value: str = ""  # the property's value asked for, as written ("active", "7", "[[Frank Herbert]]")
    of: str = ""  # the kind of notes asked of, as written ("movies": a category, tag or folder); "" for any note


_OF_ONE_NOTE: tuple[tuple[re.Pattern[str], VaultAskKind], ...] = (
    (_NOTE_TAGS, "note_tags"),
    (_NOTE_PROPERTIES, "note_properties"),
    (_NOTE_CREATED, "note_created"),
)


def vault_ask(question: str) -> VaultAsk | None:
    """Return what `question` asks of the vault's links or tags, or None when it asks neither."""
    if (found := _BACKLINKS.match(question)) is not None:
        return VaultAsk("backlinks", name=note_name(found["name"]))
    if (found := _OUTGOING.match(question)) is not None:
        return VaultAsk("outgoing", name=note_name(found["name"] or found["name2"]))
    for pattern, kind in _OF_ONE_NOTE:
        if (found := pattern.match(question)) is not None:
            name = note_name(next(value for value in found.groupdict().values() if value))
            if name.casefold() not in _WHOLE_VAULT:
                return VaultAsk(kind, name=name)
    if (made := _CREATED.match(question)) is not None:
        folder = _FOLDER_NAMED.search(made["when"])
        when = made["when"] if folder is None else made["when"][: folder.start()] + made["when"][folder.end() :]
        if _says_only_when(when):
            return VaultAsk("created", name=_folder_name(folder))
    if _TAG_COUNTS.match(question):
        return VaultAsk("tags")
    if _RECENT.match(question):
        return VaultAsk("recent", name=_folder_name(_FOLDER_NAMED.search(question)))
    if (found := _IN_FOLDER.match(question)) is not None:
        return VaultAsk("folder", name=_folder_written(found["name"]))
    if (found := _FOLDER_SUMMARY.match(question)) is not None:
        return VaultAsk("folder", name=_folder_written(found["name"]), value="openings")
    if _VAULT_COUNT.match(question):
        return VaultAsk("count")
    if (found := _RATED.match(question)) is not None and found["of"].casefold() not in _TASK_KINDS:
        of = "" if found["of"].casefold() in _ANY_NOTE else found["of"]
        return VaultAsk("property", name="rating", value=found["value"].strip(), of=of)
    if (found := _PROPERTY_ASKED.match(question)) is not None:
        of = found["of"] or found["of2"] or ""
        if of.casefold() in _TASK_KINDS:
            return None
        of = "" if of.casefold() in _ANY_NOTE else of
        return VaultAsk("property", name=found["prop"].strip(), value=(found["value"] or "").strip(), of=of)
    if _ASKS_NOTES.match(question) and (tag := _TAG_NAMED.search(question)) is not None:
        return VaultAsk("tagged", tag=(tag["tag"] or tag["hashtag"]).rstrip(".:").lstrip("#"))
    if (asked := kind_asked(question)) is not None:
        return VaultAsk("of_kind", name=asked.verb, of=asked.of, value=asked.which)
    return None


def _folder_name(found: re.Match[str] | None) -> str:
    return "" if found is None else _folder_written(found["folder"])


def _folder_written(written: str) -> str:
    """Return a folder's name as a question writes it, without quotes or slashes around it: "Projects/Librarian"."""
    return written.strip().strip("\"'“”‘’«»/").strip()


def _says_only_when(words: str) -> bool:
    """Return True when `words` say at most when ("in 2023", "last week", "on 12 March"), no topic."""
    return all(
        word in _PERIOD_WORDS or word in MONTH_WORDS or word[:1].isdigit()
        for word in re.findall(r"[\w-]+", words.casefold())
    )


def note_name(written: str) -> str:
    """Return a note's name as a question writes it, without "the", "my", " note" and quotes: "Books"."""
    name = written.strip().strip("\"'“”‘’«»").strip()
    while (cleaner := _CLEAN_NAME.sub("", name).strip()) != name:
        name = cleaner
    return name
