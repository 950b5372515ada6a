"""The settings of the running service: the HTTP edge, background re-indexing, answers and tracing."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import NoDecode


class ServiceFields(BaseModel):
    """The service: HTTP, re-indexing, answers, tracing."""

    host: str = Field("127.0.0.1", description="Where `librarian serve` listens (beyond loopback: needs `API_KEY`).")
    port: int = Field(8000, gt=0, lt=65536, description="The port `librarian serve` listens on.")
    api_key: SecretStr | None = Field(
        None,
        description="Bearer key required on `/v1/*`, `/mcp` and the web UI; required to listen beyond loopback, and "
        "there at least 16 characters.",
    )
    cors_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        ("app://obsidian.md", "http://localhost", "http://127.0.0.1"),
        description="Allowed browser origins, comma-separated (localhost and 127.0.0.1 on any port always); `*` is "
        "refused.",
    )
    max_body_bytes: int = Field(1_000_000, gt=0, description="Larger requests get 413.")
    keepalive_seconds: float = Field(2.0, gt=0, description="Keep-alive comment interval on streams.")
    shutdown_grace_seconds: int = Field(
        5,
        ge=0,
        description="On SIGTERM or Ctrl+C, how long answers still running (streamed or not, waiting on a slow model) "
        "may finish before they are cut short (a 503 for one not begun). Then the re-index stops at its next commit "
        "and the stores close.",
    )
    sync_interval_minutes: float = Field(15, gt=0, description="Background re-index interval (plus one at start).")
    watch: bool = Field(True, description="Re-index when files change.")
    watch_debounce_ms: int = Field(1000, ge=0, description="How long the watcher waits for more changes.")
    show_sources: bool = Field(
        True,
        description='Add a sources list under answers ("Sources:" cited or matched to the answer\'s words, else '
        '"Notes searched:", which also follows the model\'s refusal).',
    )
    show_evidence: bool = Field(
        True,
        description='Under an answer, "Your notes say:" quotes the sentences of the notes it read that hold what it '
        "says (at most two, chosen by code and copied verbatim, each with its [[Note#Heading]] link), so a small "
        "model's misread number or one-word answer can be checked against the note itself.",
    )
    answer_passage_chars: int = Field(
        2_000,
        ge=300,
        le=40_000,
        description="Characters of note text sent with each question (the retrieved passages share them, the best "
        "ones more; a longer passage is cut to its part that best matches the question). The model reads them before "
        "its first word: about 600-1,000 tokens at the default. Lower it where the first word comes too late on slow "
        "hardware, at a cost in facts that reach the model (at 1,600 the evidence in the passages fell from 0.917 to "
        "0.875 on sample_vault and from 0.667 to 0.567 on a vault of long notes); raise it for a fast model with a "
        "large context.",
    )
    answer_first_token_seconds: float = Field(
        7.0,
        ge=0,
        le=600,
        description="Seconds the model may take to read a question's passages before its first word: where it reads "
        "too slowly for `ANSWER_PASSAGE_CHARS` in that time (measured on its latest replies: a 1.5B model on two CPU "
        "cores reads about 70 tokens a second), fewer are sent, at least 800 characters. A model on a GPU is not cut; "
        "a hosted API is timed only where it reports its own reading time. It also bounds the opening's hold: an "
        "answer in numbered parts is held for its last part, and a yes-or-no reply whole, no later than 2 s after this "
        "time from the model's call. 0: always `ANSWER_PASSAGE_CHARS`, and no such bound.",
    )
    answer_neighbour_chunks: int = Field(
        0,
        ge=0,
        le=4,
        description="Chunks of the best hit's note on each side of it that may fill the room the retrieved passages "
        "leave in `ANSWER_PASSAGE_CHARS` (whole chunks, the one after first; 0: none). An answer often sits a chunk "
        "past the one its question's words match, but at the default budget the hits mostly fill it, and the room "
        "costs prompt tokens; worth trying with a larger budget (see docs/benchmarks.md, stop 30).",
    )
    answer_quotes: bool = Field(
        False,
        description="Questions a model answers without tools quote first: it returns the passages and exact quotes "
        "that answer them, the service checks each quote is in a passage offered, and the answer is shown from "
        "verified quotes with their notes cited; none verified, the service says your notes don't say it and lists "
        "the closest notes. Off (the default): one plain completion. With Qwen2.5-Coder 0.5B quoting refused 4-5 of "
        "6 near misses (plain: 2, or 4 with ANSWER_CHECK) but also 3-4 of 20 answerable questions (plain: 1), as it "
        "offers its own sentences as quotes; the 1.5B copies exactly and refused fewer near misses quoting than "
        "plain, so it is opt-in.",
    )
    answer_check: bool = Field(
        True,
        description="The opening of the first reply to a question (its first sentence past 80 characters, or all "
        "of a shorter one; not what a model writes before a tool call, nor an answer after tool results) is held "
        "until code has read it against the passages: when no sentence of them holds what it says and it repeats "
        "none, or a figure it states is one the notes give for something else (the bulk fermentation's 24 °C for "
        "the fridge), the model is stopped and the service says your notes don't say it, with the "
        "sentences closest to the question and the notes searched. Small models answer near misses with what they "
        "read nearby (a sourdough recipe for a plum cake the notes never give) or know (a Kubernetes manifest); this "
        "refuses those before they show, for under a second more to the first text. A reply naming nothing beyond "
        'a question that asks for something ("nomic", asked which model was chosen "and why not nomic?") is '
        "withheld too.",
    )
    agent_recursion_limit: int = Field(
        12, gt=0, description="LangGraph steps per chat turn (tool rounds fit under it)."
    )
    otel_exporter_otlp_endpoint: str | None = Field(
        None,
        description="Base URL of an OTLP/HTTP collector, e.g. `http://localhost:4318`: chat turns, crew runs and "
        "`librarian ask` send OpenTelemetry spans there. Unset: no tracer and no exporter is loaded.",
    )
    otel_exporter_otlp_headers: SecretStr | None = Field(
        None, description="Headers sent with each export, `key=value,key2=value2` (e.g. `Authorization=Basic …`)."
    )
    otel_service_name: str = Field("vault-librarian", min_length=1, description="The service name on every span.")
    trace_content: bool = Field(
        False,
        description="Also record questions, prompts, replies, search queries and tool arguments and results in spans "
        "(credentials masked, keys removed). Off: names, counts, paths, scores and timings only.",
    )
