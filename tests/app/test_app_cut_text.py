"""Text cut where the reader loses least (docs/app.md, "Narrow terminals"): a file's path keeps its name and the
folders nearest it (`fit_path`), a line too long for its list ends in an ellipsis (`cut_to_width`), and `fit`
cuts a plain column at its end. Each is exactly as wide as asked, so the columns after it stay in place."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style

from omb_tui.app.widgets.row_list import cut_to_width, fit, fit_path

# Names as a memory folder holds them, wide characters and accents too; never a slash or an ellipsis of their own
NAME_CHARS = st.characters(
    codec="utf-8", categories=("L", "N", "Pd", "Zs"), include_characters="._-中文é", exclude_characters="/…"
)
NAMES = st.text(NAME_CHARS, min_size=1, max_size=30)
PATHS = st.lists(NAMES, min_size=1, max_size=5).map("/".join)


def test_a_daily_log_keeps_its_day_in_16_cells():
    assert fit_path("memory/log/2026-12-06.md", 16) == "m…/2026-12-06.md"
    assert fit_path("memory/log/2026-12-06.md", 15) == "…/2026-12-06.md"
    assert fit_path("memory/log/2026-12-06.md", 20) == "m…/log/2026-12-06.md"  # the nearest folder, whole


def test_a_name_longer_than_the_column_keeps_its_end():
    assert fit_path("memory/log/2026-12-06.md", 10) == "…-12-06.md"


def test_a_path_that_fits_is_padded_and_not_cut():
    assert fit_path("MEMORY.md", 12) == "MEMORY.md   "
    assert fit_path("memory/log/2026-12-06.md", 24) == "memory/log/2026-12-06.md"


@given(PATHS, st.integers(min_value=1, max_value=40))
def test_a_cut_path_is_the_width_and_ends_with_the_file_name_whenever_it_fits(path, width):
    cut = fit_path(path, width)
    name = path.rpartition("/")[2]
    assert cell_len(cut) == width
    assert ("…" in cut) == (cell_len(path) > width)
    if "…" not in cut:
        assert cut.rstrip(" ") == path.rstrip(" ")
    elif cell_len(name) < width:  # the name and the ellipsis fit
        assert cut.endswith(name)


@given(st.text(NAME_CHARS, max_size=40), st.integers(min_value=1, max_value=40))
def test_fit_is_the_width_and_ends_in_an_ellipsis_when_it_cuts(text, width):
    cut = fit(text, width)
    assert cell_len(cut) == width
    assert cut.endswith("…") == (cell_len(text) > width)


def test_a_line_too_long_ends_in_an_ellipsis_but_padding_cut_off_is_no_cut():
    plain = Style()
    title = [Segment("11-29 02:03  new  "), Segment('scout in chat "Lisbon trip" · 1 change')]
    assert cut_to_width(title, 48, plain).text == '11-29 02:03  new  scout in chat "Lisbon trip"…  '
    whole = "".join(segment.text for segment in title)
    assert cut_to_width(title, len(whole) + 1, plain).text == whole + " "
    padded = [Segment("MEMORY.md"), Segment(" " * 20)]
    assert cut_to_width(padded, 12, plain).text == "MEMORY.md   "
