"""Retrieval core: parse, chunk, embed, store and search the notes of a vault."""
