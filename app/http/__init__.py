"""The HTTP front: the FastAPI app (`create_app`), its routes, security middleware and OpenAI-compatible schemas."""
