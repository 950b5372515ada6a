"""The questions code answers with a list, no model asked.

Tasks by date or place, the vault's links and tags, the notes of a kind, the latest dated mentions of a subject,
what there is to buy.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.tools.buy_lists import BuyLists
from agent.tools.latest_mentions import LatestMentions
from agent.tools.list_reply import ListReply
from agent.tools.reader import VaultReader
from agent.tools.task_lists import TaskLists
from agent.tools.vault_lists import VaultLists


class CodeLists:
    """Answer "Which notes link to Books?", "What tasks are in ACME?", "What's overdue?" from the vault itself."""

    def __init__(self, reader: VaultReader) -> None:
        self._vault = VaultLists(reader)
        self._tasks = TaskLists(reader)
        self._latest = LatestMentions(reader)
        self._buying = BuyLists(reader)

    def reply_for(self, question: str, earlier: Sequence[str] = ()) -> ListReply | None:
        """Return the list `question` asks for, or None when code gives no list for it.

        `earlier`: the user's questions before it, oldest first ("Which of them are done?" asks of the list before).
        The links and tags go first: their questions are read whole ("Which notes link to Tasks?" asks for no tasks).
        """
        return (
            self._vault.reply_for(question)
            or self._tasks.reply_for(question, earlier)
            or self._latest.reply_for(question, earlier)
            or self._buying.reply_for(question, earlier)
        )
