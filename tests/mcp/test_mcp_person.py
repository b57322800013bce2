"""`omb-tui mcp --bot scout --person dana` on a Team Cloud home: the official SDK's client over stdio
(through the home's MCP service, as Claude Code reaches it) finds memory_update with `about`, a note about Dana
lands in her own layer and the work in the bot's, MEMORY.md as it loads holds her layer after the bot's block, and
Sam's layer is never read."""

from __future__ import annotations

from support.mcp_helpers import connect, demo_home, home_copy, text_of  # noqa: F401 (fixtures)

from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_SETTINGS, WHO_PERSON
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.people.layers import LAYER_HEADING, layer_store
from omb_tui.core.people.people import add_person
from omb_tui.core.turn.tools import MEMORY_UPDATE


async def test_a_session_for_dana_keeps_what_is_about_her_in_her_layer(home_copy):
    add_person(home_copy, "dana")
    add_person(home_copy, "sam")
    layer_store(home_copy, "scout", "sam").write(
        "MEMORY.md", "- Sam hums while he types\n", Actor(WHO_PERSON, HOW_SETTINGS)
    )
    async with connect(home_copy, extra=("--person", "dana")) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "about" in tools[MEMORY_UPDATE].input_schema["properties"]
        mine = await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": "Dana takes the 8:10 train"})
        work = await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": "The depot opens at 7", "about": "work"})
        (loaded,) = [item.text for item in (await client.read_resource("memory://scout/MEMORY.md")).contents]
    assert text_of(mine) == text_of(work) == "Saved to MEMORY.md."
    assert "8:10 train" in layer_store(home_copy, "scout", "dana").read("MEMORY.md").text
    shared = MemoryStore(home_copy, "scout").read("MEMORY.md").text
    assert "depot opens at 7" in shared and "8:10" not in shared
    assert LAYER_HEADING.format(person="dana") in loaded and "8:10 train" in loaded
    assert "hums while he types" not in loaded


def test_a_person_the_home_does_not_have_is_one_sentence(home_copy, capsys):
    from omb_tui.cli import main

    code = main(["--home", str(home_copy.root), "mcp", "--bot", "scout", "--person", "lee"])
    err = capsys.readouterr().err
    assert code == 2 and "There is no person 'lee'" in err and err.count("\n") == 1, err
