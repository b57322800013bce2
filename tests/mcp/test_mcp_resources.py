"""`omb-tui mcp`'s resources, as the official SDK's client reads them: MEMORY.md as it loads, the topic index and each
topic file; a uri that is not one of them (another bot's, the archive, a name leading out of the workspace) is one
sentence; and a client that subscribed hears when one changes, by a tool's write or a person's edit on disk, in both
eras of the protocol (resources/subscribe, and subscriptions/listen). Waits are on the notification, never sleeps.

Spec: "What loads, and the budget", "Where it lives", "Editing"; docs/mcp.md.
"""

from __future__ import annotations

import warnings

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated, ToolsListChanged
from support.mcp_helpers import connect, demo_home, home_copy

from omb_tui import Memory
from omb_tui.core.memory.budget import topic_index
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.turn.tools import MEMORY_UPDATE

MEMORY = "memory://scout/MEMORY.md"
INDEX = "memory://scout/topics"
TRAVEL = "memory://scout/memory/travel.md"
NOTIFIED_WITHIN = 30  # seconds: a bound on a loaded machine, never a wait
FAKE_KEY = "sk-ant-api03-" + "Zq7Xv2Lm9Rt4Wp8Ks3Nd6Hf1Jc5Bg0Ya" * 2  # shaped like a key, not a real one


def text_of(result: types.ReadResourceResult) -> str:
    (content,) = result.contents
    assert isinstance(content, types.TextResourceContents) and content.mime_type == "text/markdown"
    return content.text


async def test_memory_md_as_it_loads_the_topic_index_and_every_topic(demo_home):
    scout = Memory(demo_home).bot("scout")
    topics = sorted(path.name for path in demo_home.topic_paths("scout"))
    async with connect(demo_home) as client:
        listed = (await client.list_resources()).resources
        assert [r.uri for r in listed] == [MEMORY, INDEX, *(f"memory://scout/memory/{name}" for name in topics)]
        assert text_of(await client.read_resource(MEMORY)) == scout.prompt()  # what `omb-tui prompt scout` prints
        assert text_of(await client.read_resource(INDEX)) == topic_index(scout.core.topics()).text
        travel = demo_home.workspace("scout") / "memory" / "travel.md"
        assert text_of(await client.read_resource(TRAVEL)) == travel.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("uri", "said"),
    [
        ("memory://scout/memory/..%2F..%2F..%2Fbots%2Fscout.json", "'memory/../../../bots/scout.json' leads out of"),
        ("memory://scout/memory/archive.md", "'memory/archive.md' is not a topic file"),
        ("memory://scout/memory/log/2026-01-05.md", "'memory/log/2026-01-05.md' is not a topic file"),
        ("memory://scout/memory/nope.md", "There is no topic 'memory/nope.md'."),
        ("memory://ledger/MEMORY.md", "'memory://ledger/MEMORY.md' is not a resource of this server"),
        ("file:///etc/passwd", "'file:///etc/passwd' is not a resource of this server"),
    ],
)
async def test_a_uri_that_is_not_one_of_the_bots_resources_is_one_sentence(demo_home, uri, said):
    async with connect(demo_home) as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource(uri)
    assert str(refused.value).startswith(said) and "\n" not in str(refused.value)


async def test_what_a_client_reads_is_redacted(home_copy):
    topic = home_copy.workspace("scout") / "memory" / "travel.md"
    topic.write_text(topic.read_text(encoding="utf-8") + f"- the booking site key is {FAKE_KEY}\n", encoding="utf-8")
    async with connect(home_copy) as client:
        read = text_of(await client.read_resource(TRAVEL))
    assert FAKE_KEY not in read and "«redacted" in read


async def test_memory_off_serves_no_resource(home_copy):
    update_bot_settings(home_copy, "scout", memory=False)
    async with connect(home_copy) as client:
        assert (await client.list_resources()).resources == []
        with pytest.raises(MCPError, match="Memory is off for this bot, so none of its memory is served."):
            await client.read_resource(MEMORY)


async def test_a_listening_client_hears_of_a_write_an_edit_on_disk_a_new_topic_and_memory_off(home_copy):
    """The 2026-07-28 era: one subscriptions/listen stream, each change an event."""
    async with connect(home_copy) as client:
        async with client.listen(
            resource_subscriptions=[MEMORY, TRAVEL], resources_list_changed=True, tools_list_changed=True
        ) as events:
            heard = aiter(events)
            await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": "Prefers the aisle on short flights"})
            with anyio.fail_after(NOTIFIED_WITHIN):
                assert await anext(heard) == ResourceUpdated(MEMORY)  # told at the write, not at the watcher's wake

            travel = home_copy.workspace("scout") / "memory" / "travel.md"
            travel.write_text(travel.read_text(encoding="utf-8") + "- window seat on trains\n", encoding="utf-8")
            with anyio.fail_after(NOTIFIED_WITHIN):
                assert await anext(heard) == ResourceUpdated(TRAVEL)  # a person's edit, seen by the watcher

            (home_copy.workspace("scout") / "memory" / "garden.md").write_text("# Garden\n\n- tomatoes\n")
            with anyio.fail_after(NOTIFIED_WITHIN):
                event = await anext(heard)
                while event != ResourcesListChanged():  # the index and MEMORY.md (which lists it) change too
                    assert event in (ResourceUpdated(MEMORY), ResourceUpdated(INDEX)), event
                    event = await anext(heard)
            assert "garden.md" in text_of(await client.read_resource(INDEX))

            update_bot_settings(home_copy, "scout", memory=False)  # a person switches memory off in the app
            with anyio.fail_after(NOTIFIED_WITHIN):
                assert [await anext(heard), await anext(heard)] == [ResourcesListChanged(), ToolsListChanged()]
        assert [tool.name for tool in (await client.list_tools()).tools] == ["memory_status"]


async def test_a_subscribed_client_hears_of_a_write_in_the_handshake_era(home_copy):
    """The 2025 era: resources/subscribe, then notifications/resources/updated for that uri alone."""
    heard: list[str] = []
    told = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(message.params.uri)
            told.set()

    async with connect(home_copy, mode="legacy", message_handler=on_message) as client:
        with warnings.catch_warnings():  # resources/subscribe is the handshake era's, deprecated since
            warnings.simplefilter("ignore")
            await client.subscribe_resource(MEMORY)
        await client.call_tool(MEMORY_UPDATE, {"action": "add", "text": "Prefers the aisle on short flights"})
        with anyio.fail_after(NOTIFIED_WITHIN):
            await told.wait()
    assert heard == [MEMORY]  # travel.md did not change, and the index was not subscribed to
