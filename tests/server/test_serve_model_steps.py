"""`GET /api/bots/:id/memory/upkeep`'s `modelSteps`: whether the bot's engine can run the model steps and through
what, in the sentence the app and `omb-tui models` show; its earlier fields kept (docs/serve.md, docs/models.md)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from support.engine_fakes import stand_in_program, write_engine_config
from support.serve_helpers import server  # noqa: F401 (server: a fixture)

from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.server.app import OPENAPI_PATH

PATH = "/api/bots/{id}/memory/upkeep"
SPEC = json.loads(OPENAPI_PATH.read_text())


@pytest.fixture(autouse=True)
def _no_helper_in_environment(monkeypatch):
    monkeypatch.delenv("OMB_HELPER_INSTANCE", raising=False)
    monkeypatch.delenv("OMB_HELPER_MODEL", raising=False)


def steps_of(server) -> dict:
    reply = server.get("/api/bots/scout/memory/upkeep")
    assert reply.status == 200, reply.data
    schema = SPEC["paths"][PATH]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    jsonschema.Draft202012Validator({**schema, "components": SPEC["components"]}).validate(reply.data)
    return reply.data["modelSteps"]


def test_a_bot_on_its_own_engine_says_the_engine_runs_its_steps(server, home, tmp_path):
    program = stand_in_program(tmp_path / "bin")
    write_engine_config(home, {"sub": {"engine": "claude-code", "command": [program], "model": "claude-haiku-4-5"}})
    update_bot_settings(home, "scout", instance="sub")
    assert steps_of(server) == {
        "canRun": True,
        "instance": "sub",
        "model": "claude-haiku-4-5",
        "viaHelper": False,
        "through": "engine",
        "engine": "claude-code",
        "sentence": "The bot's own instance 'sub' runs the model steps on the claude-code engine "
        "(claude-haiku-4-5, on your plan).",
    }


def test_a_codex_helper_runs_nothing_and_only_expiry_and_exact_duplicates_run(server, home, tmp_path):
    program = stand_in_program(tmp_path / "bin", "codex")
    write_engine_config(home, {"cx": {"engine": "codex", "command": [program]}}, helper={"instanceId": "cx"})
    steps = steps_of(server)
    assert (steps["canRun"], steps["through"], steps["engine"]) == (False, None, None)
    assert steps["why"] == (
        "the helper's instance 'cx' runs on the codex engine, and the helper must be Claude (claude-code) or an API "
        "model"
    )
    assert steps["sentence"] == (
        "No model can run this bot's model steps, so only the expiry and exact-duplicate steps run."
    )


def test_with_no_model_connected_the_routes_say_how_to_connect_one(server, home):
    """The routes that show or run the model steps say the core's one sentence, as the app and the CLI do."""
    from omb_tui.core.models.instances import NO_MODEL_CONNECTED

    steps = steps_of(server)
    assert (steps["canRun"], steps["why"]) == (False, NO_MODEL_CONNECTED.rstrip("."))
    (home.workspace("scout") / "MEMORY.md").write_text(
        "".join(f'- 2026-01-0{n} · from chat "Plans" · fact number {n}\n' for n in range(1, 7)), encoding="utf-8"
    )
    tidied = server.request("POST", "/api/bots/scout/memory/tidy", {})
    assert tidied.status == 200, tidied.data
    assert tidied.data["model"] == NO_MODEL_CONNECTED
    assert f"Contradictions were not checked. {NO_MODEL_CONNECTED}" in tidied.data["message"].splitlines()
