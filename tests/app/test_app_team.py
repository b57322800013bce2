"""The Team memory screen, used as a person would: Pilot at 80x24 (the letter `w`), teams built through the core
(`omb_tui.core.team`), what members load checked with `omb-tui prompt`, stale changes made from the command line."""

from __future__ import annotations

import json

import pytest
from support.app_helpers import settle, wait_for
from support.home import make_bot
from textual.widgets import Static

from omb_tui.app.app import make_app
from omb_tui.app.dialogs.confirm import ConfirmDialog
from omb_tui.app.screens.team import CARDS, HISTORY, NOTES, TeamScreen
from omb_tui.core.files.paths import Home
from omb_tui.core.team import api
from omb_tui.core.team.prompt import team_load
from omb_tui.core.team.proposals import propose_from_bot
from omb_tui.core.team.storage import create_team, get_team

TEAM = "Tapa crew"
COLOUR = "tapa/sequence-02/colour"


@pytest.fixture
def crew(home: Home):
    """scout and ledger in one team: two accepted notes and a card for a new key."""
    make_bot(home, "ledger", "Ledger")
    create_team(home, TEAM, ["scout", "ledger"])
    for key, title, text in (
        (COLOUR, "Sequence 02 colour", "Warm amber, never teal."),
        ("tapa/fps", "Frame rate", "24 frames a second."),
    ):
        api.accept(home, TEAM, key, api.propose(home, TEAM, key, title, text).revision)
    api.propose(home, TEAM, "tapa/font", "Title font", "Titles are set in Inter Tight.", by="bot:scout")
    return home


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).content)


def team_now(home: Home):
    return get_team(home, TEAM)


def notified(app) -> list[str]:
    return [n.message for n in app._notifications]


async def open_team(pilot) -> TeamScreen:
    """From the bots screen the app opens on, `w`, as a person opens the area; once it has read the team."""
    await settle(pilot)
    await pilot.press("w")
    screen = pilot.app.screen
    assert isinstance(screen, TeamScreen)
    await wait_for(pilot, lambda: screen.state.team is not None or screen.state.error)
    return screen


async def reread(pilot, screen: TeamScreen) -> None:
    """Wait for the change just made to be read back (the screen reads again after each one)."""
    await settle(pilot)
    await wait_for(pilot, lambda: not screen.busy)
    await settle(pilot)


async def test_the_notes_say_which_load_within_6000_bytes_pinned_first_like_the_gauge(crew):
    for number in range(1, 8):  # seven notes of about 1,000 bytes: the block cannot hold them all
        key = f"tapa/long-{number}"
        api.accept(crew, TEAM, key, api.propose(crew, TEAM, key, f"Long {number}", f"{number} " + "x" * 990).revision)
    last = team_now(crew).notes["tapa/long-7"]
    api.set_pinned(crew, TEAM, "tapa/long-7", last.revision, True)
    load = team_load(team_now(crew))
    assert load.not_loaded  # the test needs notes past the cut
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        rows = screen.notes_list.rows
        assert rows[0].id == "tapa/long-7" and rows[0].cells[1] == "▲"  # the pin loads first
        loaded = {note.key for note in load.loaded}
        assert [(row.id, row.cells[0]) for row in rows] == [
            (row.id, "✓ yes" if row.id in loaded else "✗ no") for row in rows
        ]
        assert [row.id for row in rows if row.cells[0] == "✗ no"] == [note.key for note in load.not_loaded]
        assert f"{load.bytes:,}/6,000 bytes · {len(load.loaded)} notes load · {len(load.not_loaded)} do not" in shown(
            screen, "#team-gauge"
        )
        not_loaded = rows.index(next(row for row in rows if row.cells[0] == "✗ no"))
        screen.notes_list.move_cursor(not_loaded)
        await pilot.pause()
        assert "does not load: it is past the 6,000 bytes" in shown(screen, "#note-detail")


async def test_accepting_a_card_loads_it_into_every_members_prompt(crew, run_cli):
    assert "Inter Tight" not in run_cli("prompt", "ledger").out
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        await pilot.press("n")
        assert screen.tabs.active == CARDS
        assert "Card 1 of 1 · tapa/font · a new note" in shown(screen, "#card-detail")
        await pilot.press("a")
        await reread(pilot, screen)
        assert not screen.state.team.cards and "tapa/font" in [row.id for row in screen.notes_list.rows]
        assert any("Accepted tapa/font" in message for message in notified(pilot.app))
    for bot in ("scout", "ledger"):
        assert "- Title font (tapa/font): Titles are set in Inter Tight." in run_cli("prompt", bot).out


async def test_rejecting_a_card_asks_once_then_drops_it(crew):
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: "Card 1 of 1" in shown(screen, "#card-detail"))
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        await pilot.press("y")
        await reread(pilot, screen)
        assert team_now(crew).cards == {} and "tapa/font" not in team_now(crew).notes
        assert "No pending cards." == screen.cards_list.empty and not screen.cards_list.rows


async def test_editing_a_card_before_accepting_it_saves_the_persons_words(crew, run_cli):
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: "Card 1 of 1" in shown(screen, "#card-detail"))
        await pilot.press("e")
        assert screen.editor.has_focus and screen.editor.text == "Titles are set in Inter Tight."
        await pilot.press("end", *" Body in Inter.")
        await pilot.press("ctrl+s")
        await reread(pilot, screen)
        assert screen.editing is None and screen.tabs.active == NOTES
    note = team_now(crew).notes["tapa/font"]
    assert (note.text, note.by) == ("Titles are set in Inter Tight. Body in Inter.", "person")
    assert "Titles are set in Inter Tight. Body in Inter." in run_cli("prompt", "ledger").out


async def test_pinning_a_note_moves_it_first_in_what_loads(crew):
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        await pilot.press("j")  # tapa/fps, the second note
        assert screen.notes_list.highlighted.id == "tapa/fps"
        await pilot.press("i")
        await reread(pilot, screen)
        assert [row.id for row in screen.notes_list.rows][:1] == ["tapa/fps"]
        assert screen.notes_list.rows[0].cells[1] == "▲"
    assert team_now(crew).notes["tapa/fps"].pinned
    assert team_load(team_now(crew)).loaded[0].key == "tapa/fps"


async def test_history_restores_an_earlier_version_as_a_new_revision(crew, run_cli):
    note = team_now(crew).notes[COLOUR]
    api.edit(crew, TEAM, COLOUR, note.revision, "Cool blue.")
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        await pilot.press("h")
        assert screen.tabs.active == HISTORY
        assert [row.cells[:2] for row in screen.versions_list.rows] == [("superseded", str(note.revision))]
        assert "Warm amber, never teal." in shown(screen, "#version-detail")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        await pilot.press("y")
        await reread(pilot, screen)
    restored = team_now(crew).notes[COLOUR]
    assert restored.text == "Warm amber, never teal." and restored.revision > note.revision + 1
    assert [v.text for v in restored.history] == ["Warm amber, never teal.", "Cool blue."]
    assert "Warm amber, never teal." in run_cli("prompt", "scout").out


async def test_an_edit_made_stale_from_the_command_line_is_refused_and_the_draft_stays_beside_the_note(crew, run_cli):
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        await pilot.press("e")
        await pilot.press("end", *" Graded by Ana.")
        current = team_now(crew).notes[COLOUR].revision
        cli = run_cli("team", "edit", TEAM, COLOUR, "--revision", str(current), stdin=b"Teal after all.")
        assert cli.code == 0
        await pilot.press("ctrl+s")
        await reread(pilot, screen)
        assert any("is at revision" in m and "nothing was changed" in m for m in notified(pilot.app))
        assert team_now(crew).notes[COLOUR].text == "Teal after all."  # nothing of the draft was written
        assert screen.editing is not None and screen.editor.text == "Warm amber, never teal. Graded by Ana."
        assert screen.query_one("#editor-current").display
        assert "Teal after all." in shown(screen, "#editor-current-text")
        assert "Your draft, not saved. Ctrl+S saves it over revision" in shown(screen, "#editor-heading")
        await pilot.press("ctrl+s")  # seen beside it: saving again is the person's choice
        await reread(pilot, screen)
        assert screen.editing is None
    assert team_now(crew).notes[COLOUR].text == "Warm amber, never teal. Graded by Ana."


async def test_a_stale_card_says_what_changed_and_accepting_it_is_refused_in_one_sentence(crew):
    note = team_now(crew).notes[COLOUR]
    api.propose(crew, TEAM, COLOUR, "Sequence 02 colour", "Amber, slightly warmer.", by="bot:ledger")
    api.edit(crew, TEAM, COLOUR, note.revision, "Warm amber; teal only for night scenes.")
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        await pilot.press("n")
        while screen.cards_list.highlighted.id != COLOUR:
            await pilot.press("n")
        detail = shown(screen, "#card-detail")
        assert "The note changed after this card was proposed" in detail and "its text changed." in detail
        assert "- then: Sequence 02 colour: Warm amber, never teal." in detail
        assert "+ now:  Sequence 02 colour: Warm amber; teal only for night scenes." in detail
        assert screen.cards_list.highlighted.cells[0] == "stale"
        await pilot.press("a")
        await reread(pilot, screen)
        refusal = [m for m in notified(pilot.app) if "changed since this card was proposed" in m]
        assert len(refusal) == 1 and refusal[0].count(". ") == 0
    assert team_now(crew).notes[COLOUR].text == "Warm amber; teal only for night scenes."
    assert COLOUR in team_now(crew).cards


async def test_the_screen_follows_changes_on_disk(crew, run_cli):
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        card = team_now(crew).cards["tapa/font"]
        run_cli("team", "accept", TEAM, "tapa/font", "--revision", str(card.revision))
        pilot.app.note_disk_change()  # what the watcher does when the team file changes
        await wait_for(pilot, lambda: "tapa/font" in [row.id for row in screen.notes_list.rows])
        assert screen.tabs.get_tab(CARDS).label.plain == "Pending 0"


async def test_several_teams_one_is_picked_with_c(crew):
    create_team(crew, "Archive crew", ["ledger"])
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        assert screen.state.team.name == "Archive crew"  # teams by name: the first one shows
        assert "c: another team (2 teams)" in shown(screen, "#team-line")
        await pilot.press("c")
        await wait_for(pilot, lambda: pilot.app.screen is not screen)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: screen.state.team.name == TEAM)
        assert [row.id for row in screen.notes_list.rows] == [COLOUR, "tapa/fps"]


async def test_a_home_without_teams_says_how_to_make_one(home):
    async with make_app(home, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        assert "No teams in this home. Create one: omb-tui team create NAME --bots ID,ID" in shown(screen, "#team-line")


async def test_done_when_on_the_demo_home_a_bots_note_accepted_here_loads_for_every_member(
    tmp_path, run_cli, run_exe, todays_demo
):
    """Team memory end to end: on the demo home a bot proposes a team note (the team_note tool's path), a person
    accepts it on this screen, every member's prompt block carries it, and a stale edit from the command line is
    refused while the app has it open."""
    from omb_tui.demo.team import TEAM_BOTS, TEAM_NAME

    demo = todays_demo().copy_to(tmp_path / "demo")

    def cli(*args, stdin=b""):
        return run_cli("--home", str(demo.root), *args, stdin=stdin, with_home=False)

    said = "We are doing the team offsite in Lisbon in October, 14 people, three nights"
    text = "The team offsite is in Lisbon in October: 14 people, three nights."
    proposal = propose_from_bot(demo, "scout", "offsite/lisbon", "Lisbon offsite", text, [said], chat="lisbon-offsite")
    assert proposal.card is not None, proposal.reason
    for bot in TEAM_BOTS:
        assert text not in cli("prompt", bot).out

    async with make_app(demo, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        assert screen.state.team.name == TEAM_NAME
        await pilot.press("n")
        while screen.cards_list.highlighted.id != "offsite/lisbon":
            await pilot.press("n")
        assert "Proposed by bot:scout" in shown(screen, "#card-detail")
        await pilot.press("a")
        await reread(pilot, screen)
        accepted = get_team(demo, TEAM_NAME).notes["offsite/lisbon"]
        assert accepted.by == "bot:scout"

        # The app has the note open and saves a change; the installed command, editing the revision it read
        # before, is refused (exit 3, naming the current revision), and the app's text stands.
        await pilot.press("escape")  # back to the notes
        screen.notes_list.move_cursor([row.id for row in screen.notes_list.rows].index("offsite/lisbon"))
        await pilot.press("e", "end", *" Hotel Baixa Rio.")
        await pilot.press("ctrl+s")
        await reread(pilot, screen)
        now = get_team(demo, TEAM_NAME).notes["offsite/lisbon"]
        stale = run_exe(
            "--home",
            str(demo.root),
            "team",
            "edit",
            TEAM_NAME,
            "offsite/lisbon",
            "--revision",
            str(accepted.revision),
            "--json",
            stdin=b"Porto instead.",
        )
        assert stale.returncode == 3 and json.loads(stale.stdout)["current_revision"] == now.revision
        assert get_team(demo, TEAM_NAME).notes["offsite/lisbon"].text == f"{text} Hotel Baixa Rio."
        assert screen.highlighted_note().text == f"{text} Hotel Baixa Rio."
    for bot in TEAM_BOTS:
        assert f"- Lisbon offsite (offsite/lisbon): {text} Hotel Baixa Rio." in cli("prompt", bot).out


async def test_a_change_on_disk_while_editing_shows_the_note_now_beside_the_draft(crew, run_cli):
    async with make_app(crew, watch=False).run_test(size=(80, 24)) as pilot:
        screen = await open_team(pilot)
        await pilot.press("e", "end", *" Mine.")
        revision = team_now(crew).notes[COLOUR].revision
        run_cli("team", "edit", TEAM, COLOUR, "--revision", str(revision), stdin=b"Theirs.")
        pilot.app.note_disk_change()
        await wait_for(pilot, lambda: screen.query_one("#editor-current").display)
        assert "The note now: revision" in shown(screen, "#editor-current-text")
        assert "Theirs." in shown(screen, "#editor-current-text")
        assert screen.editor.text == "Warm amber, never teal. Mine."
