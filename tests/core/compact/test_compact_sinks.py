"""Report sinks: a command (report on stdin), a webhook (JSON POST) and Telegram's sendMessage, each against a
script or a server the test starts on 127.0.0.1; each failure is one sentence, never raised, never the token."""

from __future__ import annotations

import json
import shlex
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from omb_tui.core.compact.report import compose_report
from omb_tui.core.compact.sinks import (
    TELEGRAM_MAX_CHARS,
    ReportSink,
    SinkResult,
    load_report_sink,
    send_report,
)
from omb_tui.core.files.paths import Home
from omb_tui.core.memory.settings import BrokenFile

BOT = "scout"
RUN = "20261201T031502-1a2b3c"
TOKEN = "123456789:AAF-secretTokenValue_0123456789abcdefghi"
CHAT = "-100200300"
REPORT = compose_report(BOT, RUN, [{"category": "duplicate", "original": "- Lives in Pune", "reason": "In About me."}])


@pytest.fixture
def home(tmp_path) -> Home:
    home = Home(tmp_path / "home")
    home.root.mkdir()
    return home


def configure(home: Home, report: object) -> None:
    home.config_path.write_text(json.dumps({"compact": {"report": report}}), encoding="utf-8")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    """urllib honours proxy variables: none may route the test's requests off the machine."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


class LocalServer:
    """An HTTP server on 127.0.0.1 that records each POST and answers `status` with `answer`."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.status = 200
        self.answer = b'{"ok": true}'
        self.hold = False  # True: the handler waits (until the test ends) instead of answering
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                server.requests.append(
                    {"path": self.path, "type": self.headers["Content-Type"], "body": json.loads(body)}
                )
                if server.hold:
                    server.release.wait(30)
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(server.answer)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    local = LocalServer()
    yield local
    local.close()


@pytest.fixture
def telegram_env(server) -> dict[str, str]:
    return {"OMB_TELEGRAM_BOT_TOKEN": TOKEN, "OMB_TELEGRAM_CHAT_ID": CHAT, "OMB_TELEGRAM_API_BASE": server.base}


def script(tmp_path, body: str) -> str:
    path = tmp_path / "sink script.py"  # a space in the path: the command string is split like a shell would
    path.write_text("import sys\n" + body, encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------------------------------------- none, config


def test_no_sink_configured_sends_nothing_and_is_no_error(home):
    assert send_report(home, REPORT) == SinkResult(False, None, None)
    home.config_path.write_text('{"features": {}}', encoding="utf-8")
    assert send_report(home, REPORT) == SinkResult(False, None, None)


@pytest.mark.parametrize(
    "value, words",
    [
        ("notify me", "must be an object"),
        ({}, "exactly one of"),
        ({"command": ["x"], "telegram": True}, "exactly one of"),
        ({"command": ""}, "command is empty"),
        ({"command": "say 'unclosed"}, "cannot be split"),
        ({"command": ["ok", 3]}, "text or a list of words"),
        ({"webhook": "ftp://example.org/x"}, "http:// or https://"),
        ({"telegram": "yes"}, "must be true"),
        ({"telegram": True, "timeout": 0}, "timeout must be a number"),
    ],
)
def test_a_broken_sink_value_is_refused_in_one_sentence_and_the_run_goes_on(home, value, words):
    configure(home, value)
    with pytest.raises(BrokenFile, match=words):
        load_report_sink(home)
    result = send_report(home, REPORT)
    assert result.sent is False and result.error.startswith("The report was not sent: ")
    assert words in result.error and "\n" not in result.error


def test_a_command_string_is_split_like_a_shell_would(home, tmp_path):
    configure(home, {"command": "notify-send 'Memory compact' --urgency=low", "timeout": 5})
    assert load_report_sink(home) == ReportSink(
        "command", command=("notify-send", "Memory compact", "--urgency=low"), timeout=5.0
    )


# ---------------------------------------------------------------------------------------------- command


def test_command_gets_the_report_text_on_stdin(home, tmp_path):
    out = tmp_path / "got.txt"
    path = script(tmp_path, "open(sys.argv[1], 'w', encoding='utf-8').write(sys.stdin.read())\n")
    configure(home, {"command": f"{shlex.quote(sys.executable)} {shlex.quote(path)} {shlex.quote(str(out))}"})

    assert send_report(home, REPORT) == SinkResult(True, "command", None)
    assert out.read_text(encoding="utf-8") == REPORT.text


def test_a_command_that_fails_is_reported_with_its_status_and_what_it_said(home, tmp_path):
    path = script(tmp_path, "sys.stderr.write('no display\\n')\nsys.exit(1)\n")
    configure(home, {"command": [sys.executable, path]})

    result = send_report(home, REPORT)

    assert result == SinkResult(
        False, "command", f"The report command {sys.executable!r} exited with status 1 (no display)."
    )


def test_a_command_that_hangs_is_stopped_at_its_timeout(home, tmp_path):
    path = script(tmp_path, "import time\ntime.sleep(60)\n")
    configure(home, {"command": [sys.executable, path], "timeout": 0.5})

    result = send_report(home, REPORT)

    assert result.sent is False
    assert result.error == f"The report command {sys.executable!r} did not finish within 0.5 seconds and was stopped."


def test_a_command_that_does_not_exist_is_one_sentence(home, tmp_path):
    configure(home, {"command": [str(tmp_path / "no-such-notifier")]})
    result = send_report(home, REPORT)
    assert result.sent is False
    assert result.error.startswith(f"The report command {str(tmp_path / 'no-such-notifier')!r} could not be started")
    assert result.error.endswith(".") and "\n" not in result.error


# ---------------------------------------------------------------------------------------------- webhook


def test_webhook_gets_the_report_as_json_with_its_text(home, server):
    configure(home, {"webhook": server.base + "/hooks/s3cret-path"})

    assert send_report(home, REPORT) == SinkResult(True, "webhook", None)

    (request,) = server.requests
    assert request["path"] == "/hooks/s3cret-path"
    assert request["type"].startswith("application/json")
    assert request["body"] == {**REPORT.to_dict(), "text": REPORT.text}
    assert request["body"]["counts"] == {"duplicate": 1}


def test_a_webhook_answering_500_is_reported_without_its_secret_path(home, server):
    server.status = 500
    configure(home, {"webhook": server.base + "/hooks/s3cret-path"})

    result = send_report(home, REPORT)

    assert result == SinkResult(False, "webhook", "The report webhook at 127.0.0.1 answered HTTP 500.")


def test_a_webhook_nobody_listens_on_is_one_sentence(home):
    with socket.socket() as probe:  # a port that was free a moment ago, now closed: the connection is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    configure(home, {"webhook": f"http://127.0.0.1:{port}/hook"})

    result = send_report(home, REPORT)

    assert result.sent is False
    assert result.error.startswith("The report webhook at 127.0.0.1 could not be reached: ")
    assert "/hook" not in result.error and "\n" not in result.error


def test_a_webhook_that_does_not_answer_in_time_is_reported(home, server):
    server.hold = True
    configure(home, {"webhook": server.base + "/hook", "timeout": 0.5})

    assert send_report(home, REPORT) == SinkResult(
        False, "webhook", "The report webhook at 127.0.0.1 did not answer in time."
    )


# ---------------------------------------------------------------------------------------------- telegram


def test_telegram_gets_send_message_with_the_chat_and_the_text(home, server, telegram_env):
    configure(home, {"telegram": True})

    assert send_report(home, REPORT, environ=telegram_env) == SinkResult(True, "telegram", None)

    (request,) = server.requests
    assert request["path"] == f"/bot{TOKEN}/sendMessage"
    assert request["body"] == {"chat_id": CHAT, "text": REPORT.text}


def test_telegram_reads_its_token_from_the_process_environment_by_default(home, server, telegram_env, monkeypatch):
    for name, value in telegram_env.items():
        monkeypatch.setenv(name, value)
    configure(home, {"telegram": True})
    assert send_report(home, REPORT).sent is True
    assert server.requests[0]["path"] == f"/bot{TOKEN}/sendMessage"


def test_a_long_report_is_cut_to_what_telegram_accepts(home, server, telegram_env):
    many = [
        {"category": "detail", "original": f"- command number {n} " + "x" * 50, "reason": "A command."}
        for n in range(200)
    ]
    long_report = compose_report(BOT, RUN, many)
    assert len(long_report.text) > TELEGRAM_MAX_CHARS
    configure(home, {"telegram": True})

    assert send_report(home, long_report, environ=telegram_env).sent is True

    text = server.requests[0]["body"]["text"]
    assert len(text) <= TELEGRAM_MAX_CHARS
    assert text.startswith("Memory compact: scout — 200 changes (200 detail)\n")
    assert text.endswith("\n… (cut: every change is in memory-clean.log)")


def test_a_telegram_refusal_says_why_and_never_holds_the_token(home, server, telegram_env):
    server.status = 401
    server.answer = json.dumps({"ok": False, "description": f"Unauthorized: bot{TOKEN} is not known"}).encode()
    configure(home, {"telegram": True})

    result = send_report(home, REPORT, environ=telegram_env)

    assert result.sent is False and result.sink == "telegram"
    assert result.error.startswith("Telegram answered HTTP 401 (Unauthorized: bot")
    assert TOKEN not in result.error and "secretTokenValue" not in result.error


def test_telegram_that_does_not_answer_in_time_is_reported_without_the_token(home, server, telegram_env):
    server.hold = True
    configure(home, {"telegram": True, "timeout": 0.5})

    result = send_report(home, REPORT, environ=telegram_env)

    assert result == SinkResult(False, "telegram", "Telegram did not answer in time.")


@pytest.mark.parametrize("missing", ["OMB_TELEGRAM_BOT_TOKEN", "OMB_TELEGRAM_CHAT_ID"])
def test_telegram_without_its_token_or_chat_names_the_variable(home, server, telegram_env, missing):
    configure(home, {"telegram": True})
    environ = {k: v for k, v in telegram_env.items() if k != missing}

    result = send_report(home, REPORT, environ=environ)

    assert result == SinkResult(False, "telegram", f"Telegram is the report sink, but {missing} is not set.")
    assert server.requests == []


def test_a_token_with_a_slash_is_refused_before_any_request(home, server, telegram_env):
    configure(home, {"telegram": True})
    environ = {**telegram_env, "OMB_TELEGRAM_BOT_TOKEN": TOKEN + "/../../other"}

    result = send_report(home, REPORT, environ=environ)

    assert result.sent is False and TOKEN not in result.error
    assert server.requests == []
