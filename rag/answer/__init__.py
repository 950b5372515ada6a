"""Grounding answers in the notes: model context, citation checks, the relevance floor, retrieval-only replies."""
