"""The texts every front shows about edits (chat, MCP, HTTP, CLI, web): proposals with diffs, apply and undo reports.

Composed by code, never by a model: what the user approves must be exactly what was stored and will be applied.
"""
