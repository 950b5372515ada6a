"""GET /v1/models: the one model this service offers."""

from __future__ import annotations

import time

from fastapi import APIRouter

from app.http.openai_schemas import MODEL_ID

router = APIRouter()
STARTED = int(time.time())


@router.get("/v1/models")
async def list_models() -> dict[str, object]:
    """Return the model list in OpenAI's shape."""
    return {
        "object": "list",
        "data": [{"id": MODEL_ID, "object": "model", "created": STARTED, "owned_by": "vault-librarian"}],
    }
