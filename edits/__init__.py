"""The edit layer every front that changes the vault shares: scope, proposals, diffs, apply, undo, change log, writers.

The chat agent, crews and the MCP server all change notes through here and nowhere else, so each write gets the
same scope checks, staleness hash, write-ahead snapshot, read-back and undo.
"""
