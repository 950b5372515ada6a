"""The one `Settings` (env.py), its fields by group (`*_fields.py`), each layer's sub-settings (sections.py)."""

from core.settings.env import Settings
from core.settings.index_fields import BUNDLED_EMBED_MODEL, MAX_NOTE_CHUNKS
from core.settings.sections import (
    AnswerSettings,
    CrewSettings,
    EmbeddingSettings,
    LlmSettings,
    RetrievalSettings,
    ServerSettings,
    StoreSettings,
    SyncSettings,
    TracingSettings,
    VaultSettings,
    WriteSettings,
)

__all__ = [
    "BUNDLED_EMBED_MODEL",
    "MAX_NOTE_CHUNKS",
    "AnswerSettings",
    "CrewSettings",
    "EmbeddingSettings",
    "LlmSettings",
    "RetrievalSettings",
    "ServerSettings",
    "Settings",
    "StoreSettings",
    "SyncSettings",
    "TracingSettings",
    "VaultSettings",
    "WriteSettings",
]
