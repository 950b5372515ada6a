"""Maps of content ("make a MOC of my notes on X"): the links chosen by code, proposed as a new note.

A small model asked to create such a note writes prose of its own ("a movie by James Cameron") and no links, or
names the note after the whole request. Nothing here needs a model: code reads the topic and the note's name from
the request, finds the notes on the topic, and writes one link per note. How a user files a note (its folder, tags,
properties) says what it is about; where no note names the topic, a note belongs when the relevance gate, the
vault-calibrated judgment of whether notes cover a question, says it covers the topic on its own. The proposal then
waits for "yes" like any other.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from py_rust_stemmers import SnowballStemmer

from agent.change_contract.request_words import CHANGE_VERBS, LINK
from agent.change_contract.vault_references import requested_folder, vault_folders
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from agent.turn import WriteToolBox
from core.domain import Note
from core.errors import AppError
from rag.answer.excerpts import FILLER, stem
from rag.notes.links import LinkResolver

MAX_MOC_NOTES = 50  # links in one map; the best-ranked are kept, and the reply says how many more there were
SEARCH_DEPTH = 60  # chunks searched for the topic when no note names it: several may come from one note
_WORD = re.compile(r"\w+")
_NOT_TOPIC = frozenset({"note", "notes", "notiz", "notizen", "meine", "alle", "everything"})
_MOC_WORDS = r"(?:moc|map\s+of\s+contents?|index|hub|übersicht(?:snotiz)?|inhaltsverzeichnis|sommaire)"
_MAKE = (
    r"(?:(?:can|could|would|will)\s+you\s+|kannst\s+du\s+)?(?:please\s+|bitte\s+)?"
    r"(?:make|create|start|generate|write|build|erstelle|mach(?:e)?|schreibe)\s+(?:me\s+)?"
)
_A = r"(?:(?:a|an|the|eine?n?)\s+)?(?:new\s+|neue[nr]?\s+)?"
_NOTES_ON = (
    r"(?:(?:of|for|on|about|from|linking|covering|zu|über|für|von)\s+)"
    r"(?:(?:all\s+)?(?:of\s+)?(?:my\s+|the\s+)?(?:notes?|meine[nr]?\s+notizen|notizen)\s+(?:on|about|for|zu|über)\s+)?"
)
_FOLDER_TAIL = r"(?:\s+(?:in|into|im|in\s+den)\s+(?:the\s+|my\s+|dem\s+)?[^,.\n]{1,60}?\s+(?:folder|ordner))?"
# "Make a MOC of my notes on gardening", "Create a map of content for bread", "Erstelle eine Übersicht zu Garten".
_MOC_OF = re.compile(
    rf"^\W*{_MAKE}{_A}{_MOC_WORDS}(?:\s+(?:note|notiz))?\s+{_NOTES_ON}(?P<topic>[^\n]+?){_FOLDER_TAIL}\s*[.!?]?\s*$",
    re.IGNORECASE,
)
# "Make a gardening MOC".
_TOPIC_MOC = re.compile(
    rf"^\W*{_MAKE}{_A}(?P<topic>[\w-]+(?:\s+[\w-]+){{0,3}}?)\s+(?:moc|map\s+of\s+content)\s*[.!?]?\s*$", re.IGNORECASE
)
# "of the notes in my Garden folder": the folder is the topic (its notes are named by it), not the destination.
_NOTES_IN_FOLDER = re.compile(
    r"^(?:all\s+)?(?:of\s+)?(?:the\s+|my\s+)?(?:notes?|notizen)\s+(?:in|im)\s+(?:the\s+|my\s+|dem\s+)?(?P<folder>[^,.\n]{1,60}?)"
    r"\s+(?:folder|ordner)$",
    re.IGNORECASE,
)
# A second change after the topic ("on gardening and tag it moc"): not part of the topic.
# The verb in lower case only: a topic may join names ("my notes on Tom and Mark").
_AND_CHANGE = re.compile(rf"\s+(?:and|und)\s+(?:then\s+)?(?-i:{CHANGE_VERBS})\b.*$", re.IGNORECASE)
# "Create a note called Sci-fi MOC linking my notes about science fiction".
_NOTE_LINKING = re.compile(
    rf"^\W*{_MAKE}{_A}(?:note|notiz)\s+(?:called|named|titled|namens)\s+(?P<name>[\"“„«]?[^\n\"“”„«»]+?[\"”“»]?)"
    r"\s+(?:that\s+|which\s+)?(?:links?|linking|lists?|listing|with\s+links\s+to|die\s+verlinkt)\s+(?:to\s+)?"
    r"(?:(?:all\s+)?(?:of\s+)?(?:my\s+|the\s+)?(?:notes?|notizen)\s+(?:on|about|for|zu|über)\s+)"
    rf"(?P<topic>[^\n]+?){_FOLDER_TAIL}\s*[.!]?\s*$",
    re.IGNORECASE,
)
_NAMED = re.compile(
    r"\s+(?:called|named|titled|namens)\s+(?P<name>[\"“„«][^\"”“»\n]+[\"”“»]|[^\n,.]+?)(?=\s+(?:in|into|im)\s|$)",
    re.IGNORECASE,
)
_TOPIC_EDGES = re.compile(
    r"^(?:all\s+)?(?:of\s+)?(?:my|meine[nr]?|mes|the)\s+|\s+(?:notes?|notizen)$|^(?:notes?|notizen)$", re.IGNORECASE
)
_ENGLISH = SnowballStemmer("english")  # Porter2, as search engines stem English
_FORBIDDEN_IN_NAMES = re.compile(r"[*\"\\/<>:|?#^\[\]]")
_MOC_FOLDERS = ("mocs", "moc", "maps", "maps of content", "maps of contents")


@dataclass(frozen=True, slots=True)
class MocRequest:
    """What a request for a map of content asks for: its topic, and the name it gives the note ("" for none)."""

    topic: str
    name: str = ""
    in_folder: bool = False  # the topic is a folder of the request's ("the notes in my Garden folder"), no destination

    @property
    def note_name(self) -> str:
        """Return the new note's name: the one given, else "<Topic> MOC"."""
        name = self.name or f"{self.topic[:1].upper()}{self.topic[1:]} MOC"
        return " ".join(_FORBIDDEN_IN_NAMES.sub(" ", name).split())


def moc_request(request: str) -> MocRequest | None:
    """Return the map of content `request` asks for, or None when it asks for something else."""
    text = request.strip()
    named = ""
    if (folder := _folder_topic(text)) is not None:
        return folder
    if (match := _TOPIC_MOC.match(text)) is not None:
        return _request(match["topic"], "")
    if (match := _NOTE_LINKING.match(text)) is not None:
        named = match["name"]
    elif (match := _MOC_OF.match(text)) is not None:
        topic_and_name = _NAMED.search(match["topic"])
        if topic_and_name is not None:
            named = topic_and_name["name"]
            topic = match["topic"][: topic_and_name.start()]
            return _request(topic, named)
    else:
        return None
    return _request(match["topic"], named)


def _folder_topic(text: str) -> MocRequest | None:
    """Return the map of the notes of a folder ("a MOC of the notes in my Garden folder"), or None."""
    match = _MOC_OF.match(_AND_CHANGE.sub("", text)) or _MOC_OF.match(text)
    if match is None:
        return None
    whole = text[match.start("topic") :].rstrip(" .!?")  # the folder tail is part of the topic here
    if (folder := _NOTES_IN_FOLDER.match(whole)) is None:
        return None
    return _request(folder["folder"], "", in_folder=True)


def _request(topic: str, name: str, *, in_folder: bool = False) -> MocRequest | None:
    topic = _AND_CHANGE.sub("", topic.strip().strip("\"“”„«»'").strip())
    if re.search(r"\b(?:note|page|notiz)$", topic, re.IGNORECASE):  # "an index on the Kyoto note": in one note
        return None
    topic = _TOPIC_EDGES.sub("", topic).strip()  # "my travel notes" -> "travel", "the notes" -> ""
    if not topic or not topic_stems(topic):  # a topic with no word to find notes by
        return None
    return MocRequest(topic, name.strip().strip('"“”„«»').strip(), in_folder=in_folder)


@dataclass(frozen=True, slots=True)
class MocMembers:
    """The notes a map of content links (best first), how many were on the topic, and how they were found."""

    paths: tuple[str, ...]
    found: int
    by_name: bool  # True: named by their title, folder, tags or properties; False: judged by the relevance gate


def topic_stems(topic: str) -> tuple[frozenset[str], ...]:
    """Return the forms of each word that carries a topic ("my notes on gardening" -> ({"garden"},))."""
    words = _WORD.findall(topic)
    kept = (w.casefold() for w in words if len(w) > 3 or (len(w) > 1 and w.isupper()))  # "AI", "ML"
    return tuple(word_forms(word) for word in kept if word not in FILLER and word not in _NOT_TOPIC)


def word_forms(word: str) -> frozenset[str]:
    """Return the stems a lower-case word is known by: the answer check's crude one and Snowball's English one.

    The crude stem drops an ending only ("travelling" -> "travell", "running" -> "runn"), so a topic asked as
    "travelling" missed the notes filed under Travel/; Snowball's stem is "travel" for both. Either one shared is a
    match, so nothing the crude stem matched is lost.
    """
    return frozenset({stem(word), _ENGLISH.stem_word(word)})


def names_topic(note: Note, stems: Sequence[frozenset[str]]) -> bool:
    """Return True when the note's title, folders, tags, aliases or property values hold every word of the topic.

    How a user files a note says what it is about: Areas/Garden/Garlic.md, `tags: [garden]`, `genre: "[[Sci-fi]]"`.
    Its text may mention a word in passing (a server migration note says "garden" five times); its headings too.
    `stems`: each topic word's forms (`topic_stems`).
    """
    if not stems:
        return False
    words = [note.path.removesuffix(".md"), *note.tags, *note.aliases, *_values(note.frontmatter)]
    held = {form for text in words for word in _WORD.findall(text) for form in word_forms(word.casefold())}
    return all(forms & held for forms in stems)


@dataclass(frozen=True, slots=True)
class TopicSearch:
    """What the search says of a topic: the notes it found, best first, and the relevance gate's verdict on one."""

    ranked: Sequence[str]
    covers_alone: Callable[[str], bool]  # a note's path -> whether it alone covers the topic


def moc_members(
    notes: Sequence[Note], topic: str, search: TopicSearch, *, resolve: Callable[[str, str], str | None]
) -> MocMembers:
    """Return the notes on `topic`, at most MAX_MOC_NOTES, best-ranked first.

    The notes that name the topic, wherever the search ranks them (it found only 18 of sample_vault's garden notes
    for "gardening"); when none does ("science fiction" where notes say "[[Sci-fi]]"), the searched notes that the
    relevance gate says cover the topic on their own. Then the notes whose properties link to one of those
    (`genre: "[[Sci-fi]]"`, `categories: ["[[Books]]"]`): how Obsidian vaults file a note under a topic's note.
    `resolve(target, source)` is the vault's link resolution.
    """
    order = {path: place for place, path in enumerate(search.ranked)}
    stems = topic_stems(topic)
    found = [note.path for note in notes if names_topic(note, stems)]
    by_name = bool(found)
    if not found:
        known = {note.path for note in notes}
        found = [path for path in order if path in known and search.covers_alone(path)]
    hubs = set(found)
    filed = [note.path for note in notes if note.path not in hubs and _files_under(note, hubs, resolve)]
    best = sorted([*found, *filed], key=lambda path: (order.get(path, len(order)), path))
    return MocMembers(tuple(best[:MAX_MOC_NOTES]), len(best), by_name=by_name)


def _files_under(note: Note, hubs: set[str], resolve: Callable[[str, str], str | None]) -> bool:
    """Return True when one of the note's property values links to a note in `hubs`."""
    targets = (target for value in _values(note.frontmatter) for target in LINK.findall(value))
    return any(resolve(target, note.path) in hubs for target in targets)


def _values(frontmatter: Mapping[str, object]) -> list[str]:
    """Return the property values of a note as text (lists and nested maps flattened), not their keys."""
    found: list[str] = []
    pending: list[object] = list(frontmatter.values())
    while pending:
        value = pending.pop()
        if isinstance(value, Mapping):
            pending.extend(value.values())
        elif isinstance(value, list | tuple):
            pending.extend(value)
        elif value is not None:
            found.append(str(value))
    return found


def moc_text(members: Sequence[str], resolver: LinkResolver) -> str:
    """Return the note's text: one link per member, by name, each naming exactly its note."""
    links = sorted((resolver.link_text_for(path) for path in members), key=str.casefold)
    return "\n".join(f"- [[{link}]]" for link in links) + "\n"


def moc_folder(folders: Iterable[str]) -> str:
    """Return the one folder named like a home for maps of content ("MOCs", "Maps"), or ""."""
    found = [folder for folder in folders if folder.rsplit("/", 1)[-1].casefold() in _MOC_FOLDERS]
    return found[0] if len(found) == 1 else ""


async def propose_moc(
    moc: MocRequest, request: str, writes: WriteToolBox, *, search: Callable[[str], TopicSearch]
) -> tuple[str, bool]:
    """Propose the map of content through the create tool; return the reply text and whether it was proposed.

    `search(topic)` embeds and searches, and the snapshot reads the vault: both block, so they run in a thread.
    """
    reader = writes.reader
    snapshot = await asyncio.to_thread(reader.snapshot)
    members = await notes_on_topic(reader, snapshot, moc.topic, search)
    if not members.paths:
        return (
            f"I found no notes on “{moc.topic}”: none names it in its title, folder, tags or properties, and none of "
            "those the search found covers it on its own. Nothing was proposed; try the word your notes use for it.",
            False,
        )
    named_folder = "" if moc.in_folder else requested_folder(snapshot, request, (moc.note_name,))
    folder = named_folder or moc_folder(sorted(vault_folders(snapshot)))
    path = f"{folder}/{moc.note_name}" if folder else moc.note_name
    content = moc_text(members.paths, snapshot.resolver)
    try:
        await writes.run("edit_note", json.dumps({"command": "create", "path": path, "content": content}))
    except AppError as exc:
        return f"I could not propose the map of content: {exc.message.rstrip('.')}. Nothing was proposed.", False
    return f"I read your request as: create the map of content “{moc.note_name}” {_linking(moc, members)}.", True


async def notes_on_topic(
    reader: VaultReader, snapshot: VaultSnapshot, topic: str, search: Callable[[str], TopicSearch]
) -> MocMembers:
    """Return the notes on `topic` a map of content links (`moc_members`), searched and judged in a thread."""
    found = await asyncio.to_thread(search, topic)
    resolver = snapshot.resolver
    return await asyncio.to_thread(
        moc_members,
        notes_outside_templates(reader, snapshot),
        topic,
        found,
        resolve=lambda target, source: resolver.resolve(target, source_path=source).path,
    )


def notes_outside_templates(reader: VaultReader, snapshot: VaultSnapshot) -> list[Note]:
    """Return the vault's notes but its templates: a template is on no topic, and what it holds goes into new notes."""
    try:
        templates = reader.templates_folder(snapshot)
    except AppError:  # no templates folder (obsidian-tasks-demo has none): no note is a template
        templates = ""
    return [note for path, note in snapshot.notes.items() if not (templates and path.startswith(f"{templates}/"))]


def _linking(moc: MocRequest, members: MocMembers) -> str:
    count = len(members.paths)
    notes = f"{count} note{'s' if count != 1 else ''}"
    how = "named in their title, folder, tags or properties" if members.by_name else "found by the search"
    more = f"; the best-ranked {count} of {members.found}" if members.found > count else ""
    return f"linking the {notes} on “{moc.topic}” ({how}, or filed under such a note{more})"
