"""A person's own layer of a bot's memory: a workspace of its own with its own journal and undo, reached
only through its person, loading after the bot's own block within its own budget."""

from __future__ import annotations

import os
import stat

import pytest
from support.home import BOT_ID, make_bot

from omb_tui.core.files.paths import InvalidName, NotFound, layer_id, split_layer, validate_workspace_id
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_COMMAND_LINE, WHO_PERSON
from omb_tui.core.memory.budget import MEMORY_MAX_LINES as MAX_LINES
from omb_tui.core.people.layers import LAYER_HEADING, bot_layers, layer_store, person_block
from omb_tui.core.people.people import add_person
from omb_tui.core.turn.bot import Bot

YOU = Actor(WHO_PERSON, HOW_COMMAND_LINE)


@pytest.fixture
def team(home):
    add_person(home, "dana")
    add_person(home, "sam")
    return home


def test_a_layer_is_a_workspace_of_its_own_with_its_own_journal_and_undo(team):
    dana = layer_store(team, BOT_ID, "dana")
    written = dana.write("MEMORY.md", "# Memory\n\n- Dana prefers answers in bullet points\n", YOU)
    folder = team.workspaces_dir / f"{BOT_ID}--member-dana"
    assert dana.workspace == folder and (folder / "MEMORY.md").is_file()
    assert stat.S_IMODE(os.stat(folder / "MEMORY.md").st_mode) == 0o600
    assert [row.id for row in dana.journal.rows()] == [written.row_id]
    assert team.journal_path(f"{BOT_ID}--member-dana").is_file()
    shared = Bot(team, BOT_ID)
    assert "bullet points" not in shared.memory_text()
    assert all(row.id != written.row_id for row in shared.store.journal.rows())  # the bot's journal knows nothing
    dana.undo(written.row_id, YOU)
    assert (folder / "MEMORY.md").read_text() == ""  # emptied, as a bot's MEMORY.md is


def test_layers_are_no_bots_and_a_bot_id_never_opens_one(team):
    layer_store(team, BOT_ID, "dana").write("MEMORY.md", "- a note\n", YOU)
    assert team.bot_ids() == [BOT_ID]
    assert bot_layers(team, BOT_ID) == ["dana"]
    with pytest.raises(InvalidName):
        Bot(team, f"{BOT_ID}--member-dana")
    with pytest.raises(InvalidName):
        team.has_bot(f"{BOT_ID}--member-dana")


def test_only_a_person_of_the_home_and_a_bot_of_it_have_a_layer(team):
    with pytest.raises(NotFound, match="There is no person 'lee'"):
        layer_store(team, BOT_ID, "lee")
    with pytest.raises(NotFound):
        layer_store(team, "nobody", "dana")
    for name in ("Dana", "dаna", "da--na", "../dana", "dana/x"):
        with pytest.raises(InvalidName):
            layer_store(team, BOT_ID, name)
    assert not any(p.name.endswith(("lee", "Dana")) for p in team.workspaces_dir.iterdir())


@pytest.mark.parametrize(
    "workspace_id",
    ["scout--member-", "scout--member-Dana", "scout--member-da--na", "--member-dana", "scout--member-dana--member-x"],
)
def test_a_workspace_id_is_a_bot_or_exactly_one_persons_layer_of_it(workspace_id):
    with pytest.raises(InvalidName):
        validate_workspace_id(workspace_id)


def test_a_layer_id_splits_back_into_its_bot_and_person():
    assert split_layer(layer_id("scout", "sam-lee")) == ("scout", "sam-lee")
    assert split_layer("scout") == ("scout", None)


def test_the_layer_loads_after_the_bots_block_under_its_own_heading_and_budget(team, tmp_path):
    make_bot(team, "other", "Other")
    long = "# Memory\n\n" + "".join(f"- Dana fact {n}\n" for n in range(MAX_LINES + 40))
    layer_store(team, BOT_ID, "dana").write("MEMORY.md", long, YOU)
    layer_store(team, BOT_ID, "sam").write("MEMORY.md", "- Sam likes tea\n", YOU)
    bot = Bot(team, BOT_ID)
    alone, for_dana = bot.prompt(), bot.prompt(person="dana")
    assert "Dana fact" not in alone and "Sam likes tea" not in for_dana
    assert for_dana.startswith(alone.rstrip("\n"))  # the bot's own block first, whole
    layer = for_dana[len(alone.rstrip("\n")) :]
    assert LAYER_HEADING.format(person="dana") in layer
    assert "Dana fact 0" in layer and f"Dana fact {MAX_LINES}" not in layer  # its own 200 lines
    assert "more lines did not load" in layer
    assert person_block(team, BOT_ID, "sam").count("Sam likes tea") == 1
    assert "Dana" not in Bot(team, "other").prompt(person="dana")  # another bot's layer of dana is empty
