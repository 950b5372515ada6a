"""How much note text a question is sent with: ANSWER_PASSAGE_CHARS, or less where the model reads too slowly.

The model reads the passages before its first word. Qwen2.5-Coder 1.5B on two CPU cores reads about 72 tokens a
second, so sample_vault's questions with 2,000 characters of passages (~700 tokens) showed their first words at 11 s
p50; with 1,400 at 7.6 s, and its answers were no worse (29 of 31 golden items passed, every quality target met;
docs/benchmarks.md, stop 51). A fixed smaller budget would cost a fast model facts on a vault of long notes, so the
budget follows the model's measured reading speed (llm_client/prompt_speed.py): what it reads in
ANSWER_FIRST_TOKEN_SECONDS, at most ANSWER_PASSAGE_CHARS, and never less than MIN_PASSAGE_CHARS, the best passage's
room (a model too slow for even that gets it anyway: an answer late beats one from nothing).
"""

from __future__ import annotations

import logging
import math

from agent.context_fit import CHARS_PER_TOKEN, estimate_tokens

logger = logging.getLogger(__name__)

MIN_PASSAGE_CHARS = 800
# What the prompt holds besides the passages' text and the question, read afresh each question: today's date, the
# labels, each passage's <note source="…"> tag (~15 tokens, five or six of them), the chat template's markers.
TURN_TOKENS = 120


def passage_chars(
    configured: int,
    *,
    first_token_seconds: float,
    tokens_per_second: float | None,
    read_with: str,
    sample: str = "",
) -> int:
    """Return the characters of note text to send with a question.

    Args:
        configured: ANSWER_PASSAGE_CHARS, the most sent.
        first_token_seconds: ANSWER_FIRST_TOKEN_SECONDS, the time the model may take to read them (0: no limit).
        tokens_per_second: the model's measured reading speed (None: not measured yet, so not limited).
        read_with: what the model reads afresh with them: the question, and in a conversation the earlier exchange
            it is sent again (the prompt cache holds it only up to the earlier question, which was sent with
            passages then and without them now).
        sample: note text of the kind to be sent (the hits'), whose script sets the characters a token: about
            CHARS_PER_TOKEN in Latin script, one in Chinese or Japanese (whose passages are cut to a third so).

    """
    if first_token_seconds <= 0 or tokens_per_second is None or not 0 < tokens_per_second < math.inf:
        return configured
    tokens = tokens_per_second * first_token_seconds - TURN_TOKENS - estimate_tokens(read_with)
    per_token = len(sample) / estimate_tokens(sample) if sample else CHARS_PER_TOKEN
    budget = max(min(configured, MIN_PASSAGE_CHARS), min(configured, int(tokens * per_token)))
    if budget < configured:
        logger.info(
            "passages cut to %d characters (ANSWER_PASSAGE_CHARS=%d): the model reads %.0f tokens a second, "
            "ANSWER_FIRST_TOKEN_SECONDS=%g",
            budget, configured, tokens_per_second, first_token_seconds,
        )  # fmt: skip
    return budget
