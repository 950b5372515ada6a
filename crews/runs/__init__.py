"""One crew run: the runner and its task steps, the llm task, the deps, write budget, progress, abort and locks."""
