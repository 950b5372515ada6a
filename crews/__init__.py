"""Crews: deterministic pipelines over the vault (collector -> one LLM call against a schema -> code-applied actions).

A crew is Markdown in the vault: a team note declares the pipeline, agent notes hold system prompts. The model
decides content only, inside a schema; code decides flow, paths and writes, and every write goes through the
shared edit layer (scope, staleness hash, snapshot, change log, undo).
"""
