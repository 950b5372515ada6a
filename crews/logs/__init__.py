"""Run logs: each run's state (`state.json`), its readable `run.md`, and their retention."""
