"""A Team Cloud day (docs/team-cloud.md) on the demo home with two people, Dana and Sam. Each chats with Scout
(`omb-tui chat --person`), says a preference and a fact about themselves; each reads their own layer over the routes
with their token and cannot read the other's (403/404 everywhere, nothing leaked); the nightly capture fills each
layer from that person's chats only; each preference lands in that person's own About me; the owner reviews both
layers in the app's Review area (Pilot) and undoes the night's change in Sam's layer. Every model answer comes from the scripted OpenAI-compatible server on
127.0.0.1 (tests/support/fake_llm.py)."""

from __future__ import annotations

import json

import pytest
from support.app_helpers import wait_for
from support.fake_llm import fake_llm, llm_home  # noqa: F401 - fixtures
from support.review_screen import answer, line_text, open_review, question
from support.serve_helpers import LiveServer

from omb_tui.app.app import make_app
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.people.layers import layer_store

DANA_SAYS = "I'm allergic to peanuts. Please always answer me in bullet points."
SAM_SAYS = "I cycle to work every day. Please answer me in French from now on."
DANA_FACT, SAM_FACT = "Dana is allergic to peanuts", "Sam cycles to work every day"


@pytest.fixture
def home(todays_demo, tmp_path):
    """The demo home of this hour (llm_home then points its helper at the scripted server)."""
    return todays_demo().copy_to(tmp_path / "home")


def turn_replies(fact: str, preference: str) -> list[dict]:
    """A chat turn: the model saves the fact about the person and their preference, then answers."""
    return [
        {"tool_calls": [("memory_update", {"action": "add", "text": fact})]},
        {"tool_calls": [("memory_update", {"action": "prefer", "text": preference})]},
        {"content": "Noted."},
    ]


def capture_answer(body: dict) -> dict | None:
    """The nightly capture's model: from Dana's chat her fact, from Sam's his, from any other chat nothing."""
    if body.get("tools"):
        return None  # a chat turn: the script answers it
    said = json.dumps(body["messages"])
    facts = []
    for words, fact in (
        ("allergic to peanuts", "Dana has a peanut allergy"),
        ("cycle to work", "Sam commutes by bike"),
    ):
        if words in said:
            quote = "I'm allergic to peanuts" if "peanut" in fact else "I cycle to work every day"
            facts.append({"text": fact, "kind": "fact", "quotes": [quote], "target": "MEMORY.md", "until": None})
    return {"content": json.dumps({"facts": facts})}


async def test_a_team_cloud_day_with_dana_and_sam(llm_home, fake_llm, run_cli):
    home = llm_home
    tokens = {name: json.loads(run_cli("people", "add", name, "--json").out)["token"] for name in ("dana", "sam")}

    # Each chats with Scout and says a fact and a preference about themselves.
    for name, says, fact, preference in (
        ("dana", DANA_SAYS, DANA_FACT, "Answer Dana in bullet points"),
        ("sam", SAM_SAYS, SAM_FACT, "Answer Sam in French"),
    ):
        fake_llm.script(*turn_replies(fact, preference))
        chatted = run_cli("chat", "scout", "--person", name, "--chat", f"{name}-day", stdin=(says + "\n").encode())
        assert chatted.code == 0 and chatted.out == "Noted.\n", chatted.err
    dana, sam = layer_store(home, "scout", "dana"), layer_store(home, "scout", "sam")
    assert DANA_FACT in dana.read("MEMORY.md").text and SAM_FACT not in dana.read("MEMORY.md").text
    assert SAM_FACT in sam.read("MEMORY.md").text and DANA_FACT not in sam.read("MEMORY.md").text
    shared = MemoryStore(home, "scout").read("MEMORY.md").text
    assert DANA_FACT not in shared and SAM_FACT not in shared

    # Each preference is in that person's own About me, never the owner's.
    assert "bullet points" in home.about_me_of("dana").read_text() and "French" in home.about_me_of("sam").read_text()
    owners = home.about_me_path.read_text() if home.about_me_path.exists() else ""
    assert "bullet points" not in owners and "French" not in owners

    # Each reads their own layer over the routes, and nothing of the other's.
    with LiveServer(home) as server:
        for name, own, other in (("dana", DANA_FACT, SAM_FACT), ("sam", SAM_FACT, DANA_FACT)):
            token = tokens[name]
            overview = server.get("/api/bots/scout/memory/mine", token=token)
            assert overview.status == 200 and overview.data["person"] == name
            mine = server.get("/api/bots/scout/memory/mine/file?path=MEMORY.md", token=token)
            assert mine.status == 200 and own in mine.data["text"] and other not in mine.data["text"]
            other_name = "sam" if name == "dana" else "dana"
            for url in (
                f"/api/bots/scout--member-{other_name}/memory/mine",
                f"/api/bots/scout/memory/mine/file?path=../scout--member-{other_name}/MEMORY.md",
                "/api/bots/scout/memory/file?path=MEMORY.md",
                "/api/bots/scout/memory/journal",
                "/api/bots/scout/memory",
                "/api/profile/learned",
            ):
                reply = server.get(url, token=token)
                assert reply.status in (400, 403, 404), (name, url, reply.status)
                assert other not in json.dumps(reply.data) and own not in json.dumps(reply.data)
        assert server.get("/api/bots/scout/memory/mine", token=None).status == 401
        assert server.get("/api/bots/scout/memory/mine", token=server.token).status == 403  # the owner has no layer

    # The nightly capture fills each layer from that person's chats only.
    fake_llm.answer_for = capture_answer
    captured = json.loads(run_cli("capture", "scout", "--json").out)
    assert sorted(saved["text"] for saved in captured["saved"]) == ["Dana has a peanut allergy", "Sam commutes by bike"]
    assert "peanut allergy" in dana.read("MEMORY.md").text and "commutes by bike" not in dana.read("MEMORY.md").text
    assert "commutes by bike" in sam.read("MEMORY.md").text and "peanut allergy" not in sam.read("MEMORY.md").text
    shared_now = MemoryStore(home, "scout").read("MEMORY.md").text
    assert "peanut allergy" not in shared_now and "commutes by bike" not in shared_now

    # The owner reviews both layers in the Review area and undoes the night's change in Sam's layer.
    before_dana = dana.read("MEMORY.md").text
    app = make_app(home, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_review(pilot)
        texts = [line_text(screen, line) for line in screen.tree.lines if line.kind == "run"]
        assert any("in dana's layer" in text for text in texts) and any("in sam's layer" in text for text in texts)
        night = next(
            n
            for n, line in enumerate(screen.tree.lines)
            if line.kind == "run" and "in sam's layer" in line_text(screen, line) and line.group.run.kind == "upkeep"
        )
        screen.tree.move_cursor(night)
        await pilot.press("U")
        assert "of sam's layer of scout" in await question(pilot)
        await answer(pilot, "y", screen)
        await wait_for(pilot, lambda: "commutes by bike" not in sam.read("MEMORY.md").text)
    assert SAM_FACT in sam.read("MEMORY.md").text  # the chat's note stays: only the night's change was undone
    assert dana.read("MEMORY.md").text == before_dana
    undo = sam.journal.rows(limit=1)[0]
    assert undo.how == "undo" and undo.who == "person"  # the owner's undo, in Sam's layer's own journal
