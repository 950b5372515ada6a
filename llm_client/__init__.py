"""The LLM side of the agent: the OpenAI-compatible chat client, its wire format, endpoint failover, redaction."""

from llm_client.client import OpenAICompatibleChatModel
from llm_client.discovery import build_chat_model
from llm_client.secrets.redaction import RedactingFilter, redact

__all__ = ["OpenAICompatibleChatModel", "RedactingFilter", "build_chat_model", "redact"]
