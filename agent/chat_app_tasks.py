"""Chat apps' background chores (Open WebUI's title, tags and follow-ups) go to the model as sent, not to the notes.

After an answer Open WebUI asks the chat's own model for a title, tags and follow-up questions: one user message
starting "### Task:", the chat quoted inside it, a JSON reply asked for. They are no questions about the vault.
Answered as one, each chore was searched, judged by the relevance floor, sent with passages and the grounding
rules (a small local model then answered the chat's question again, or refused it), got "Your notes say:" and a
sources list after its reply, and was stored as a turn of the user's conversation, whose id Open WebUI sends with
it. Passed through, it is one plain completion of the messages the app sent, and its reply is left as the model
wrote it, so the app can read its JSON. Without a model (retrieval-only) the reply says so in a sentence with no
JSON in it: Open WebUI then titles the chat by its first message, as when its model fails, rather than by a list
of passages.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from core.chat import AnswerDone, AnswerEvent, AnswerText, TurnRequest, Usage
from core.ports import Answerer, ChatModel

TASK_MARKER = "### task:"  # how every Open WebUI task prompt begins (title, tags, follow-ups, queries, autocomplete)
# ... and what each of them has further on; a note pasted into the chat that starts with a "### Task:" heading
# has neither, and is a question about the vault like any other message.
TASK_PARTS = ("<chat_history>", "### guidelines:", "### output:")
NO_MODEL_FOR_TASKS = "No model is configured, so this chat app task (a title, tags or follow-ups) was not run."


def latest_user_text(request: TurnRequest) -> str:
    """Return the text of the client's latest user message ("" when there is none)."""
    for message in reversed(request.messages):
        if message.role == "user":
            return message.content.strip()
    return ""


def is_chat_app_task(message: str) -> bool:
    """Return True for a chat app's background chore (Open WebUI's title, tags and follow-up prompts)."""
    text = message.lstrip().lower()
    return text.startswith(TASK_MARKER) and any(part in text for part in TASK_PARTS)


class ChatAppTasks:
    """Answer a chat app's chore with a plain completion of its messages; pass every other turn on."""

    def __init__(self, inner: Answerer, chat_model: ChatModel | None, *, max_tokens: int | None = None) -> None:
        self._inner = inner
        self._chat_model = chat_model
        self._max_tokens = max_tokens  # LLM_MAX_TOKENS, as for answers: a small model may not stop by itself

    @property
    def mode(self) -> str:
        """Return the wrapped answerer's mode."""
        return self._inner.mode

    async def answer(self, request: TurnRequest) -> AsyncIterator[AnswerEvent]:
        """Stream the model's reply to a chore as it writes it, or let the wrapped answerer answer the turn."""
        if not is_chat_app_task(latest_user_text(request)):
            async for event in self._inner.answer(request):
                yield event
            return
        if self._chat_model is None:
            yield AnswerText(NO_MODEL_FOR_TASKS)
            yield AnswerDone(usage=Usage(0, len(NO_MODEL_FOR_TASKS.split()), is_estimate=True))
            return
        usage: Usage | None = None
        finish = "stop"
        async for delta in self._chat_model.stream(request.messages, max_tokens=self._max_tokens):
            if delta.text:
                yield AnswerText(delta.text)
            usage = delta.usage or usage
            finish = delta.finish_reason or finish
        yield AnswerDone(usage=usage or Usage(is_estimate=True), finish_reason=finish)
