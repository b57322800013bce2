"""What the guard's tests share: a scripted model on 127.0.0.1 (tests/support/fake_llm.py) answering each upkeep step
with the answer the test gives for it, and a home whose nightly run is due with compaction on."""

from __future__ import annotations

import json
from datetime import datetime

from omb_tui.core.base import clock
from omb_tui.core.compact.nightly import switch_nightly
from omb_tui.core.memory.settings import update_bot_settings
from support.compact_helpers import BOT, write_memory
from support.fake_llm import write_llm_config

EMPTY = {"pairs": {"pairs": []}, "moves": {"moves": [], "core": []}, "facts": {"facts": []}, "changes": {"changes": []}}


def step_of(body: dict) -> str | None:
    """Which step asked: the top property of the answer's schema (pairs, moves, facts, changes, probes)."""
    asked = json.dumps(body.get("response_format")) + json.dumps(body.get("messages"))
    for key in ("probes", "changes", "pairs", "moves", "facts"):
        if f'"{key}"' in asked or f'\\"{key}\\"' in asked:
            return key
    return None


def answer_by_step(fake, **answers: object) -> None:
    """Answer each call by its step: `changes=[...]` (a list: one answer per attempt, the last one repeated), or
    an empty answer of the step's shape. Replies scripted with `fake.script` still come first."""

    def next_reply() -> dict:
        if fake.replies:
            return fake.replies.popleft()
        step = step_of(fake.requests[-1].body)
        given = answers.get(step or "")
        if isinstance(given, list):
            given = given.pop(0) if len(given) > 1 else given[0]
        if given is None:
            given = EMPTY.get(step or "", {})
        return {"content": given if isinstance(given, str) else json.dumps(given)}

    fake.next_reply = next_reply


def nightly_due(home, fake, memory: str | None = None, **guard: object) -> datetime:
    """MEMORY.md written, compaction on (applying), config.json with the model and `upkeep.guard`; now."""
    if memory is None:
        write_memory(home)
    else:
        write_memory(home, memory)
    write_llm_config(home, fake, **({"upkeep": {"guard": guard}} if guard else {}))
    update_bot_settings(home, BOT, compact_nightly=True, compact_propose_only=False)
    switch_nightly(home, BOT, True, propose_only=False)
    return clock.now()


def guard_config(home, fake, **guard: object) -> None:
    write_llm_config(home, fake, upkeep={"guard": guard})


__all__ = ["BOT", "answer_by_step", "guard_config", "nightly_due", "step_of"]


def person_said(home, text: str, bot: str = BOT, hours_ago: int = 5) -> None:
    """A 1:1 chat of the person with the bot, quiet for hours: capture is due and reads `text`."""
    from datetime import timedelta

    from omb_tui.core.memory import conversations as conv

    at = clock.now() - timedelta(hours=hours_ago)
    chat = conv.Conversation(
        id="plans",
        title="Plans",
        kind=conv.KIND_CHAT,
        started_by=conv.Starter("person", "Milind"),
        members=[conv.Member("person", "Milind"), conv.Member("bot", bot)],
        created=at - timedelta(hours=1),
    )
    path = conv.create_conversation(home, chat, bot)
    conv.append_message(path, conv.Message("person", "Milind", at, text, origin="person"))
    conv.append_message(path, conv.Message("bot", bot, at + timedelta(seconds=30), "Noted."))


def captured(*facts: str) -> dict:
    """Capture's answer: each fact about the person, quoting the person's words (the fact itself)."""
    return {
        "facts": [
            {"text": f, "kind": "fact", "quotes": [q], "target": "MEMORY.md", "until": None, "about_me": False}
            for f, q in (fact.split(" | ") for fact in facts)
        ]
    }
