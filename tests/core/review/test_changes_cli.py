"""`omb-tui changes` (docs/review.md, "Since I last looked"): every writer's changes to a bot since
the person last looked, grouped bot → who → change, with `--json` (`bots` → `groups` with `kind`, `who`, `id`,
`at`, `changes`, `reviewed`, `undone`) and `--mark`; docs/review.md, "Since I last looked"."""

from __future__ import annotations

import json
from datetime import timedelta

from omb_tui.core.base import clock
from omb_tui.core.guard.night import GUARD_ACTOR
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, HOW_OUTSIDE, HOW_TASK, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.review.revert import undo_run
from omb_tui.core.runs.run import UpkeepRun
from omb_tui.core.turn.agent_session import open_session

PERSON = Actor(WHO_PERSON, HOW_COMMAND_LINE)
SESSION = "0b7e5d0c-3f43-4c7e-9a52-6d1f2e8a9b10"


def append(store: MemoryStore, line: str, actor: Actor, note: str | None = None) -> str:
    return store.write("MEMORY.md", store.read("MEMORY.md").text + line + "\n", actor, note=note).row_id


def every_writer(home) -> dict[str, list[str]]:
    """One change (or more) by each writer the journal knows; the row ids by kind."""
    store = MemoryStore(home, "scout")
    rows: dict[str, list[str]] = {}
    run = UpkeepRun("scout")
    rows["upkeep"] = [append(store, "- vegetarian", run.actor("capture"), note='quotes: "I\'m vegetarian"')]
    session = open_session(home, "scout", SESSION, title="Claude Code")
    agent = Actor(WHO_BOT, HOW_TASK, chat=session.chat, run=session.run)
    rows["agent"] = [append(store, "- repo uses uv", agent), append(store, "- tests with pytest", agent)]
    turns = [Actor(WHO_BOT, HOW_TASK, chat="Lisbon trip", run=f"turn-{n}") for n in (1, 2)]
    rows["chat"] = [append(store, "- hotel in Alfama", turns[0]), append(store, "- flight at 9", turns[1])]
    rows["person"] = [append(store, "- tea, not coffee", PERSON)]
    rows["outside"] = [append(store, "- edited in Obsidian", Actor(WHO_PERSON, HOW_OUTSIDE))]
    night = UpkeepRun("scout")
    append(store, "- a duplicate", night.actor("tidy-up"))
    rows["guard"] = [undo_run(home, "scout", night.id, actor=GUARD_ACTOR, yes=True).files[0]["undo_row"]]
    return rows


def test_every_writer_is_one_group_of_its_kind_with_its_changes(home, run_cli):
    rows = every_writer(home)
    out = run_cli("changes", "--json")
    assert out.code == 0
    (bot,) = json.loads(out.out)["bots"]
    groups = {}
    for kind, ids in rows.items():  # each writer's rows: one group of its kind, holding those rows alone
        (group,) = [g for g in bot["groups"] if ids[0] in [c["id"] for c in g["changes"]]]
        assert (group["kind"], [c["id"] for c in group["changes"]]) == (kind, ids)
        groups[kind] = group
    assert set(groups["upkeep"]) >= {"kind", "who", "id", "at", "changes", "reviewed", "undone"}
    assert groups["agent"]["who"].startswith("Claude Code, session 0b7e5d0c")
    assert len(groups["agent"]["runs"]) == 1  # one session, one run
    assert groups["chat"]["id"] == "Lisbon trip" and groups["chat"]["runs"] == ["turn-1", "turn-2"]
    assert groups["chat"]["who"] == 'scout in chat "Lisbon trip"'
    assert groups["outside"]["who"] == "Changed outside the app"
    assert groups["person"]["who"] == "You (from the command line)"
    assert groups["guard"]["who"].startswith("The nightly guard")
    assert bot["changes"] == sum(len(g["changes"]) for g in bot["groups"])
    # the person's own changes are seen already (they made them); every other writer's wait for a look
    assert [g["kind"] for g in bot["groups"] if g["reviewed"]] == ["person"]
    assert bot["unreviewed"] == bot["changes"] - len(groups["person"]["changes"])


def test_mark_reviews_every_group_and_the_runs_review_agrees(home, run_cli):
    every_writer(home)
    marked = run_cli("changes", "--mark")
    assert marked.out.splitlines()[-1].startswith("Marked ") and marked.out.rstrip().endswith(" reviewed.")
    again = json.loads(run_cli("changes", "--json").out)
    assert all(group["reviewed"] for bot in again["bots"] for group in bot["groups"])
    assert again["bots"][0]["unreviewed"] == 0
    lines = run_cli("changes").out.splitlines()
    assert lines[0].startswith("scout: ") and "all reviewed" in lines[0]
    assert all(line.endswith(("(reviewed)", "(undone)")) or line.startswith("    ") for line in lines[1:])
    assert run_cli("review").out.startswith("Nothing new to review")  # the upkeep runs' marks are the same marks


def test_an_unreviewed_group_comes_before_a_reviewed_one(home, run_cli):
    store = MemoryStore(home, "scout")
    append(store, "- early", PERSON)
    run_cli("changes", "--mark")
    later = append(store, "- later", Actor(WHO_BOT, HOW_TASK, chat="Lisbon trip", run="turn-9"))
    (bot,) = json.loads(run_cli("changes", "--json").out)["bots"]
    assert [g["reviewed"] for g in bot["groups"]] == [False, True]
    assert bot["groups"][0]["changes"][0]["id"] == later and bot["unreviewed"] == 1


def test_the_window_goes_back_to_the_last_look_when_that_is_older_than_three_nights(home, run_cli, frozen_clock):
    start = clock.now().replace(hour=9, minute=0, second=0, microsecond=0)
    store = MemoryStore(home, "scout")
    frozen_clock(start - timedelta(days=10))
    before = append(store, "- before the last look", Actor(WHO_PERSON, HOW_OUTSIDE))
    frozen_clock(start - timedelta(days=10) + timedelta(minutes=5))  # looked five minutes later
    run_cli("changes", "--mark")
    frozen_clock(start - timedelta(days=8))
    away = append(store, "- while you were away", Actor(WHO_PERSON, HOW_OUTSIDE))
    frozen_clock(start)
    listed = {
        c["id"]
        for bot in json.loads(run_cli("changes", "--json").out)["bots"]
        for g in bot["groups"]
        for c in g["changes"]
    }
    assert away in listed and before not in listed  # a week away: the week, not three nights

    run_cli("changes", "--mark")  # looked today: the next window is the last three nights again
    frozen_clock(start + timedelta(hours=1))
    listed = {
        c["id"]
        for bot in json.loads(run_cli("changes", "--json").out)["bots"]
        for g in bot["groups"]
        for c in g["changes"]
    }
    assert away not in listed
    since = json.loads(run_cli("changes", "--since", "30d", "--json").out)
    assert away in {c["id"] for g in since["bots"][0]["groups"] for c in g["changes"]}


def test_changes_refuses_an_unknown_bot_and_a_bad_time_in_one_sentence(run_cli):
    ghost = run_cli("changes", "--bot", "ghost")
    assert (ghost.code, ghost.err) == (2, "omb-tui: There is no bot 'ghost'.\n")
    bad = run_cli("changes", "--since", "soon")
    assert bad.code == 2 and bad.err.startswith("omb-tui: 'soon' is not a time") and bad.err.count("\n") == 1


def test_nothing_changed_is_one_line(home, run_cli):
    assert run_cli("changes", "--since", "1h").out.startswith("Nothing changed since ")


def test_a_persons_layer_is_listed_with_its_bot_each_group_naming_the_person(home, run_cli):
    from omb_tui.core.people.layers import layer_store
    from omb_tui.core.people.people import add_person
    from omb_tui.core.review.changes import changes, mark_groups
    from omb_tui.core.review.marks import load_marks

    ours = append(MemoryStore(home, "scout"), "- the team ships on Fridays", PERSON)
    add_person(home, "dana")
    dana = layer_store(home, "scout", "dana")
    turn = append(dana, "- Dana prefers bullet points", Actor(WHO_BOT, HOW_TASK, chat="Standup", run="turn-1"))
    (bot,) = changes(home).bots
    by_row = {change.id: group for group in bot.groups for change in group.changes}
    assert by_row[ours].person is None and by_row[turn].person == "dana"
    assert by_row[turn].who == 'scout in chat "Standup", in dana\'s layer' and not by_row[turn].reviewed
    assert mark_groups(home, [by_row[turn]]) == 1  # marked in the layer's own marks
    assert load_marks(home, "scout--member-dana").has_run("turn-1") and not load_marks(home, "scout").runs
    out = run_cli("changes", "--json")
    (listed,) = json.loads(out.out)["bots"]
    people = {group["person"]: group["changes"][0]["id"] for group in listed["groups"]}
    assert listed["bot"] == "scout" and people == {None: ours, "dana": turn}
    text = run_cli("changes").out
    assert "in dana's layer" in text
