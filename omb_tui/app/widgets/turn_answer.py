"""What the bot answered to a message sent from the recall preview, and each tool call it made on the way.

Spec: memory.md, "Recall before each turn" and "Remember and forget, in chat": the preview's *Send* runs the same
turn a chat would (core `chat_turn`), so a person sees what the bot actually answers with its memory as it is now.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...core.base.text import plural

TOOL_TEXT_SHOWN = 400  # a tool's answer is cut here on screen (the model saw it whole)


class TurnAnswer(Static):
    """Hidden until a message is sent; then "sending…", and the answer with its tool calls, or why it failed."""

    COMPONENT_CLASSES = {"turn-answer--title", "turn-answer--tool", "turn-answer--failed"}
    DEFAULT_CSS = """
    TurnAnswer {
        display: none;
        height: auto;
        padding: 0 0 1 0;
        border-bottom: solid $primary 40%;
        margin: 0 0 1 0;
        & > .turn-answer--title { text-style: bold; }
        & > .turn-answer--tool { color: $text-muted; }
        & > .turn-answer--failed { color: $error; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.text = Text("")

    def _style(self, name: str):
        return self.get_component_rich_style(f"turn-answer--{name}", partial=True)

    def _draw(self, text: Text) -> None:
        self.text = text
        self.display = True
        self.update(text)

    def clear(self) -> None:
        self.text = Text("")
        self.display = False
        self.update("")

    def show_sending(self, bot_name: str, message: str, chat_label: str) -> None:
        text = Text(f"Sending to {bot_name}…", style=self._style("title"), end="")
        text.append(
            f"\n{chat_label}: “{_one_line(message, 120)}”\n"
            "A real turn: the message and the answer go into that conversation, and the bot may "
            "change its memory.",
            style=self._style("tool"),
        )
        self._draw(text)

    def show_result(self, bot_name: str, result, chat_label: str = "") -> None:
        """`result`: the core's TurnResult; `chat_label`: the conversation it went into, as the chat list names it."""
        calls = len(result.tool_calls)
        made = f", after {plural(calls, 'tool call')}" if calls else ""
        title = f"{bot_name} could not answer" if result.failed else f"{bot_name} answered{made}:"
        text = Text(title, style=self._style("title"), end="")
        text.append("\n")
        text.append(result.answer, style=self._style("failed") if result.failed else "")
        if result.failed:
            kept = f"Your message is kept in {chat_label}" if chat_label else "Your message is kept"
            text.append(f"\n{kept}, marked not answered.", style=self._style("tool"))
        elif chat_label:
            text.append(f"\nThe message and the answer are in {chat_label}.", style=self._style("tool"))
        for number, call in enumerate(result.tool_calls, 1):
            text.append(f"\n[{number}] {call.name} {_one_line(call.arguments, 200)}", style=self._style("tool"))
            text.append(f"\n    → {_one_line(call.result, TOOL_TEXT_SHOWN)}", style=self._style("tool"))
        self._draw(text)

    def show_error(self, error: str) -> None:
        text = Text("The turn could not run", style=self._style("title"), end="")
        text.append(f"\n{error}", style=self._style("failed"))
        self._draw(text)


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
