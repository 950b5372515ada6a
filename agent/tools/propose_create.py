"""The write tools that make notes: a day's daily note (created when missing) and a base's new item."""

from __future__ import annotations

from typing import Any

from agent.tools.propose_base_item import ADD_BASE_ITEM
from agent.tools.propose_daily import EDIT_DAILY_NOTE
from agent.tools.propose_kit import ProposeTool

CREATE_TOOLS: tuple[ProposeTool[Any], ...] = (EDIT_DAILY_NOTE, ADD_BASE_ITEM)
