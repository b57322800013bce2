"""The server's guards, over a real socket: the owner's token, the body limit, paths that lead out, concurrent saves,
one slow bot never holding up another, and the open route from this computer only."""

from __future__ import annotations

import json
import os
import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from support.home import MEMORY_TEXT, make_bot
from support.serve_helpers import LiveServer, memory_file, server  # noqa: F401 (server: a fixture)

from omb_tui.core.files.paths import MemoryInputError
from omb_tui.core.memory.store import MemoryStore
from omb_tui.core.people.owner_token import MAX_BODY_BYTES, load_or_create_token, token_path
from omb_tui.server.app import is_loopback_peer

API = "/api/bots/scout/memory"


# ----- the owner's token -----
def test_no_token_is_401_and_says_how_to_send_one(server):
    reply = server.get(API, token=None)
    assert reply.status == 401 and "Authorization: Bearer" in reply.error
    assert reply.headers["WWW-Authenticate"].startswith("Bearer")
    basic = server.get(API, token=None, headers={"Authorization": "Basic b3duZXI6cGFzcw=="})
    assert basic.status == 401


def test_a_wrong_token_is_403_even_one_character_off(server):
    one_off = server.token[:-1] + ("A" if server.token[-1] != "A" else "B")
    for token in ("nope", one_off):
        reply = server.get(API, token=token)
        assert (reply.status, reply.data) == (
            403,
            {"error": "That token is not the owner's; nothing was read or changed."},
        )


def test_a_refused_request_changes_nothing(server, home):
    for token in (None, "wrong"):
        reply = server.request("PUT", API, {"text": "- taken over\n"}, token=token)
        assert reply.status in (401, 403)
    assert memory_file(home).read_text() == MEMORY_TEXT


def test_an_unknown_route_needs_the_token_before_it_says_404(server):
    assert server.get("/api/secret-admin", token=None).status == 401
    reply = server.get("/api/secret-admin")
    assert reply.status == 404 and "no such route" in reply.error
    wrong_method = server.request("PATCH", API)
    assert wrong_method.status == 405 and wrong_method.headers["Allow"]


def test_the_token_is_made_once_kept_0600_and_reused(home):
    token = load_or_create_token(home)
    assert len(token) >= 43 and os.stat(token_path(home)).st_mode & 0o777 == 0o600
    assert load_or_create_token(home) == token


def test_a_token_file_others_can_read_is_refused(home):
    load_or_create_token(home)
    os.chmod(token_path(home), 0o644)
    with pytest.raises(MemoryInputError, match="can be read by others"):
        load_or_create_token(home)


def test_a_linked_token_file_is_refused(home, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.write_text("x" * 50)
    token_path(home).symlink_to(outside)
    with pytest.raises(MemoryInputError, match="symbolic link"):
        load_or_create_token(home)


# ----- the body limit -----
def raw_request(server, head: str, body: bytes = b"") -> tuple[int, bytes]:
    """One request written on a socket as given; the status and body of the answer."""
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        sock.sendall(head.encode("ascii") + b"\r\n" + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and b'"}' in answer:
                break
    status = int(answer.split(b" ", 2)[1])
    return status, answer.split(b"\r\n\r\n", 1)[1]


def test_a_body_announced_over_the_limit_is_413_before_it_is_read(server, home):
    head = (
        f"PUT {API}/file HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: Bearer {server.token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {MAX_BODY_BYTES + 1}\r\nConnection: close\r\n"
    )
    status, body = raw_request(server, head)  # not a byte of the body is sent: the answer comes first
    assert status == 413 and b"2 MiB" in body
    assert memory_file(home).read_text() == MEMORY_TEXT


def test_a_chunked_body_over_the_limit_is_413_and_writes_nothing(server, home):
    import json

    text = "- a long note\n" * (MAX_BODY_BYTES // 14 + 10)
    read_hash = server.get(f"{API}/file?path=MEMORY.md").data["hash"]
    payload = json.dumps({"path": "MEMORY.md", "text": text, "expectedHash": read_hash}).encode()
    chunked = (
        b"".join(
            b"%x\r\n%s\r\n" % (len(part), part)
            for part in (payload[i : i + 65536] for i in range(0, len(payload), 65536))
        )
        + b"0\r\n\r\n"
    )
    head = (
        f"PUT {API}/file HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: Bearer {server.token}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n"
    )
    status, _ = raw_request(server, head, chunked)
    assert status == 413
    assert memory_file(home).read_text() == MEMORY_TEXT


def test_a_body_just_under_the_limit_is_saved(server, home):
    text = "- " + "a" * (MAX_BODY_BYTES - 200) + "\n"  # the whole JSON body a little under the limit
    read_hash = server.get(f"{API}/file?path=memory/big.md").data.get("hash")
    reply = server.request("PUT", f"{API}/file", {"path": "memory/big.md", "text": text, "expectedHash": read_hash})
    assert reply.status == 200 and memory_file(home, "memory/big.md").read_text() == text


# ----- paths that lead out -----
@pytest.mark.parametrize(
    "rel",
    [
        "../MEMORY.md",
        "../../config.json",
        "memory/../../other/MEMORY.md",
        "/etc/passwd",
        "memory/log/../../../x.md",
        "..%2Fsecret.md",
    ],
)
def test_a_path_that_leads_out_is_400_for_every_file_route(server, home, rel):
    quoted = rel.replace("/", "%2F") if rel.startswith("..%") else rel
    assert server.get(f"{API}/file?path={quoted}").status == 400
    put = server.request("PUT", f"{API}/file", {"path": rel, "text": "owned\n", "expectedHash": None})
    assert put.status == 400 and "\n" not in put.error
    assert server.request("DELETE", f"{API}/file?path={quoted}").status == 400
    assert not any("owned" in p.read_text(errors="replace") for p in home.root.rglob("*.md"))


def test_a_topic_linked_outside_the_workspace_is_never_read_or_written(server, home, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("the bank PIN is 4321\n")
    memory_file(home, "memory/leak.md").symlink_to(secret)
    read = server.get(f"{API}/file?path=memory/leak.md")
    assert read.status == 400 and "4321" not in str(read.data)
    put = server.request(
        "PUT", f"{API}/file", {"path": "memory/leak.md", "text": "overwritten\n", "expectedHash": None}
    )
    assert put.status == 400
    assert secret.read_text() == "the bank PIN is 4321\n"
    assert "4321" not in str(server.get(API).data)


def test_a_bot_id_that_leads_out_is_refused(server):
    for bad in ("..", "..%2F..%2Fetc", "%2E%2E"):
        assert server.get(f"/api/bots/{bad}/memory").status in (400, 404)


# ----- concurrent saves -----
def test_concurrent_saves_with_the_same_hash_exactly_one_wins(server, home):
    read_hash = server.get(f"{API}/file?path=MEMORY.md").data["hash"]
    start = threading.Barrier(8)

    def save(n: int):
        start.wait()
        return server.request(
            "PUT", f"{API}/file", {"path": "MEMORY.md", "text": f"- writer {n}\n", "expectedHash": read_hash}
        )

    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(save, range(8)))
    winners = [n for n, reply in enumerate(replies) if reply.status == 200]
    assert len(winners) == 1 and sorted(r.status for r in replies) == [200] + [409] * 7
    assert memory_file(home).read_text() == f"- writer {winners[0]}\n"
    api_rows = [row for row in MemoryStore(home, "scout").journal.rows() if row.how == "from the API"]
    assert len(api_rows) == 1
    assert all(r.data["currentText"] == f"- writer {winners[0]}\n" for r in replies if r.status == 409)


def test_a_bot_waiting_for_its_lock_does_not_hold_up_another_bot(server, home):
    make_bot(home, "quill", name="Quill")
    store = MemoryStore(home, "scout")
    read_hash = server.get(f"{API}/file?path=MEMORY.md").data["hash"]
    with ThreadPoolExecutor(1) as pool:
        with store.locked():  # scout's save waits for this lock on a worker thread
            waiting = pool.submit(
                server.request,
                "PUT",
                f"{API}/file",
                {"path": "MEMORY.md", "text": "- later\n", "expectedHash": read_hash},
            )
            other = server.get("/api/bots/quill/memory")
            assert other.status == 200 and other.data["name"] == "Quill"
            assert not waiting.done()
        assert waiting.result(timeout=60).status == 200


def test_more_requests_for_a_locked_bot_than_there_are_threads_still_leave_room_for_another_bot(server, home):
    from omb_tui.server.app import WORKER_THREADS

    make_bot(home, "quill", name="Quill")
    waiting_count = WORKER_THREADS + 8
    with ThreadPoolExecutor(waiting_count) as pool:
        with MemoryStore(home, "scout").locked():  # every scout request waits, in turn, for this lock
            waiting = [pool.submit(server.get, f"{API}/file?path=MEMORY.md") for _ in range(waiting_count)]
            other = server.get("/api/bots/quill/memory")
            assert other.status == 200 and other.data["name"] == "Quill"
            assert not any(request.done() for request in waiting)
        assert all(request.result(timeout=60).status == 200 for request in waiting)


# ----- open: this computer only -----
def this_machines_other_address() -> str | None:
    """An address of this machine that is not loopback (a UDP connect sends nothing), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 1))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def test_open_from_another_address_is_403_and_opens_nothing(home):
    address = this_machines_other_address()
    if address is None:
        pytest.skip("this machine has no address other than loopback")
    with LiveServer(home, host=address) as server:
        reply = server.request("POST", f"{API}/open", {"target": "folder"})
        assert reply.status == 403 and "only from this computer" in reply.error
        assert server.opened == []
        assert server.get(API).status == 200  # the other routes answer there


@pytest.mark.parametrize(
    "peer, loopback",
    [
        ("127.0.0.1", True),
        ("127.8.9.1", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("192.168.1.5", False),
        ("::ffff:10.0.0.1", False),
        (None, False),
        ("", False),
    ],
)
def test_loopback_peers(peer, loopback):
    assert is_loopback_peer(peer) is loopback


# ----- the Host header: no DNS rebinding -----
def raw_get(server, host_header: str | None) -> tuple[int, bytes]:
    host_line = "" if host_header is None else f"Host: {host_header}\r\n"
    head = f"GET {API} HTTP/1.1\r\n{host_line}Authorization: Bearer {server.token}\r\nConnection: close\r\n"
    return raw_request(server, head)


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:{port}",
        "evil.example",
        "localhost.evil.example:{port}",
        "127.0.0.1:{other}",
        "localhost:{other}",
        "127.0.0.1",
        "",
    ],
)
def test_a_host_header_that_is_not_the_servers_address_is_421_even_with_the_token(server, host):
    status, body = raw_get(server, host.format(port=server.port, other=server.port + 1))
    assert status == 421
    error = json.loads(body)["error"]
    assert error.startswith(
        f"This server answers to localhost:{server.port}, 127.0.0.1:{server.port} or [::1]:{server.port}, not to "
    ) and error.endswith("--allow-host.")
    assert "Scout" not in body.decode()


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
def test_the_servers_own_address_is_answered(server, host):
    status, body = raw_get(server, host.format(port=server.port))
    assert status == 200 and json.loads(body)["name"] == "Scout"


def test_a_name_given_with_allow_host_is_answered_on_any_port(home):
    with LiveServer(home, allow_hosts=["memory.example", "panel.example:8443"]) as server:
        assert raw_get(server, "memory.example")[0] == 200
        assert raw_get(server, "Memory.Example:443")[0] == 200
        assert raw_get(server, "panel.example:8443")[0] == 200
        assert raw_get(server, "panel.example:9000")[0] == 421
        assert raw_get(server, "other.example")[0] == 421


@pytest.mark.parametrize(
    "listening, host, answered",
    [
        ("0.0.0.0", "192.168.1.5:8767", True),
        ("0.0.0.0", "[fe80::1]:8767", True),
        ("0.0.0.0", "192.168.1.5:80", False),
        ("0.0.0.0", "box.lan:8767", False),
        ("192.168.1.5", "192.168.1.5:8767", True),
        ("192.168.1.5", "192.168.1.6:8767", False),
        ("127.0.0.1", "192.168.1.5:8767", False),
        ("localhost", "localhost:8767", True),
    ],
)
def test_which_hosts_a_server_answers_to(listening, host, answered):
    from omb_tui.server.hosts import AllowedHosts

    allowed = AllowedHosts()
    allowed.listening_on(listening, 8767)
    assert allowed.allows(host) is answered
