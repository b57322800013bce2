"""Every route of the spec's table, through a real server on 127.0.0.1: what it answers, and each refusal."""

from __future__ import annotations

import urllib.parse

import pytest
from support.home import LOG_NAME, LOG_TEXT, MEMORY_TEXT, TOPIC_TEXT
from support.serve_helpers import memory_file, server  # noqa: F401 (server: a fixture)

from omb_tui.core.files.disk import text_hash
from omb_tui.core.journal.changes import Actor
from omb_tui.core.journal.journal import HOW_API, HOW_TASK, HOW_UNDO, WHO_BOT, WHO_PERSON
from omb_tui.core.memory.settings import BotSettings, save_bot_settings
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.turn.bot import Bot

API = "/api/bots/scout/memory"
BOT = Actor(WHO_BOT, HOW_TASK, chat="Plans")


def newest_row(home):
    return MemoryStore(home, "scout").journal.rows(limit=1)[0]


# ----- the overview and one file -----
def test_the_overview_gives_the_gauge_the_topics_the_logs_and_the_folder(server, home):
    reply = server.get(API)
    assert reply.status == 200
    gauge = Bot(home, "scout").gauge()
    assert reply.data["gauge"] == {
        "lines": gauge.lines,
        "bytes": gauge.bytes,
        "maxLines": 200,
        "maxBytes": gauge.max_bytes,
        "level": "ok",
        "linesNotLoaded": 0,
    }
    assert [(t["path"], t["title"], t["aliases"]) for t in reply.data["topics"]] == [
        ("memory/travel.md", "Travel", ["trips", "flights"])
    ]
    assert reply.data["logs"] == [
        {"path": f"memory/log/{LOG_NAME}", "day": LOG_NAME[:-3], "bytes": len(LOG_TEXT.encode())}
    ]
    assert reply.data["folder"] == str(home.workspace("scout"))
    assert (reply.data["name"], reply.data["memory"], reply.data["archive"]["exists"]) == ("Scout", True, False)


def test_looking_at_a_bot_journals_what_changed_outside_first(server, home):
    memory_file(home).write_text(MEMORY_TEXT + "- typed in Obsidian\n")
    assert server.get(API).status == 200
    assert newest_row(home).how == "changed outside the app"


def test_an_unknown_bot_is_404_and_a_bad_id_400(server):
    assert server.get("/api/bots/nobody/memory").status == 404
    assert "There is no bot 'nobody'" in server.get("/api/bots/nobody/memory").error
    assert server.get("/api/bots/no.pe/memory").status == 400


def test_one_file_gives_its_text_and_hash(server, home):
    reply = server.get(f"{API}/file?path=memory/travel.md")
    assert reply.status == 200
    assert reply.data == {
        "path": "memory/travel.md",
        "kind": "topic",
        "readOnly": False,
        "hash": text_hash(TOPIC_TEXT),
        "text": TOPIC_TEXT,
    }
    assert server.get(f"{API}/file?path=memory/log/{LOG_NAME}").data["readOnly"] is True


def test_a_missing_file_is_404_and_a_missing_path_400(server):
    missing = server.get(f"{API}/file?path=memory/nothing.md")
    assert (missing.status, missing.error) == (404, "memory/nothing.md does not exist for scout.")
    assert server.get(f"{API}/file").status == 400


def test_bytes_that_are_not_utf8_come_back_and_go_back_unchanged(server, home):
    memory_file(home).write_bytes(b"- caf\xe9 in Latin-1\n")
    read = server.get(f"{API}/file?path=MEMORY.md")
    assert read.data["text"] == "- caf\udce9 in Latin-1\n"
    saved = server.request(
        "PUT",
        f"{API}/file",
        {"path": "MEMORY.md", "text": read.data["text"] + "- more\n", "expectedHash": read.data["hash"]},
    )
    assert saved.status == 200
    assert memory_file(home).read_bytes() == b"- caf\xe9 in Latin-1\n- more\n"


# ----- saving -----
def test_a_save_with_the_hash_read_is_written_redacted_and_journaled_from_the_api(server, home):
    read = server.get(f"{API}/file?path=MEMORY.md")
    text = MEMORY_TEXT + "- wifi password: Tr0ub4dor&3x\n"
    reply = server.request("PUT", f"{API}/file", {"path": "MEMORY.md", "text": text, "expectedHash": read.data["hash"]})
    assert reply.status == 200 and reply.data["changed"] and reply.data["redactions"] == 1
    assert list(reply.data) == ["path", "hash", "changed", "redactions", "rowId", "journaled"]  # camel_keys(to_dict())
    on_disk = memory_file(home).read_text()
    assert "Tr0ub4dor" not in on_disk and "password: «redacted" in on_disk
    assert reply.data["hash"] == text_hash(on_disk)
    row = newest_row(home)
    assert (row.id, row.who, row.how, row.file) == (reply.data["rowId"], WHO_PERSON, HOW_API, "MEMORY.md")
    assert oct(memory_file(home).stat().st_mode & 0o777) == "0o600"


def test_a_stale_save_is_409_with_the_current_text_and_writes_nothing(server, home):
    opened = server.get(f"{API}/file?path=MEMORY.md").data["hash"]
    MemoryStore(home, "scout").write("MEMORY.md", "- the bot's version\n", BOT)
    rows_before = len(MemoryStore(home, "scout").journal.rows())
    reply = server.request("PUT", f"{API}/file", {"path": "MEMORY.md", "text": "- mine\n", "expectedHash": opened})
    assert reply.status == 409
    assert reply.data == {
        "error": "MEMORY.md changed since it was read; nothing was written.",
        "path": "MEMORY.md",
        "currentHash": text_hash("- the bot's version\n"),
        "currentText": "- the bot's version\n",
    }
    assert memory_file(home).read_text() == "- the bot's version\n"
    assert len(MemoryStore(home, "scout").journal.rows()) == rows_before


def test_a_save_without_expected_hash_is_428(server, home):
    reply = server.request("PUT", f"{API}/file", {"path": "MEMORY.md", "text": "- mine\n"})
    assert reply.status == 428 and "expectedHash" in reply.error
    assert memory_file(home).read_text() == MEMORY_TEXT


def test_expected_hash_null_creates_a_new_file_only(server, home):
    created = server.request(
        "PUT", f"{API}/file", {"path": "memory/people.md", "text": "# People\n", "expectedHash": None}
    )
    assert created.status == 200 and memory_file(home, "memory/people.md").read_text() == "# People\n"
    again = server.request(
        "PUT", f"{API}/file", {"path": "memory/people.md", "text": "# Other\n", "expectedHash": None}
    )
    assert again.status == 409 and again.error == "memory/people.md already exists; nothing was written."
    assert again.data["currentText"] == "# People\n"


@pytest.mark.parametrize(
    "body, words",
    [
        ({"text": "x", "expectedHash": None}, "'path'"),
        ({"path": "MEMORY.md", "text": 5, "expectedHash": None}, "'text'"),
        ({"path": "MEMORY.md", "text": "x", "expectedHash": 7}, "expectedHash must be a string"),
        ({"path": "memory/log/2026-01-05.md", "text": "x", "expectedHash": text_hash(LOG_TEXT)}, "read-only"),
        ({"path": "memory/_bad.md", "text": "x", "expectedHash": None}, "not a valid topic name"),
    ],
)
def test_a_bad_save_is_400_in_one_sentence(server, home, body, words):
    reply = server.request("PUT", f"{API}/file", body)
    assert reply.status == 400 and words in reply.error
    assert memory_file(home, f"memory/log/{LOG_NAME}").read_text() == LOG_TEXT


@pytest.mark.parametrize("raw, words", [(b"{not json", "not valid JSON"), (b"[1, 2]", "a JSON object"), (b"", "empty")])
def test_a_body_that_is_not_a_json_object_is_400(server, raw, words):
    reply = server.request("PUT", f"{API}/file", raw=raw)
    assert reply.status == 400 and words in reply.error


def test_the_old_whole_file_put_still_saves_memory_but_says_it_is_deprecated(server, home):
    MemoryStore(home, "scout").write("MEMORY.md", "- the bot just wrote this\n", BOT)
    reply = server.request("PUT", API, {"text": "- overwritten, no hash check\n"})
    assert reply.status == 200
    assert reply.headers["Deprecation"].startswith("@")
    assert reply.headers["Link"] == '</api/bots/scout/memory/file>; rel="successor-version"'
    assert memory_file(home).read_text() == "- overwritten, no hash check\n"
    row = newest_row(home)
    assert (row.how, row.before_text) == (HOW_API, "- the bot just wrote this\n")  # undoable


# ----- deleting -----
def test_delete_removes_a_topic_journaled_and_undoable(server, home):
    reply = server.request("DELETE", f"{API}/file?path=memory/travel.md")
    assert reply.status == 200 and reply.data["deleted"] is True
    assert not memory_file(home, "memory/travel.md").exists()
    row = newest_row(home)
    assert (row.id, row.how, row.before_text) == (reply.data["rowId"], HOW_API, TOPIC_TEXT)


def test_delete_refuses_memory_md_and_a_missing_file(server, home):
    refused = server.request("DELETE", f"{API}/file?path=MEMORY.md")
    assert refused.status == 400 and "never deleted" in refused.error
    assert memory_file(home).read_text() == MEMORY_TEXT
    assert server.request("DELETE", f"{API}/file?path=memory/gone.md").status == 404


# ----- the journal and revert -----
def test_the_journal_is_newest_first_with_limit(server, home):
    store = MemoryStore(home, "scout")
    for n in range(3):
        store.write("MEMORY.md", f"- version {n}\n", BOT)
    reply = server.get(f"{API}/journal?limit=2")
    assert reply.status == 200
    assert [row["id"] for row in reply.data["rows"]] == [row.id for row in store.journal.rows(limit=2)]
    assert "beforeText" not in reply.data["rows"][0] and reply.data["rows"][0]["how"] == HOW_TASK


@pytest.mark.parametrize("limit", ["0", "-1", "many", "1001", "%C2%B2", "%D9%A1%D9%A2"])
def test_a_bad_journal_limit_is_400(server, limit):
    reply = server.get(f"{API}/journal?limit={limit}")
    assert reply.status == 400 and "limit" in reply.error


def test_revert_puts_the_file_back(server, home):
    row = MemoryStore(home, "scout").write("MEMORY.md", "- the bot's version\n", BOT)
    reply = server.request("POST", f"{API}/journal/{row.row_id}/revert")
    assert reply.status == 200 and reply.data["reverted"] == row.row_id
    assert memory_file(home).read_text() == MEMORY_TEXT
    undo = newest_row(home)
    assert (undo.who, undo.how, undo.undo_of) == (WHO_PERSON, HOW_UNDO, row.row_id)


def test_revert_with_later_changes_is_409_naming_them_unless_forced(server, home):
    store = MemoryStore(home, "scout")
    first = store.write("MEMORY.md", "- one\n", BOT)
    later = store.write("MEMORY.md", "- two\n", BOT)
    refused = server.request("POST", f"{API}/journal/{first.row_id}/revert", {})
    assert refused.status == 409 and later.row_id in refused.error and "force" in refused.error
    assert [row["id"] for row in refused.data["later"]] == [later.row_id]
    assert memory_file(home).read_text() == "- two\n"
    forced = server.request("POST", f"{API}/journal/{first.row_id}/revert", {"force": True})
    assert forced.status == 200 and forced.data["later"] == [later.row_id]
    assert memory_file(home).read_text() == MEMORY_TEXT


def test_revert_of_an_unknown_row_is_404_and_a_bad_force_400(server, home):
    assert server.request("POST", f"{API}/journal/nope/revert").status == 404
    row = MemoryStore(home, "scout").write("MEMORY.md", "- x\n", BOT)
    assert server.request("POST", f"{API}/journal/{row.row_id}/revert", {"force": "yes"}).status == 400


# ----- open the folder -----
def test_open_opens_the_folder_or_obsidian_on_this_computer(server, home):
    folder = str(home.workspace("scout"))
    assert server.request("POST", f"{API}/open", {"target": "folder"}).data == {"opened": "folder", "folder": folder}
    assert server.request("POST", f"{API}/open", {"target": "obsidian"}).status == 200
    assert server.opened == [folder, f"obsidian://open?path={urllib.parse.quote(folder)}"]
    bad = server.request("POST", f"{API}/open", {"target": "finder"})
    assert bad.status == 400 and len(server.opened) == 2


# ----- upkeep and the tidy-up -----
def expire_a_note(home):
    MemoryStore(home, "scout").write(
        "MEMORY.md", MEMORY_TEXT + "- 2020-01-01 · Conference pass · until 2020-01-03\n", BOT
    )


def test_upkeep_says_what_is_on_what_can_run_and_what_ran_last(server, home):
    reply = server.get(f"{API}/upkeep")
    assert reply.status == 200
    assert (reply.data["memory"], reply.data["upkeep"], reply.data["learnFromGroupChats"]) == (True, True, False)
    assert reply.data["modelSteps"]["canRun"] is False and reply.data["modelSteps"]["why"]
    assert (reply.data["lastTidy"], reply.data["lastCapture"]) == (None, None)
    expire_a_note(home)
    server.request("POST", f"{API}/tidy")
    assert server.get(f"{API}/upkeep").data["lastTidy"]["expired"] == 1


def test_tidy_runs_now_and_returns_its_report(server, home):
    expire_a_note(home)
    reply = server.request("POST", f"{API}/tidy")
    assert reply.status == 200
    assert reply.data["expired"] == 1 and reply.data["message"].startswith("Tidied scout: 1 expired entry")
    assert "Conference pass" in memory_file(home, "memory/archive.md").read_text()
    assert "Conference pass" not in memory_file(home).read_text()


def test_tidy_is_409_when_upkeep_is_off(server, home):
    save_bot_settings(home, BotSettings(id="scout", name="Scout", upkeep=False))
    expire_a_note(home)
    reply = server.request("POST", f"{API}/tidy")
    assert reply.status == 409 and "Memory upkeep is switched off" in reply.error
    assert "Conference pass" in memory_file(home).read_text()


def test_tidy_is_409_while_the_bot_is_in_a_turn(server, home):
    from omb_tui.core.turn.turn import bot_turn

    expire_a_note(home)
    with bot_turn(home, "scout", chat="Plans"):
        reply = server.request("POST", f"{API}/tidy")
    assert reply.status == 409 and "in a turn" in reply.error
    assert "Conference pass" in memory_file(home).read_text()


# ----- About me's learned lines -----
LEARNED = "- 2026-09-25 · learned by Scout · Drinks tea, never coffee\n"


def test_learned_lines_are_listed_and_removed_for_good(server, home):
    home.about_me_path.write_text("# About me\n" + LEARNED)
    listed = server.get("/api/profile/learned")
    assert listed.status == 200
    [line] = listed.data["learned"]
    assert (line["text"], line["bot"], line["at"]) == ("Drinks tea, never coffee", "Scout", "2026-09-25")
    removed = server.request("POST", f"/api/profile/learned/{line['id']}/remove")
    assert removed.status == 200 and removed.data["removed"]["id"] == line["id"]
    assert "tea" not in home.about_me_path.read_text()
    row = newest_row(home)
    assert (row.file, row.who, row.how) == ("about-me.md", WHO_PERSON, HOW_API)
    assert server.get("/api/profile/learned").data == {"learned": []}
    assert server.request("POST", f"/api/profile/learned/{line['id']}/remove").status == 404


def test_a_topic_name_shaped_like_a_credential_is_400_in_one_sentence_and_reaches_no_file(server, home):
    key = "AK" + "IA" + "FAKEEXAMPLE01234"
    reply = server.request("PUT", f"{API}/file", {"path": f"memory/{key}.md", "text": "x", "expectedHash": None})
    assert reply.status == 400
    assert reply.error == "That topic name looks like it holds a credential; choose a name without one."
    assert [p for p in home.root.rglob("*") if p.is_file() and key.encode() in p.read_bytes() + p.name.encode()] == []
