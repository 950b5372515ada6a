"""The LLM side of the agent: the OpenAI-compatible chat client, its wire format, endpoint failover, redaction."""

from agent.llm.client import OpenAICompatibleChatModel, build_chat_model
from agent.llm.redaction import RedactingFilter, redact

__all__ = ["OpenAICompatibleChatModel", "RedactingFilter", "build_chat_model", "redact"]
