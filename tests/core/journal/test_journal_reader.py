"""Reading and filtering the journal in the core: lines by byte offset, the fast summary, the filter syntax.

Spec: memory.md, "The journal": newest first; filters by file, who and day; a 100,000-row journal is read
without one object per row. The app's journal list and `omb-tui journal` both stand on these.
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timezone

import pytest

from omb_tui.core.journal.filter import JournalFilter, summarize
from omb_tui.core.journal.journal import WHO_BOT, DamagedLine, Journal, JournalRow, decode_line
from omb_tui.core.journal.reader import RowOrder, complete_end, lines_backward, lines_forward

# Days are local days; the tests fix the zone so they do not depend on the machine.
pytestmark = pytest.mark.usefixtures("utc_zone")


def journal_row(number: int, at: str = "2026-11-30T08:15:00.000+00:00", **fields) -> JournalRow:
    values = dict(
        id=f"{number:08x}-0001",
        at=at,
        bot="scout",
        who=WHO_BOT,
        how="during a task",
        file="MEMORY.md",
        before_hash="a" * 64,
        after_hash="b" * 64,
        diff="-- likes tea\n+- likes coffee\n",
        before_text="# Memory\n- likes tea\n",
        undoable=True,
        chat="Plans",
    )
    values.update(fields)
    return JournalRow(**values)


# ----- lines by byte offset -----


def backward(data: bytes, end: int | None = None, chunk: int = 7) -> list[tuple[int, bytes]]:
    handle = io.BytesIO(data)
    end = len(data) if end is None else end
    return [
        (offset, block[start:stop])
        for offset, block, start, stop in lines_backward(handle, end, first_chunk=chunk, chunk=chunk)
    ]


def test_lines_backward_names_each_line_by_where_it_starts_newest_first():
    data = b"first line\n\nsecond\nthe third, longer than a chunk\n"
    found = backward(data)
    assert [line for _, line in found] == [b"the third, longer than a chunk", b"second", b"first line"]
    assert all(data[offset : offset + len(line)] == line for offset, line in found)  # the offsets point at them
    assert backward(data, chunk=1 << 16) == found  # the chunk size changes nothing


def test_a_torn_last_line_is_read_by_the_journal_and_left_for_later_by_the_list():
    data = b'{"one"}\n{"two"}\n{"thr'
    assert [line for _, line in backward(data)] == [b'{"thr', b'{"two"}', b'{"one"}']
    end = complete_end(io.BytesIO(data), len(data))
    assert end == len(b'{"one"}\n{"two"}\n')
    assert [line for _, line in backward(data, end)] == [b'{"two"}', b'{"one"}']
    lines, after = lines_forward(io.BytesIO(data), len(b'{"one"}\n'))
    assert lines == [(8, b'{"two"}')] and after == end


def test_the_journal_reads_its_rows_with_the_same_reader(tmp_path):
    journal = Journal(tmp_path / "scout.ndjson")
    rows = [journal_row(number) for number in range(1, 40)]
    journal.path.write_text("".join(row.to_line() + "\n" for row in rows) + "not a row\n", encoding="utf-8")
    assert [row.id for row in journal.iter_newest_first(chunk_size=50)] == [row.id for row in reversed(rows)]
    offsets = [offset for offset, *_ in journal.lines_newest_first()]
    data = journal.path.read_bytes()
    assert data[offsets[0] :] == b"not a row\n" and data[offsets[1] :].startswith(rows[-1].to_line().encode())


def test_a_damaged_line_says_what_is_wrong():
    damaged = decode_line(b'{"id": "x"}', 120)
    assert isinstance(damaged, DamagedLine) and damaged.offset == 120 and "at" in damaged.error
    assert decode_line(journal_row(1).to_line().encode()) == journal_row(1)


def test_row_order_is_newest_first_across_appended_and_older_rows():
    order = RowOrder()
    order.older.extend([300, 200, 100])
    order.newer.extend([400, 500])
    assert [order.at(i) for i in range(len(order))] == [500, 400, 300, 200, 100]
    assert [order.index_of(offset) for offset in (500, 400, 300, 200, 100)] == [0, 1, 2, 3, 4]


# ----- the fast summary -----


def test_the_fast_summary_agrees_with_full_parsing():
    # quotes, escapes and a chat key inside a text
    row = journal_row(7, file='memory/"odd" ü.md', chat='say "hi"', before_text='x,"chat":"fake"\n' * 3)
    summary = summarize(row.to_line().encode())
    assert (summary.file, summary.chat, summary.who) == ('memory/"odd" ü.md', 'say "hi"', WHO_BOT)
    assert summarize(b"not json") is None


def test_a_row_written_in_another_key_order_is_still_summarized_right():
    row = journal_row(8, who="person", how="in Settings", chat="Follow up")
    shuffled = json.dumps(dict(reversed(list(json.loads(row.to_line()).items())))).encode()
    summary = summarize(shuffled)
    assert (summary.at, summary.who, summary.how, summary.file, summary.chat) == (
        row.at,
        "person",
        "in Settings",
        "MEMORY.md",
        "Follow up",
    )


# ----- the filter syntax -----


@pytest.mark.parametrize(
    "value, sensible",
    [
        ("2026", True),
        ("2026-1", True),
        ("2026-11-0", True),
        ("2026-11-30", True),
        ("today", True),
        ("2026-13", False),
        ("2026-02-30", False),
        ("26-11", False),
        ("yesterdy", False),
    ],
)
def test_a_day_that_is_no_date_is_named_as_you_type(value, sensible):
    assert (JournalFilter.parse(f"day:{value}").problem is None) is sensible


def test_filter_syntax():
    parsed = JournalFilter.parse('file:MEMORY who:bot chat:"Follow up" tea day:2026-11-30 foo:bar')
    assert parsed.words == ("tea", "foo:bar")
    assert parsed.fields == (("file", "memory"), ("who", "bot"), ("chat", "follow up"), ("day", "2026-11-30"))
    assert JournalFilter.parse('chat:"unclosed').fields == (("chat", "unclosed"),)
    assert JournalFilter.parse("  ").empty


def test_a_filter_matches_on_every_term():
    line = journal_row(9, at="2026-11-30T23:30:00.000+00:00", file="memory/travel.md").to_line().encode()
    for text, wanted in (
        ("who:bot day:2026-11-30", True),
        ("travel plans", True),
        ("day:2026-11-29", False),
        ("who:person", False),
        ("day:2026-11 file:travel", True),
        ("chat:follow", False),
    ):
        assert JournalFilter.parse(text).matches_line(line, 0, len(line)) is wanted, text


def test_since_keeps_rows_written_at_that_moment_or_later():
    since = datetime(2026, 11, 30, 8, 15, 0, 500, tzinfo=UTC)  # half a millisecond after 08:15:00.000
    journal_filter = JournalFilter().with_since(since)
    for at, wanted in (
        ("2026-11-30T08:15:00.000+00:00", False),
        ("2026-11-30T08:15:00.001+00:00", True),
        ("2026-11-30T09:15:00.000+01:00", False),
        ("2026-11-30T09:15:01+01:00", True),
    ):
        line = journal_row(1, at=at).to_line().encode()
        assert journal_filter.matches_line(line, 0, len(line)) is wanted, at
    assert not journal_filter.empty and JournalFilter().with_since(None).empty


def test_filtered_rows_are_read_newest_first_up_to_the_limit(tmp_path):
    journal = Journal(tmp_path / "scout.ndjson")
    for number in range(1, 8):
        journal.append(journal_row(number, who="person" if number % 2 else WHO_BOT))
    assert [row.id[:8] for row in JournalFilter.parse("who:person").rows(journal, limit=3)] == [
        "00000007",
        "00000005",
        "00000003",
    ]
    assert len(JournalFilter().rows(journal)) == 7
