"""The agent's read tools: a few category tools with allowlisted sub-commands over the current vault."""

from agent.tools.outcome import ToolOutcome
from agent.tools.reader import VaultReader
from agent.tools.registry import READ_TOOLS, ToolRegistry

__all__ = ["READ_TOOLS", "ToolOutcome", "ToolRegistry", "VaultReader"]
