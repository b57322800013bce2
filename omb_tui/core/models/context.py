"""How much of a step's input fits the context of the instance that will read it.

Spec: memory.md, "The helper model"; docs/local-models.md, "Chunks". An instance may say how many tokens its
server keeps (`contextTokens`: a local server is often started with 2,048-8,192). A step asks `input_budget` how
many characters of its own input (turns, lines, entries) one call may carry beside its fixed prompt and its answer,
and cuts its input into chunks of that size; without `contextTokens` the step's own bound holds. Tokens are counted
cautiously from characters (no tokenizer is loaded: litellm's would cost seconds, and a local model's is unknown).
"""

from __future__ import annotations

from ..files.paths import Home
from .instances import ModelUnavailable, choose_route

CHARS_PER_TOKEN = 3  # English prose is about 4 characters a token; other languages, numbers and JSON fewer
MIN_CHUNK_CHARS = 600  # a chunk smaller than this carries too little to judge: the step's bound is then the floor


def context_tokens(home: Home, bot_id: str) -> int | None:
    """The `contextTokens` of the instance a job of the bot goes to; None when it gives none or none is chosen
    (the call itself then says why)."""
    try:
        return choose_route(home, bot_id).instance.context_tokens
    except ModelUnavailable:
        return None


def tokens_of(text: str) -> int:
    """A cautious count of the tokens a text costs."""
    return len(text) // CHARS_PER_TOKEN + 1


def input_budget(
    home: Home, bot_id: str, *, fixed: str, answer_share: float, default: int, context: int | None = None
) -> int:
    """The characters of input one call may carry: what the context leaves beside the fixed prompt (`fixed`),
    of which `answer_share` is kept for the answer (a step whose answer copies its input back keeps half), at
    most `default` (the step's own bound), at least MIN_CHUNK_CHARS."""
    tokens = context_tokens(home, bot_id) if context is None else context
    if tokens is None:
        return default
    free = (tokens - tokens_of(fixed)) * CHARS_PER_TOKEN
    return max(MIN_CHUNK_CHARS, min(default, int(free * (1 - answer_share))))


def fits(home: Home, bot_id: str, text: str, answer_share: float) -> tuple[bool, int | None]:
    """Whether a prompt that cannot be cut (compaction's whole MEMORY.md) fits the context with room for the answer;
    (True, None) when the instance gives no `contextTokens`."""
    tokens = context_tokens(home, bot_id)
    if tokens is None:
        return True, None
    return tokens_of(text) <= tokens * (1 - answer_share), tokens
