"""The app's one "safe to draw" rule (row_list.printable), as the lists, the diff and the load preview use it."""

from __future__ import annotations

from datetime import date

from omb_tui.app.widgets.load_preview import memory_load
from omb_tui.app.widgets.row_list import printable

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji: three people joined by zero-width joiners


def test_a_row_cell_never_passes_a_terminal_control_tab_or_undecodable_byte():
    assert printable("memory/\x1b[31mred\udc80.md") == "memory/\ufffd[31mred\ufffd.md"
    assert printable("a\tb\u202ec") == "a\ufffdb\ufffdc"  # a tab or a direction override would shift the columns
    assert printable("a\tb", keep="\t") == "a\tb"


def test_a_memory_line_is_shown_as_written_except_controls():
    loaded = memory_load(f"- family {FAMILY}\xa0ok\t\x1b[2J\n", date(2026, 1, 1))
    assert loaded.lines[0].text == f"- family {FAMILY}\xa0ok\t\ufffd[2J"


def test_bytes_that_are_not_utf8_become_one_replacement_per_bad_sequence():
    broken = b"caf\xc3 \xe2\x82".decode("utf-8", "surrogateescape")
    assert printable(broken) == printable(broken, controls_only=True) == "caf\ufffd \ufffd"
