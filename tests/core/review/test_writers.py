"""Who did what, in sentences a person would write (core/review/writers.py; docs/review.md, "Who did what"): every
who and how the journal writes, in every chat it can carry, gives a heading, a "by" phrase and an undo phrase that
never put a journal word where a writer belongs ("2 changes by during a task"), never name a group by its id, and
never name the bot twice ("everything of ledger … of ledger")."""

from __future__ import annotations

import itertools
import re

import pytest

from omb_tui.core.backup.duplicate import HOW_DUPLICATE
from omb_tui.core.backup.restore import HOW_RESTORE
from omb_tui.core.journal import journal
from omb_tui.core.journal.journal import HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON, JournalRow
from omb_tui.core.memory.store import HOW_REVERT, Actor, MemoryStore
from omb_tui.core.review.revert import undo_run
from omb_tui.core.review.writers import HOW_WORDS, KINDS, kind_of, row_words, writer_of

WHOS = [value for name, value in vars(journal).items() if name.startswith("WHO_")]
HOWS = [value for name, value in vars(journal).items() if name.startswith("HOW_")] + [
    HOW_REVERT,
    HOW_RESTORE,
    HOW_DUPLICATE,
]
CHATS = [
    None,
    "Lisbon trip",
    "claude-code-0b7e5d0c-3f43-4c7e",
    "codex-1a2b3c4d-aaaa",
    "Zed (MCP session 20261206T2105)",
]
PEOPLE = [None, "dana"]
BOTS = ["ledger", "ledger--member-dana"]  # a bot, and a person's layer of it


def row(who: str, how: str, chat: str | None, person: str | None, bot: str, step: str | None = None) -> JournalRow:
    return JournalRow(
        id="66204cfa50ce9-780a",
        at="2026-12-06T22:40:30.000+00:00",
        bot=bot,
        who=who,
        how=how,
        file="MEMORY.md",
        before_hash=None,
        after_hash="h",
        diff="",
        before_text=None,
        undoable=True,
        chat=chat,
        step=step,
        run="20261206T224030-964306" if step else None,
        person=person,
    )


EVERY_WRITER = [
    row(who, how, chat, person, bot, step)
    for who, how, chat, person, bot in itertools.product(WHOS, HOWS, CHATS, PEOPLE, BOTS)
    for step in ([None, "capture"] if who == journal.WHO_UPKEEP else [None])
]


def test_the_journal_words_are_the_ones_the_builder_knows():
    """A new who or how of the journal gets its words here (this test lists them from journal.py)."""
    assert set(HOWS) <= set(HOW_WORDS)
    assert set(WHOS) == {"bot", "person", "import", "Memory upkeep"}


@pytest.mark.parametrize("written", EVERY_WRITER, ids=lambda r: f"{r.who}|{r.how}|{r.chat}|{r.person}|{r.bot}|{r.step}")
def test_every_writer_reads_as_a_sentence(written):
    writer = writer_of([written], written.bot)
    assert writer.kind in KINDS and writer.kind == kind_of(written.who, written.how, written.chat, written.person)
    sentences = [writer.title, writer.changes(2, ["MEMORY.md"]), f"Undo {writer.whole}?", writer.undo_button(2)]
    for sentence in sentences:
        assert sentence.strip() == sentence and "  " not in sentence and sentence
        for how in HOWS:  # a journal word never stands where a writer belongs
            assert f"by {how}" not in sentence and f"of {how}" not in sentence
        assert not re.search(r"\bby (bot|person|import)\b", sentence)
        assert not re.search(r"\b(person|outside|import|upkeep)-\d{4}-\d\d-\d\d\b", sentence)  # a group's own id
    assert writer.whole.count("ledger") == 1  # the bot, named once
    assert writer.changes(2, ["MEMORY.md"]).startswith("2 changes to MEMORY.md ")
    assert writer.title[:1].isupper() or writer.title.startswith(("ledger", "dana"))  # a bot or person as spelt
    assert row_words(written, written.bot) == writer.title
    if written.bot.endswith("--member-dana"):
        assert writer.title.endswith(", in dana's layer") and "dana's layer" in writer.whole
    one_run = writer.kind in ("upkeep", "guard", "agent") and written.run is not None
    assert writer.undo_button(2) == (
        ("Undo session" if writer.kind == "agent" else "Undo run") if one_run else "Undo 2 changes"
    )


@pytest.mark.parametrize(
    "who, how, chat, said",
    [
        (WHO_BOT, HOW_TASK, "Receipts inbox", 'by ledger in chat "Receipts inbox"'),
        (WHO_BOT, HOW_TASK, "claude-code-0b7e5d0c-3f43", "by Claude Code in session 0b7e5d0c"),
        (WHO_BOT, HOW_TASK, None, "by ledger in a task"),
        (WHO_PERSON, HOW_OUTSIDE, None, "made outside the app"),
        (WHO_PERSON, "in Settings", None, "by you (in the app)"),
        (WHO_PERSON, "command line", None, "by you (from the command line)"),
        ("import", "in Settings", None, "copied in by an import"),
        ("Memory upkeep", "undo", None, "by the nightly guard (an undo)"),
    ],
)
def test_the_by_phrase_of_each_writer(who, how, chat, said):
    assert writer_of([row(who, how, chat, None, "ledger")], "ledger").by == said


def test_undoing_a_group_of_rows_says_what_it_undid_never_its_id(home):
    """A chat's turns and a day of edits are undone by their rows: the message names them in words."""
    store = MemoryStore(home, "scout")
    text = store.read("MEMORY.md").text
    first = store.write("MEMORY.md", text + "- hotel in Alfama\n", Actor(WHO_BOT, HOW_TASK, chat="Lisbon trip")).row_id
    done = undo_run(home, "scout", "Lisbon trip", rows=[first])
    assert done.message() == 'Undid everything scout wrote in chat "Lisbon trip": MEMORY.md back as before them.'
    edited = store.write("MEMORY.md", text + "- by a script\n", Actor(WHO_PERSON, HOW_OUTSIDE)).row_id
    day = "outside-2026-12-06"
    done = undo_run(home, "scout", day, rows=[edited])
    assert day not in done.message() and done.message().startswith("Undid the edits made outside the app to scout on ")
