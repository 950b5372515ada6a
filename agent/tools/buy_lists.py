"""What there is to buy, listed by code: the open tasks saying so, and those under a heading saying so.

A task is one to buy when its words start so ("Buy straw …", "Order seed potatoes", "Purchase …"), when a tag says so
("#shopping", "#groceries"), or when a heading above it names a list of purchases ("To buy for 2027", "Shopping",
"Groceries"); asked what it is for ("… for the garden"), only those whose words, tags, note path (title and folders)
or headings hold it. Open ones only, the earliest
due first, then in the vault's order; none found is for the search (the vault may keep its shopping list in prose).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from agent.tools.list_reply import MAX_LISTED, ListReply, capped
from agent.tools.reader import VaultReader
from agent.tools.vault_tasks import is_open, vault_tasks
from rag.answer.attribution import terms_of, word_terms
from rag.answer.buy_questions import buying_asked, purpose_after
from rag.answer.secrets import redact_secrets
from rag.notes.inline import TAG
from rag.notes.task_fields import parse_task_fields

# A task's opening words saying it is a purchase (English and German, as the vaults here write them); not "Buy-in
# from Priya", nor "Pick up the kids".
_BUYING = re.compile(r"^(?:buy|order|purchase|re-?order|restock|kaufen|besorgen|bestellen)\b(?!-)", re.IGNORECASE)
# A heading naming a list of purchases, whole: "To buy for 2027", "Shopping list", "Groceries"; not "Buy vs build" or
# "Online Shopping Checkout Revamp".
_BUYING_HEADING = re.compile(
    r"^(?:(?:things\s+)?to\s+buy|shopping(?:\s+list)?|groceries|grocery\s+list|einkauf(?:sliste|en)?|zu\s+kaufen)"
    r"(?:\s+(?:for|in|at|bei|für)\b.*|\s+\d{4})?$",
    re.IGNORECASE,
)
# A tag marking a purchase: "- [ ] oat milk #groceries".
_BUYING_TAGS = frozenset({"shopping", "groceries", "grocery", "buy", "to-buy", "tobuy", "einkauf", "einkaufen"})


class BuyLists:
    """Answer "What do I need to buy?" from the vault's open tasks."""

    def __init__(self, reader: VaultReader, *, max_listed: int = MAX_LISTED) -> None:
        self._reader = reader
        self._max_listed = max_listed

    def reply_for(self, question: str, earlier: Sequence[str] = ()) -> ListReply | None:
        """Return the open tasks to buy `question` asks for, or None (another question, or none found).

        `earlier`: the user's questions before it, oldest first ("And for the garden?" after "What do I need to buy?").
        """
        purpose = buying_asked(question)
        if purpose is None and earlier:
            purpose = purpose_after(question, earlier[-1])
        if purpose is None:
            return None
        wanted = word_terms(purpose)
        snapshot = self._reader.snapshot()
        found: list[tuple[date, int, str, str]] = []  # (due date, or none; order; line; anchor)
        for path, tasks in vault_tasks(self._reader, snapshot):
            for task in tasks:
                if not is_open(task):
                    continue
                fields = parse_task_fields(task.text)
                words = TAG.sub(" ", fields.description).strip()
                tags = {tag.casefold() for tag in TAG.findall(fields.description)}
                headings = snapshot.heading_path_at(path, task.line)
                if not (
                    _BUYING.match(words)
                    or any(tag.split("/")[-1] in _BUYING_TAGS for tag in tags)
                    or any(_BUYING_HEADING.match(heading.strip()) for heading in headings)
                ):
                    continue
                # Where it is for: its words, tags ("#garden"), note path ("Areas/Garden/Seed Inventory"), headings.
                held = " ".join((words, *(tag.replace("/", " ") for tag in tags), path.removesuffix(".md"), *headings))
                if wanted and not wanted <= terms_of(held):
                    continue
                line = f"[{task.status}] {task.text}"
                anchor = snapshot.anchor(path, headings)
                found.append((fields.due or date.max, len(found), line, anchor))
        if not found:
            return None
        found.sort()
        lines = [f"- {self._shown(line)} {anchor}" for _, _, line, anchor in found]
        count = f"{len(found)} open task{'s' if len(found) != 1 else ''}"
        purpose_said = f" for {purpose}" if purpose else ""
        header = f"{count} to buy{purpose_said} (saying buy, order or purchase, or under a heading such as “To buy” or"
        header += " “Shopping”)"
        header += ", the earliest due first:" if any(due != date.max for due, *_ in found) else ":"
        anchors = tuple(dict.fromkeys(anchor for *_, anchor in found[: self._max_listed]))
        return ListReply("\n".join([header, *capped(lines, self._max_listed)]), anchors)

    def _shown(self, line: str) -> str:
        return redact_secrets(line) if self._reader.redacts_secrets else line
