"""Optional request fields an endpoint refused (stream_options, response_format, max_tokens), read from its 400.

Servers that do not know a field either ignore it or answer 400/422 naming it: older llama.cpp and vLLM refuse
`stream_options`; llama.cpp before json_schema support answers `response_format type must be one of "text" or
"json_object"`, and a server whose grammar engine cannot compile a schema says "schema" or "grammar". A refused
field is dropped and the call is sent again; `response_format` is then left out at that endpoint for the life of
the client (the reply is validated by its caller anyway), `stream_options` once a call without it went through.
`max_tokens` is what llama.cpp, Ollama, LM Studio and vLLM read; OpenAI's reasoning models refuse it ("Use
'max_completion_tokens' instead"), so such an endpoint is sent `max_completion_tokens` from then on, and an endpoint
that refuses both is sent neither. `temperature` (LLM_TEMPERATURE) is left out where refused (reasoning models
take only their default).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

# How servers refuse a field they do not know or cannot use.
REFUSAL_STATUS = frozenset({400, 422})
_RESPONSE_FORMAT_WORDS = ("response_format", "json_schema", "schema", "grammar")


@dataclass(frozen=True, slots=True)
class OptionalFields:
    """The optional fields one request carries."""

    stream_usage: bool = False  # `stream_options: {"include_usage": true}`
    response_format: Mapping[str, object] | None = None
    max_tokens: int | None = None  # the reply's token cap
    max_tokens_field: str = "max_tokens"  # or "max_completion_tokens" (OpenAI's reasoning models)
    temperature: float | None = None


class FieldRefusals:
    """Remember, per base URL, which optional fields the endpoint refused."""

    def __init__(self) -> None:
        self._without_stream_options: set[str] = set()
        self._without_response_format: set[str] = set()
        self._max_tokens_field: dict[str, str | None] = {}  # None: the endpoint takes no token cap
        self._without_temperature: set[str] = set()

    def fields_for(self, base: str, *, stream: bool, wanted: OptionalFields) -> OptionalFields:
        """Return the optional fields of `wanted` to send to `base`, leaving out those it refused before."""
        field = self._max_tokens_field.get(base, "max_tokens")
        return OptionalFields(
            stream_usage=stream and base not in self._without_stream_options,
            response_format=None if base in self._without_response_format else wanted.response_format,
            max_tokens=wanted.max_tokens if field is not None else None,
            max_tokens_field=field or "max_tokens",
            temperature=None if base in self._without_temperature else wanted.temperature,
        )

    def refused(self, base: str, fields: OptionalFields, status: int, detail: str) -> OptionalFields | None:
        """Return the fields to send again after a refusal, or None when the error is not about an optional field.

        Args:
            base: the endpoint that answered.
            fields: what the refused request carried.
            status: the HTTP status of the reply.
            detail: the provider's error message.

        """
        if status not in REFUSAL_STATUS:
            return None
        text = detail.lower()
        if fields.stream_usage and "stream_options" in text:
            return replace(fields, stream_usage=False)
        if fields.response_format is not None and any(word in text for word in _RESPONSE_FORMAT_WORDS):
            self._without_response_format.add(base)
            return replace(fields, response_format=None)
        if fields.temperature is not None and "temperature" in text:
            self._without_temperature.add(base)
            return replace(fields, temperature=None)
        if fields.max_tokens is not None and fields.max_tokens_field in text:
            if fields.max_tokens_field == "max_tokens" and "max_completion_tokens" in text:
                self._max_tokens_field[base] = "max_completion_tokens"
                return replace(fields, max_tokens_field="max_completion_tokens")
            self._max_tokens_field[base] = None
            return replace(fields, max_tokens=None)
        if fields.stream_usage:
            # Servers that refuse stream_options do not always name it (a bare 400 or a pydantic 422).
            return replace(fields, stream_usage=False)
        return None

    def went_through(self, base: str, fields: OptionalFields, *, stream: bool) -> None:
        """Record that a request with `fields` succeeded (a stream without stream_options: leave them out later)."""
        if stream and not fields.stream_usage:
            self._without_stream_options.add(base)

    def is_refusing_response_format(self, base: str) -> bool:
        """Return True when `base` refused response_format before (it is no longer sent there)."""
        return base in self._without_response_format


def refused_field(sent: OptionalFields, retry: OptionalFields) -> tuple[str, str]:
    """Return the field a refusal was about and how the retry differs, for the log line."""
    if retry.response_format is None and sent.response_format is not None:
        return "response_format", "without it"
    if retry.max_tokens_field != sent.max_tokens_field:
        return sent.max_tokens_field, f"with {retry.max_tokens_field}"
    if retry.max_tokens is None and sent.max_tokens is not None:
        return sent.max_tokens_field, "without it"
    if retry.temperature is None and sent.temperature is not None:
        return "temperature", "without it"
    return "stream_options", "without it"
