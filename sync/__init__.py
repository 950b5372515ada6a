"""Incremental re-indexing: watermarks, the reindexer and its schedule."""
