"""The footer every area shows: Textual's, except that keys which do not fit the width are left out from the end
and the last item shown then reads `f1 more` (F1 lists every key), so a narrow terminal never cuts a key off
silently in the middle of its word (docs/app.md, "Narrow terminals").

The app's bindings have no binding groups, so the footer draws each shown key on its own, as Textual's does.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # (Textual exports the footer, not its keys)

HELP_ACTION = "help"  # the app's F1 (and ?): every key of the screen


class KeysFooter(Footer):
    """Textual's footer, its keys trimmed to the width with `f1 more` last when any was left out."""

    def __init__(self) -> None:
        super().__init__()
        self._drawn_width = 0

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._drawn_width = width = self.size.width
        active = self.screen.active_bindings
        shown: dict[str, tuple[Binding, bool, str]] = {}  # each action once, by its first key (as Textual's)
        for _, binding, enabled, tooltip in active.values():
            if binding.show:
                shown.setdefault(binding.action, (binding, enabled, tooltip))
        palette = self._palette_key()
        room = width - (key_width(palette) if palette is not None else 0)  # (its border and padding included)
        keys = [
            FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            )
            for binding, enabled, tooltip in shown.values()
        ]
        if width and sum(key_width(key) for key in keys) > room:
            keys = self._trimmed(keys, room)
        for key in keys:
            yield key.data_bind(compact=Footer.compact)
        if palette is not None:
            yield palette

    def _trimmed(self, keys: list[FooterKey], room: int) -> list[FooterKey]:
        """The keys from the first while they fit beside `f1 more`, then `f1 more` (it opens the help)."""
        more = self._more_key()
        kept: list[FooterKey] = []
        used = key_width(more)
        for key in keys:
            if key.action == more.action or used + key_width(key) > room:
                break
            kept.append(key)
            used += key_width(key)
        return [*kept, more]

    def _more_key(self) -> FooterKey:
        found = next(
            (binding for _, binding, _, _ in self.screen.active_bindings.values() if binding.action == HELP_ACTION),
            None,
        )
        display = self.app.get_key_display(found) if found is not None else "f1"
        key = found.key if found is not None else "f1"
        return FooterKey(key, display, "more", HELP_ACTION, tooltip="Every key of this screen (F1)")

    def _palette_key(self) -> FooterKey | None:
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            return None
        found = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if found is None:
            return None
        _, binding, enabled, _ = found
        return FooterKey(
            binding.key,
            self.app.get_key_display(binding),
            binding.description,
            binding.action,
            classes="-command-palette",
            disabled=not enabled,
            tooltip=binding.tooltip or binding.description,
        )

    def on_resize(self) -> None:
        if self._bindings_ready and self.size.width != self._drawn_width:
            self.call_after_refresh(self.recompose)


def key_width(key: FooterKey) -> int:
    """The cells a key takes as Textual's footer draws it (not compact): ` key description `."""
    if not key.description:
        return cell_len(key.key_display)
    return cell_len(key.key_display) + cell_len(key.description) + 3
