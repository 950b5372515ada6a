"""Benchmarks: runnable scripts that print figures (targets live here, never in timed tests)."""
