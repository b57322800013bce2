"""About me's learned lines: list, remove for good (journaled, undoable), and add under the checks."""

from __future__ import annotations

import json
from datetime import date

import pytest

from omb_tui.core.files.paths import NotFound
from omb_tui.core.journal.journal import WHO_PERSON
from omb_tui.core.memory.memory_update import MemoryUpdate
from omb_tui.core.memory.settings import load_profile_learned
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.runs.run import UpkeepRun
from omb_tui.core.upkeep.about_me import add_learned, list_learned, remove_learned, was_removed

pytestmark = pytest.mark.dates

BOT = "scout"
DAY = date(2026, 11, 30)
HAND_WRITTEN = "# About me\n\n- I live in Pune\n"


def capture_actor():
    return UpkeepRun(BOT).actor("capture")


def learn(home, text, *, owners_words=True, today=DAY):
    return add_learned(home, BOT, text, capture_actor(), owners_words=owners_words, today=today)


def about_me(home) -> str:
    return home.about_me_path.read_text(encoding="utf-8")


@pytest.fixture
def learned_home(home):
    home.about_me_path.write_text(HAND_WRITTEN, encoding="utf-8")
    learn(home, "Reminders go to my task app", today=date(2026, 11, 1))
    learn(home, "Prefers answers in bullet points")
    return home


def test_list_gives_each_learned_line_with_its_id_bot_and_day_newest_first(learned_home):
    lines = list_learned(learned_home)
    assert [(line.text, line.bot, line.at) for line in lines] == [
        ("Prefers answers in bullet points", BOT, "2026-11-30"),
        ("Reminders go to my task app", BOT, "2026-11-01"),
    ]
    records = {r["text"]: r["id"] for r in load_profile_learned(learned_home).learned}
    assert [line.id for line in lines] == [records[line.text] for line in lines]
    assert "- 2026-11-30 · learned by Scout · Prefers answers in bullet points" in about_me(learned_home)


def test_remove_takes_the_line_out_journaled_as_the_person_and_undo_puts_it_back(learned_home):
    target = next(line for line in list_learned(learned_home) if line.text.startswith("Reminders"))
    before = about_me(learned_home)
    result = remove_learned(learned_home, target.id)

    assert "Reminders go to my task app" not in about_me(learned_home)
    assert "I live in Pune" in about_me(learned_home) and "bullet points" in about_me(learned_home)
    assert [line.text for line in list_learned(learned_home)] == ["Prefers answers in bullet points"]
    row = MemoryStore(learned_home, BOT).journal.find(result.row_id)
    assert row.who == WHO_PERSON and row.file == "about-me.md" and row.undoable
    MemoryStore(learned_home, BOT).undo(row.id)
    assert about_me(learned_home) == before


def test_a_removed_fact_is_never_added_again(learned_home):
    target = next(line for line in list_learned(learned_home) if line.text.startswith("Reminders"))
    remove_learned(learned_home, target.id)
    assert was_removed(learned_home, "reminders go to my task app.") is False  # the exact-fact rule: case counts
    assert was_removed(learned_home, "Reminders  go to my task app.")

    again = learn(learned_home, "Reminders go to my task app.")
    assert not again.added and "never added again" in again.reason
    assert "Reminders" not in about_me(learned_home)
    assert [r["removed"] for r in load_profile_learned(learned_home).learned if r["text"].startswith("Rem")] == [True]


def test_another_persons_words_never_add_to_about_me(learned_home):
    before = about_me(learned_home)
    result = learn(learned_home, "Has two cats", owners_words=False)
    assert not result.added and result.reason == "Another person's words never add to the owner's About me."
    assert about_me(learned_home) == before


def test_secrets_and_forgotten_words_are_refused(learned_home):
    key = "sk-" + "a1B2c3D4" * 6
    secret = learn(learned_home, f"Uses the key {key}")
    assert not secret.added and "secret" in secret.reason and key not in json.dumps(secret.to_dict())
    MemoryUpdate(learned_home, BOT).forget("Lisbon", include_about_me=False)
    forgotten = learn(learned_home, "Spends summers in Lisbon")
    assert not forgotten.added and "forget" in forgotten.reason
    assert "Lisbon" not in about_me(learned_home) and key not in about_me(learned_home)


def test_an_added_line_is_journaled_with_the_run_and_comes_back_with_its_id(home):
    run = UpkeepRun(BOT)
    result = add_learned(home, BOT, "Works at Acme", run.actor("capture"), owners_words=True, today=DAY)
    assert result.added and [line.id for line in list_learned(home)] == [result.id]
    row = MemoryStore(home, BOT).journal.rows(limit=1)[0]
    assert row.file == "about-me.md" and row.run == run.id
    assert not learn(home, "Works at Acme.").added  # already there: once


def test_a_learned_line_with_no_record_can_still_be_removed(home):
    home.about_me_path.write_text("# About me\n- 2026-10-01 · learned by Scout · Likes jazz\n", encoding="utf-8")
    (line,) = list_learned(home)
    assert line.text == "Likes jazz" and line.bot == "Scout"
    remove_learned(home, line.id)
    assert "jazz" not in about_me(home) and was_removed(home, "Likes jazz")


def test_an_unknown_id_is_one_sentence(learned_home):
    with pytest.raises(NotFound, match="no learned line 'nope'"):
        remove_learned(learned_home, "nope")


def test_the_commands_list_and_remove(learned_home, run_cli):
    listed = run_cli("about-me", "--json")
    assert listed.code == 0, listed.err
    items = json.loads(listed.out)
    assert [sorted(item) for item in items] == [["at", "bot", "id", "text"]] * 2
    assert "Prefers answers in bullet points" in run_cli("about-me").out

    removed = run_cli("about-me", "remove", items[0]["id"])
    assert removed.code == 0 and "Removed from About me: Prefers answers in bullet points" in removed.out
    assert "bullet points" not in about_me(learned_home)
    missing = run_cli("about-me", "remove", items[0]["id"])
    assert missing.code == 2 and missing.err.count("\n") == 1


def removed_reminders(home) -> None:
    target = next(line for line in list_learned(home) if line.text.startswith("Reminders"))
    remove_learned(home, target.id)


def test_a_removed_fact_does_not_come_back_through_a_bots_prefer_until_the_person_says_it_again(learned_home):
    """Capture kept a removed fact out, but a bot's `prefer` (and the command line's) once put it back."""
    from datetime import timedelta

    from support.conversations import make_conversation

    from omb_tui.core.base import clock
    from omb_tui.core.turn.tools import MEMORY_UPDATE, run_tool

    removed_reminders(learned_home)
    recent = clock.now() - timedelta(minutes=5)
    asked = [("person", "Can you sort my week? The usual setup.", recent, "person")]
    make_conversation(learned_home, "week", "Week", messages=asked)
    prefer = {"action": "prefer", "text": "Reminders go to my task app"}
    said = run_tool(learned_home, BOT, MEMORY_UPDATE, prefer, chat="week")
    assert said.startswith("Not saved: the person removed this from About me")
    assert "Reminders" not in about_me(learned_home)

    again = [("person", "Please note again: reminders go to my task app.", recent + timedelta(minutes=1), "person")]
    make_conversation(learned_home, "again", "Again", messages=again)
    assert run_tool(learned_home, BOT, MEMORY_UPDATE, prefer, chat="again").startswith("Saved to About me")
    assert "Reminders go to my task app" in about_me(learned_home)
    assert not was_removed(learned_home, "Reminders go to my task app")  # asked once more: no longer removed


def test_the_command_line_asks_for_again_to_add_a_removed_fact(learned_home, run_cli):
    removed_reminders(learned_home)
    refused = run_cli("prefer", BOT, "Reminders go to my task app")
    assert refused.code == 2 and refused.err.startswith("omb-tui: You removed this from About me before")
    assert "--again adds it back" in refused.err and "Reminders" not in about_me(learned_home)
    as_json = run_cli("prefer", BOT, "Reminders go to my task app", "--json")
    assert as_json.code == 2 and json.loads(as_json.out)["removed_before"] is True
    added = run_cli("prefer", BOT, "Reminders go to my task app", "--again")
    assert added.code == 0 and "Reminders go to my task app" in about_me(learned_home)
    assert run_cli("prefer", BOT, "Reminders go to my task app").out.startswith("That preference is already")
