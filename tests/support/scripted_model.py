"""A scripted `complete` for the chat turn (`omb_tui.core.turn.turn`), shared by the chat command's and the
recall preview's Send tests: it answers from a list and keeps the messages of every request.

Use the `model` fixture (`from scripted_model import Answer, Unavailable, model`), then
`model.answers += [Answer("text"), Answer(tool_calls=[...]), Unavailable("why")]`.
"""

from __future__ import annotations

import pytest

from omb_tui.core.turn import turn as turn_module


class Answer:
    """The shape of `call.ModelAnswer`."""

    def __init__(self, text="", tool_calls=()):
        self.text, self.tool_calls, self.data, self.usage_row = text, list(tool_calls), None, {}
        self.message = {"role": "assistant", "content": text or None, "tool_calls": self.tool_calls}


class Script:
    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests = []

    def __call__(self, home, bot_id, job, messages, *, schema=None, tools=None, timeout=None):
        self.requests.append(messages)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


class Unavailable(Exception):
    """Like `call.ModelUnavailable`: the reason is one sentence."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


@pytest.fixture
def model(monkeypatch):
    script = Script()
    monkeypatch.setattr(turn_module, "_default_complete", lambda: script)
    return script
