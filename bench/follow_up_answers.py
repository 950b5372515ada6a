"""Follow-up questions asked as conversations of a running librarian: the earlier question, then the follow-up.

Usage: python -m bench.follow_up_answers --url http://127.0.0.1:8000 \
           --follow-ups bench/questions/sample_vault.follow_ups.yaml

Each pair of the file (`earlier`, `question`) is one new conversation of two turns, the model's own first reply
kept as the chat app would send it back; both replies are printed, with the seconds the follow-up took. Run the
librarian with its LLM_BASE_URL behind `bench.recording_proxy` to replay the follow-ups' answers through the answer
check later (`python -m bench.opening_check --recorded DIR --follow-ups`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import httpx
from ruamel.yaml import YAML


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="a running librarian, e.g. http://127.0.0.1:8000")
    parser.add_argument("--follow-ups", type=Path, required=True, help="a YAML file of follow_ups: {earlier, question}")
    parser.add_argument("--api-key", default="", help="the librarian's API_KEY, if it has one")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per reply")
    return parser.parse_args()


def main() -> None:
    """Ask each follow-up after its earlier question; print both replies."""
    args = parse_args()
    rows = YAML(typ="safe").load(args.follow_ups.read_text(encoding="utf-8"))["follow_ups"]
    headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}
    with httpx.Client(base_url=args.url, headers=headers, timeout=args.timeout) as client:

        def reply(messages: list[dict[str, str]]) -> str:
            response = client.post("/v1/chat/completions", json={"model": "librarian", "messages": messages})
            response.raise_for_status()
            return str(response.json()["choices"][0]["message"]["content"])

        for row in rows:
            messages = [{"role": "user", "content": row["earlier"]}]
            messages.append({"role": "assistant", "content": reply(messages)})
            messages.append({"role": "user", "content": row["question"]})
            started = time.perf_counter()
            second = reply(messages)
            print(f"=== {row['earlier']}\n{messages[1]['content']}\n")
            print(f"--- {row['question']} ({time.perf_counter() - started:.1f} s)\n{second}\n", flush=True)


if __name__ == "__main__":
    main()
