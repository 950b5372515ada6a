"""Answer evals: golden sets, scoring of replies as users get them, and the run against a live or scratch service."""
