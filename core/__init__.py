"""Shared nouns, ports and settings of Vault Librarian (stdlib and pydantic only)."""
