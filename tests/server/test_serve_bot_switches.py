"""PATCH /api/bots/:id: the bot's switches over HTTP (spec memory.md, "Keeping one bot off the helper")."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from support.serve_helpers import server  # noqa: F401 (server: a fixture)

from omb_tui.core.memory.settings import load_bot_settings

URL = "/api/bots/scout"


def test_helper_model_false_is_saved_with_the_bot_and_keeps_its_other_keys(server, home):
    path = home.settings_path("scout")
    path.write_text(json.dumps({"name": "Scout", "engine": "claude", "colour": "teal"}), encoding="utf-8")
    reply = server.request("PATCH", URL, {"helperModel": False})
    assert reply.status == 200
    assert reply.data["id"] == "scout" and reply.data["helperModel"] is False and reply.data["memory"] is True
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["helperModel"] is False and saved["colour"] == "teal" and saved["engine"] == "claude"
    assert not load_bot_settings(home, "scout").helper_model


def test_every_switch_at_once_and_null_for_propose_only(server, home):
    body = {"memory": False, "upkeep": False, "helperModel": False, "compactNightly": True, "compactProposeOnly": None}
    reply = server.request("PATCH", URL, body)
    assert reply.status == 200, reply.error
    settings = load_bot_settings(home, "scout")
    assert (settings.memory, settings.upkeep, settings.helper_model, settings.compact_nightly) == (
        False,
        False,
        False,
        True,
    )
    assert settings.compact_propose_only is None
    assert settings.compact_nightly_since is not None  # switched on today: the first week only proposes


@pytest.mark.parametrize(
    "body, named",
    [
        ({"helperModel": "no"}, "'helperModel' must be true or false"),
        ({"memory": True, "upkeep": 1}, "'upkeep' must be true or false"),
        ({"compactProposeOnly": "sometimes"}, "'compactProposeOnly' must be true, false or null"),
        ({"memory": None}, "'memory' must be true or false"),
        ({"colour": True}, "'colour' is not a bot switch"),
        ({}, "Name at least one switch"),
    ],
)
def test_a_bad_field_is_400_naming_it_and_nothing_is_saved(server, home, body, named):
    before = home.settings_path("scout").read_bytes()
    reply = server.request("PATCH", URL, body)
    assert reply.status == 400
    assert named in reply.error
    assert home.settings_path("scout").read_bytes() == before


def test_an_unknown_bot_is_404_and_no_settings_file_appears(server, home):
    reply = server.request("PATCH", "/api/bots/nobody", {"memory": False})
    assert reply.status == 404
    assert not home.settings_path("nobody").exists()


def test_a_body_that_is_not_an_object_is_400(server):
    assert server.request("PATCH", URL, raw=b"[true]").status == 400
    assert server.request("PATCH", URL, raw=b"").status == 400


def test_switches_set_at_once_all_stay(server, home):
    # Each PATCH reads and writes the settings under the settings lock, so no change overwrites another.
    bodies = [{"memory": False}, {"upkeep": False}, {"helperModel": False}, {"compactProposeOnly": True}] * 3
    with ThreadPoolExecutor(4) as pool:
        statuses = list(pool.map(lambda body: server.request("PATCH", URL, body).status, bodies))
    assert statuses == [200] * len(bodies)
    settings = load_bot_settings(home, "scout")
    assert not settings.memory and not settings.upkeep and not settings.helper_model
    assert settings.compact_propose_only is True


def test_it_needs_the_owner(server):
    assert server.request("PATCH", URL, {"memory": False}, token=None).status == 401
