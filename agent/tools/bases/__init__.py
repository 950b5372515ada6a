"""The bases read tool: Obsidian `.base` files, their filter expressions and the rows their views list."""

from agent.tools.bases.tool import BASES

__all__ = ["BASES"]
