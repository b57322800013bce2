"""A client's bad input is a 400 with one sentence, never a 500 or a traceback in the log; the owner's token is
checked before anything of a request is read; and a request for a bot that does not exist leaves nothing behind."""

from __future__ import annotations

import logging
import secrets
import socket

import pytest
from support.home import MEMORY_TEXT
from support.serve_helpers import memory_file, server  # noqa: F401 (server: a fixture)

from omb_tui.core.files.paths import MAX_TOPIC_NAME_BYTES
from omb_tui.server.app import BOT_TURNS
from omb_tui.server.http import MAX_BODY_DEPTH

API = "/api/bots/scout/memory"


def one_sentence(reply) -> bool:
    return reply.error.endswith(".") and "\n" not in reply.error and "Traceback" not in reply.error


def tracebacks(caplog) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.exc_info]


# ----- bodies -----
def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize("depth", [1000, 100_000])
def test_a_body_nested_deeper_than_json_bodies_go_is_400_and_writes_nothing(server, home, caplog, depth):
    raw = b'{"path": "MEMORY.md", "text": "x", "expectedHash": null, "extra": ' + nested(depth) + b"}"
    reply = server.request("PUT", f"{API}/file", raw=raw)
    assert reply.status == 400 and one_sentence(reply) and "nested" in reply.error
    assert memory_file(home).read_text() == MEMORY_TEXT
    assert tracebacks(caplog) == []


def test_a_body_just_within_the_depth_limit_is_read(server, home):
    extra = nested(MAX_BODY_DEPTH - 1)  # the object itself is the first level
    raw = b'{"path": "memory/deep.md", "text": "# Deep\\n", "expectedHash": null, "extra": ' + extra + b"}"
    assert server.request("PUT", f"{API}/file", raw=raw).status == 200
    assert memory_file(home, "memory/deep.md").read_text() == "# Deep\n"


@pytest.mark.parametrize(
    "route, raw",
    [
        (f"PUT {API}/file", b'{"path": "memory/a.md", "text": "half \\ud800 a pair", "expectedHash": null}'),
        (f"PUT {API}", b'{"text": "- \\udbff\\n"}'),
        (f"PUT {API}/file", b'{"path": "memory/\\ud800.md", "text": "x", "expectedHash": null}'),
        ("POST /api/teams", b'{"name": "Crew", "bots": ["scout\\udfff"]}'),
    ],
    ids=["file text", "whole-file text", "topic name", "team's bot"],
)
def test_a_lone_surrogate_in_a_text_is_400_and_writes_nothing(server, home, caplog, route, raw):
    method, path = route.split(" ", 1)
    reply = server.request(method, path, raw=raw)
    assert reply.status == 400 and one_sentence(reply) and "UTF-8" in reply.error
    assert memory_file(home).read_text() == MEMORY_TEXT and not memory_file(home, "memory/a.md").exists()
    assert tracebacks(caplog) == []


def test_a_byte_that_is_not_utf8_still_goes_back_as_the_escape_it_was_read_as(server, home):
    memory_file(home, "memory/latin.md").write_bytes(b"- caf\xe9\n")
    read = server.get(f"{API}/file?path=memory/latin.md").data
    saved = server.request(
        "PUT",
        f"{API}/file",
        {"path": "memory/latin.md", "text": read["text"] + "- more\n", "expectedHash": read["hash"]},
    )
    assert saved.status == 200 and memory_file(home, "memory/latin.md").read_bytes() == b"- caf\xe9\n- more\n"


# ----- names -----
def test_a_topic_name_too_long_for_a_file_name_is_400_on_every_file_route(server, home, caplog):
    rel = "memory/" + "a" * 300 + ".md"
    assert server.get(f"{API}/file?path={rel}").status == 400
    put = server.request("PUT", f"{API}/file", {"path": rel, "text": "# Long\n", "expectedHash": None})
    assert put.status == 400 and one_sentence(put) and f"{MAX_TOPIC_NAME_BYTES} bytes" in put.error
    assert server.request("DELETE", f"{API}/file?path={rel}").status == 400
    assert tracebacks(caplog) == [] and not [r for r in caplog.records if "too long" in r.getMessage()]


def test_a_topic_name_at_the_length_limit_is_saved(server, home):
    name = "é" * ((MAX_TOPIC_NAME_BYTES - 3) // 2) + "a" * ((MAX_TOPIC_NAME_BYTES - 3) % 2) + ".md"
    assert len(name.encode()) == MAX_TOPIC_NAME_BYTES
    reply = server.request("PUT", f"{API}/file", {"path": f"memory/{name}", "text": "# Long\n", "expectedHash": None})
    assert reply.status == 200 and memory_file(home, f"memory/{name}").read_text() == "# Long\n"
    longer = server.request("PUT", f"{API}/file", {"path": f"memory/a{name}", "text": "x", "expectedHash": None})
    assert longer.status == 400


# ----- the token first, and no traceback for what a client sent -----
def test_without_the_token_a_malformed_body_is_401_and_nothing_is_logged(server, caplog):
    for raw in (nested(100_000), b'{"text": "\\ud800"}', b"\xff\xfe not json"):
        assert server.request("PUT", f"{API}/file", raw=raw, token=None).status == 401
    assert caplog.records == []


def raw_exchange(server, data: bytes) -> bytes:
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize(
    "data",
    [
        b"GET /api/bots/scout/memory HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n",
        b"GET /api/bots/scout/memory HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + b"a" * 20_000 + b"\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 a TLS hello to a plain HTTP port\r\n\r\n",
        b"GET /api/bots/scout/memory HTTP/9.9\r\n\r\n",
    ],
    ids=["a header without a colon", "a header of 20,000 bytes", "a TLS hello", "HTTP/9.9"],
)
def test_a_request_that_is_not_http_is_refused_without_a_traceback(server, caplog, data):
    with caplog.at_level(logging.DEBUG):
        answer = raw_exchange(server, data)
    assert answer.split(b"\r\n", 1)[0].endswith(b" 400 Bad Request")
    assert tracebacks(caplog) == []
    assert server.get(API).status == 200


# ----- the bots' turns -----
def test_requests_for_bots_that_do_not_exist_leave_no_entry_behind(server):
    for _ in range(300):
        assert server.get(f"/api/bots/{secrets.token_hex(8)}/memory").status == 404
    assert server.get(API).status == 200
    assert len(server.app[BOT_TURNS]) == 0


async def test_twenty_thousand_bot_ids_leave_the_table_of_turns_empty():
    from omb_tui.server.app import Turns

    turns = Turns()
    for _ in range(20_000):
        async with turns.turn(secrets.token_hex(8)):
            pass
    assert len(turns) == 0


async def test_a_bot_whose_turn_is_taken_waits_and_its_entry_goes_once_both_are_done():
    import asyncio

    from omb_tui.server.app import Turns

    turns, order = Turns(), []

    async def take(name: str, hold: asyncio.Event | None):
        async with turns.turn("scout"):
            order.append(f"{name} in")
            if hold:
                await hold.wait()
            order.append(f"{name} out")

    release = asyncio.Event()
    first = asyncio.create_task(take("first", release))
    await asyncio.sleep(0)
    second = asyncio.create_task(take("second", None))
    await asyncio.sleep(0)
    assert order == ["first in"] and len(turns) == 1
    release.set()
    await asyncio.gather(first, second)
    assert order == ["first in", "first out", "second in", "second out"] and len(turns) == 0
