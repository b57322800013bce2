"""`omb-tui serve` as installed: it listens on loopback, answers with the home's token, stops on SIGTERM; it refuses
an address other computers reach unless told; and neither the app nor the command line loads aiohttp."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from support.home import omb_tui_command
from support.imports import FIRST_FRAME_PROBE, imported_after
from support.server_processes import serve_env

from omb_tui.core.people.owner_token import token_path


def test_serve_listens_on_loopback_answers_with_the_token_and_stops_on_sigterm(home, tmp_path):
    server = subprocess.Popen(
        omb_tui_command() + ["serve", "--port", "0", "--allow-host", "omb.test"],
        env=serve_env(home, tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stdout.readline()
        address = re.search(r"http://127\.0\.0\.1:(\d+)/api", line)
        assert address, line + server.stderr.read()
        assert str(token_path(home)) in line
        token = token_path(home).read_text().strip()

        def status_for(host: str | None) -> int:
            headers = {"Authorization": f"Bearer {token}", **({"Host": host} if host else {})}
            request = urllib.request.Request(
                f"http://127.0.0.1:{address.group(1)}/api/bots/scout/memory", headers=headers
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    assert json.loads(answer.read())["name"] == "Scout"
                    return answer.status
            except urllib.error.HTTPError as refused:
                return refused.code

        assert (status_for(None), status_for("omb.test"), status_for("evil.example")) == (200, 200, 421)
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=30)
    assert code == 0 and "Traceback" not in server.stderr.read()


def test_show_token_prints_the_token_kept_0600(run_exe, home):
    first = run_exe("serve", "--show-token")
    assert first.returncode == 0
    token = first.stdout.decode().strip()
    assert token == token_path(home).read_text().strip() and len(token) >= 43
    assert os.stat(token_path(home)).st_mode & 0o777 == 0o600
    assert run_exe("serve", "--show-token").stdout.decode().strip() == token


def test_an_address_other_computers_reach_needs_allow_remote(run_exe):
    for host in ("0.0.0.0", "::", "192.168.1.5", "myhost.example"):
        refused = run_exe("serve", "--host", host, "--port", "0")
        err = refused.stderr.decode()
        assert refused.returncode == 2 and "--allow-remote" in err and len(err.strip().splitlines()) == 1


def test_allow_remote_says_what_it_exposes(home, tmp_path):
    server = subprocess.Popen(
        omb_tui_command() + ["serve", "--host", "0.0.0.0", "--port", "0", "--allow-remote"],
        env=serve_env(home, tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        warning = server.stdout.readline()
        assert "every bot's memory" in warning and "clear text" in warning
        assert "http://0.0.0.0:" in server.stdout.readline()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def test_a_port_in_use_or_out_of_range_is_one_sentence(run_exe):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = run_exe("serve", "--port", str(taken.getsockname()[1]))
    assert busy.returncode == 2 and busy.stderr.decode().startswith("omb-tui: Cannot listen on '127.0.0.1' port")
    assert b"Traceback" not in busy.stderr
    assert run_exe("serve", "--port", "70000").returncode == 2


def test_the_command_line_and_the_apps_first_frame_never_load_aiohttp(tmp_path, home):
    assert "aiohttp" not in imported_after("import omb_tui.cli as c; c.build_parser()")
    probe, report = tmp_path / "probe.py", tmp_path / "modules.txt"
    probe.write_text(FIRST_FRAME_PROBE)
    subprocess.run([sys.executable, str(probe), str(home.root), str(report)], check=True, timeout=60)
    assert "aiohttp" not in set(report.read_text().split())


def test_the_server_never_loads_textual_rich_or_litellm():
    loaded = imported_after("import omb_tui.server.app, omb_tui.server.run")
    assert "aiohttp" in loaded and not {"textual", "rich", "litellm"} & loaded


@pytest.mark.parametrize("value", ["bad host!", "proxy.lan:abc", "proxy.lan:70000", "a:b:c", ""])
def test_an_allow_host_no_host_header_could_match_is_refused_in_one_sentence(run_cli, value):
    refused = run_cli("serve", "--port", "0", "--allow-host", value)
    assert refused.code == 2 and len(refused.err.strip().splitlines()) == 1
    assert "is not a host name" in refused.err or "no port from 1 to 65535" in refused.err


@pytest.mark.parametrize("value", ["proxy.lan", "Panel.Example:8443", "10.0.0.2", "[::1]:80", "localhost"])
def test_an_allow_host_name_or_address_is_taken_as_given(value):
    from omb_tui.server.hosts import allowed_host_argument

    assert allowed_host_argument(value) == value
