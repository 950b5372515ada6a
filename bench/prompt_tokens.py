"""Measure what one chat turn sends to the model: tokens per part, the stable prefix, and a real reply's usage.

Usage: python -m bench.prompt_tokens [--vault DIR] [--question Q ...] [--llm http://127.0.0.1:8081] [--reply]
       [--no-warm-up] [--json OUT] [--before EARLIER.json]

The real service runs in-process on a copy of the vault, with a recording scripted model in place of the LLM, so
what is measured is exactly the JSON the service sends. Each part (instructions, tool schemas, passages, history,
question) is counted in the model's own tokenizer through llama.cpp's `POST /tokenize`, and the whole prompt
through `POST /apply-template` (the model's chat template, tools included); without a llama.cpp server the counts
are chars/4 estimates, labelled `est`. With `--reply` each recorded request is replayed, in order, to the real
model (a few output tokens): `usage.prompt_tokens`, time to the first token, and llama.cpp's `timings`
(`cache_n` tokens reused from its prompt cache, `prompt_n` tokens evaluated) are printed. The service's warm-up
requests at start (LLM_WARM_UP, agent/prompt_cache.py: with LLM_TOOLS=auto a probe for a tool call, which the
scripted model answers with text, as small models do, then the prefix) are recorded and replayed first;
`--no-warm-up` leaves them out, so the first turn meets a cold cache.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.turn_recording import record_turns

ROOT = Path(__file__).resolve().parents[1]
SHARED_VAULT = ROOT.parent / "shared" / "vaults" / "obsidian-tasks-demo"
# Questions per vault folder name; another vault needs --question. The second one is asked as a follow-up in the
# same conversation, so its request carries history; the others start conversations of their own.
QUESTIONS = {
    "obsidian-tasks-demo": (
        "How do I find tasks in notes that have a particular tag in their frontmatter?",
        "And how do I make a regular expression search case-insensitive?",
        "How are recurring tasks with invalid dates handled?",
    ),
    "sample_vault": (
        "How long does the sourdough proof in the fridge?",
        "And how long does the autolyse rest?",
        "How many garlic cloves did I plant?",
    ),
}
REPLY_TOKENS = 16
# A passage as rag.answer.context.format_note writes it (the rules' own mentions of "<note>" are not passages).
_NOTE = re.compile(r'<note source="[^"]*"[^>]*>\n.*?\n</note>', re.DOTALL)
PARTS = ("instructions", "tools", "passages", "history", "question", "turn extras")


@dataclass(frozen=True, slots=True)
class Counter:
    """Counts tokens with llama.cpp's tokenizer, or estimates chars/4 when there is none."""

    llm: httpx.Client | None

    @property
    def unit(self) -> str:
        """Return how tokens are counted."""
        return "tokens (model tokenizer)" if self.llm is not None else "tokens (est, chars/4)"

    def tokens(self, text: str) -> int:
        """Return the tokens of `text`."""
        if not text:
            return 0
        if self.llm is None:
            return round(len(text) / 4)
        response = self.llm.post("/tokenize", json={"content": text})
        response.raise_for_status()
        return len(response.json()["tokens"])

    def rendered(self, body: dict[str, Any]) -> str | None:
        """Return the prompt the model's chat template makes of a request, or None without llama.cpp."""
        if self.llm is None:
            return None
        response = self.llm.post("/apply-template", json={"messages": body["messages"], "tools": body.get("tools")})
        response.raise_for_status()
        return str(response.json()["prompt"])


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_vault = SHARED_VAULT if SHARED_VAULT.is_dir() else ROOT / "sample_vault"
    parser.add_argument("--vault", type=Path, default=default_vault, help="copied first; never written")
    parser.add_argument("--question", action="append", help="ask this (repeat for more); default: the vault's set")
    parser.add_argument("--llm", default="http://127.0.0.1:8081", help="llama.cpp server root ('' for estimates)")
    parser.add_argument("--reply", action="store_true", help="replay each request to the real model")
    parser.add_argument("--no-warm-up", action="store_true", help="start the service with LLM_WARM_UP=false")
    parser.add_argument("--json", type=Path, help="write the figures here (JSON)")
    parser.add_argument("--before", type=Path, help="figures written by --json earlier: print them beside these")
    return parser.parse_args()


def split_parts(body: dict[str, Any], question: str) -> dict[str, str]:
    """Return the text of each part of a request: instructions, tools, passages, history, question, extras."""
    messages = body.get("messages", [])
    last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=len(messages))
    texts = [str(m.get("content") or "") for m in messages]
    passages = [match.group(0) for text in texts for match in _NOTE.finditer(text)]
    system = [_NOTE.sub("", text) for m, text in zip(messages, texts, strict=True) if m["role"] == "system"]
    first = 1 if messages and messages[0]["role"] == "system" else 0
    history = [_NOTE.sub("", t) for m, t in zip(messages[first:last_user], texts[first:last_user], strict=True)]
    current = _NOTE.sub("", texts[last_user]) if last_user < len(messages) else ""
    # The template renders each tool as JSON on its own line (Qwen: `tool | tojson`; json.dumps spacing).
    tools = "\n".join(json.dumps(tool, ensure_ascii=False) for tool in body.get("tools", []))
    return {
        "instructions": "\n".join(system),
        "tools": tools,
        "passages": "\n\n".join(passages),
        "history": "\n".join(
            t for m, t in zip(messages[first:last_user], history, strict=True) if m["role"] != "system"
        ),
        "question": question if question in current else "",
        "turn extras": current.replace(question, "", 1) if question in current else current,
    }


def common_prefix(texts: Sequence[str]) -> str:
    """Return the longest prefix every text starts with."""
    return os.path.commonprefix(list(texts)) if texts else ""


def replay(llm: httpx.Client, body: dict[str, Any], model: str) -> dict[str, Any]:
    """Send one recorded request to the real model; return usage, timings and the seconds to its first token."""
    sent = {**body, "model": model, "stream": True, "max_tokens": REPLY_TOKENS}
    sent["stream_options"] = {"include_usage": True}
    started = time.perf_counter()
    first: float | None = None
    final: dict[str, Any] = {}
    # A connection of its own: llama-server has dropped a kept-alive one between replays.
    with llm.stream("POST", "/v1/chat/completions", json=sent, headers={"Connection": "close"}) as response:
        response.raise_for_status()
        for event in _events(response.iter_lines()):
            delta = (event.get("choices") or [{}])[0].get("delta") or {}
            if first is None and (delta.get("content") or delta.get("tool_calls")):
                first = time.perf_counter() - started
            final.update({key: event[key] for key in ("usage", "timings") if event.get(key)})
    return {**final, "first_token_s": first}


def _events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if line.startswith("data:") and line[5:].strip() != "[DONE]":
            yield json.loads(line[5:])


def measure_turns(
    bodies: Sequence[dict[str, Any]], questions: Sequence[str], counter: Counter
) -> tuple[list[dict[str, int]], list[str | None]]:
    """Return each turn's tokens per part (and in all, and its characters) and its rendered prompt."""
    figures: list[dict[str, int]] = []
    rendered: list[str | None] = []
    for body, question in zip(bodies, questions, strict=True):
        if not body:  # refused before the model
            figures.append({})
            rendered.append(None)
            continue
        parts = split_parts(body, question)
        counts = {part: counter.tokens(parts[part]) for part in PARTS}
        prompt = counter.rendered(body)
        total = counter.tokens(prompt) if prompt is not None else sum(counts.values())
        chars = len(json.dumps(body.get("messages", []))) + len(parts["tools"])
        figures.append({**counts, "prompt total": total, "chars": chars})
        rendered.append(prompt)
    return figures, rendered


def print_turns(figures: Sequence[dict[str, int]], unit: str, before: Sequence[dict[str, int]] | None) -> None:
    """Print the tokens of each part of each turn; with `before`, each figure as before -> now."""
    columns = [*PARTS, "prompt total", "chars"]
    print(f"\nper turn, {unit}" + (" (before -> now)" if before else "") + ":")
    width = 15 if before else 13
    print(f"{'turn':<5}" + "".join(f"{column:>{width}}" for column in columns))
    for number, turn in enumerate(figures, start=1):
        if not turn:
            print(f"{number:<5}refused before the model: nothing sent")
            continue
        old = before[number - 1] if before and number <= len(before) else {}
        cells = [f"{old[c]:,}->{turn[c]:,}" if c in old else f"{turn[c]:,}" for c in columns]
        print(f"{number:<5}" + "".join(f"{cell:>{width}}" for cell in cells))


def print_prefix(rendered: Sequence[str | None], counter: Counter) -> None:
    """Print how much of each prompt is the prefix all turns share (what a prompt cache can reuse)."""
    prompts = [prompt for prompt in rendered if prompt is not None]
    if len(prompts) < 2:
        return
    shared = common_prefix(prompts)
    shared_tokens = counter.tokens(shared)
    news = [counter.tokens(prompt) - shared_tokens for prompt in prompts]
    print(f"\nprefix shared by every turn: {shared_tokens:,} tokens ({len(shared):,} chars); it ends with:")
    print("  ..." + json.dumps(shared[-120:]))
    print("new to the cache per turn (total minus the shared prefix): " + ", ".join(f"{n:,}" for n in news))


def print_replies(llm: httpx.Client, bodies: Sequence[dict[str, Any]], warm_bodies: Sequence[dict[str, Any]]) -> None:
    """Replay each recorded request to the real model, in order, and print its usage, cache reuse and first token."""
    model = str(llm.get("/v1/models").json()["data"][0]["id"])
    print(f"\nreplayed to {model} (max_tokens {REPLY_TOKENS}), in order:")
    labelled = [(f"warm-up {number}", body) for number, body in enumerate(warm_bodies, start=1)]
    labelled += [(f"turn {number}", body) for number, body in enumerate(bodies, start=1)]
    for label, body in labelled:
        if not body:
            continue
        result = replay(llm, body, model)
        timings = result.get("timings", {})
        first = result["first_token_s"]
        print(
            f"{label}: usage.prompt_tokens {result.get('usage', {}).get('prompt_tokens')}, first token "
            f"{'-' if first is None else f'{first:.1f} s'}, cache_n {timings.get('cache_n')} (reused), prompt_n "
            f"{timings.get('prompt_n')} (evaluated in {timings.get('prompt_ms', 0) / 1000:.1f} s, "
            f"{timings.get('prompt_per_second', 0):.0f} tokens/s; the first token also waits for other requests)"
        )


def main() -> None:
    """Record the service's requests for the questions, then print their token figures."""
    args = parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    questions = tuple(args.question or QUESTIONS.get(args.vault.name, ()))
    if not questions:
        raise SystemExit(f"no default questions for {args.vault.name}; pass --question")
    warm_bodies, bodies = record_turns(args.vault, questions, warm_up=not args.no_warm_up)
    before = json.loads(args.before.read_text("utf-8"))["turns"] if args.before else None
    with httpx.Client(base_url=args.llm or "http://unused", timeout=900) as llm:
        counter = Counter(llm if args.llm else None)
        figures, rendered = measure_turns(bodies, questions, counter)
        print_turns(figures, counter.unit, before)
        print_prefix(rendered, counter)
        if args.json:
            args.json.write_text(json.dumps({"vault": args.vault.name, "turns": figures}, indent=1), "utf-8")
        if args.reply and args.llm:
            print_replies(llm, bodies, warm_bodies)


if __name__ == "__main__":
    main()
