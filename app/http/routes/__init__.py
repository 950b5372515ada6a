"""HTTP routes: health and readiness, models, index status, chat completions."""
