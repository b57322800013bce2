"""Where a compaction report goes besides stdout: a command, a webhook, or Telegram's Bot API.

Spec: compact-memory.en.md ("a report message composed by the script (originally sent to Telegram)").
docs/compact-nightly.md, "Backups, logs, report, sinks", gives the decisions. Configured in `<home>/config.json`:

    "compact": {"report": {"command": ["notify-send", "omb"]}}      or a string, split like a shell would (shlex)
    "compact": {"report": {"webhook": "https://example.org/hook"}}
    "compact": {"report": {"telegram": true}}                       token and chat id from the environment
    ... and an optional "timeout": seconds (default 20) beside any of them.

Public:
    load_report_sink(home) -> ReportSink | None          None: no sink configured; BrokenFile for a wrong value
    send_report(home, report, *, environ=None) -> SinkResult(sent, sink, error)

A command gets the report's text on stdin (no shell); a webhook a JSON POST of report.to_dict() plus `text`;
Telegram a POST to `<api base>/bot<TOKEN>/sendMessage` with `chat_id` and `text` (cut to TELEGRAM_MAX_CHARS).
Only the standard library speaks HTTP. A failed sink never fails the run: send_report never raises for one, it
returns the failure as one sentence, and no sentence ever holds the Telegram token or a webhook's path (which is
often a secret itself).
"""

from __future__ import annotations

import http.client
import json
import os
import shlex
import signal
import subprocess
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..files.paths import Home, MemoryInputError
from ..memory.settings import BrokenFile, load_config
from ..redaction.redact import redact
from .report import Report

SINK_COMMAND = "command"
SINK_WEBHOOK = "webhook"
SINK_TELEGRAM = "telegram"
DEFAULT_SINK_TIMEOUT_S = 20.0
TELEGRAM_TOKEN_ENV = "OMB_TELEGRAM_BOT_TOKEN"
TELEGRAM_CHAT_ENV = "OMB_TELEGRAM_CHAT_ID"
TELEGRAM_API_ENV = "OMB_TELEGRAM_API_BASE"  # tests point it at 127.0.0.1
TELEGRAM_API_DEFAULT = "https://api.telegram.org"
TELEGRAM_MAX_CHARS = 4096  # sendMessage refuses a longer text
ANSWER_READ_MAX_BYTES = 64 * 1024  # of an HTTP answer: enough for an error's description
ERROR_DETAIL_MAX_CHARS = 200


@dataclass(frozen=True)
class ReportSink:
    kind: str  # SINK_COMMAND, SINK_WEBHOOK or SINK_TELEGRAM
    command: tuple[str, ...] = ()
    url: str | None = None
    timeout: float = DEFAULT_SINK_TIMEOUT_S


@dataclass(frozen=True)
class SinkResult:
    sent: bool
    sink: str | None  # None: no sink is configured
    error: str | None  # one sentence, when it was not sent


def load_report_sink(home: Home) -> ReportSink | None:
    """config.json's `compact.report`, checked; a wrong value raises BrokenFile with one sentence."""
    config = load_config(home)
    path = home.config_path
    compact = config.raw.get("compact")
    if compact is None:
        return None
    if not isinstance(compact, dict):
        raise BrokenFile(f"{path}: 'compact' must be an object.")
    spec = compact.get("report")
    if spec is None:
        return None
    where = f"{path}: compact.report"
    if not isinstance(spec, dict):
        raise BrokenFile(f"{where} must be an object with one of 'command', 'webhook' or 'telegram'.")
    kinds = [kind for kind in (SINK_COMMAND, SINK_WEBHOOK, SINK_TELEGRAM) if kind in spec]
    if len(kinds) != 1:
        raise BrokenFile(f"{where} must name exactly one of 'command', 'webhook' or 'telegram'.")
    timeout = spec.get("timeout", DEFAULT_SINK_TIMEOUT_S)
    if type(timeout) not in (int, float) or not 0 < timeout <= 600:
        raise BrokenFile(f"{where}.timeout must be a number of seconds above 0, at most 600.")
    kind, value = kinds[0], spec[kinds[0]]
    if kind == SINK_COMMAND:
        return ReportSink(kind, command=_command(value, where), timeout=float(timeout))
    if kind == SINK_WEBHOOK:
        if (
            not isinstance(value, str)
            or urlsplit(value).scheme not in ("http", "https")
            or not urlsplit(value).hostname
        ):
            raise BrokenFile(f"{where}.webhook must be an http:// or https:// address.")
        return ReportSink(kind, url=value, timeout=float(timeout))
    if value is not True:
        raise BrokenFile(f"{where}.telegram must be true (the token and chat id come from the environment).")
    return ReportSink(kind, timeout=float(timeout))


def _command(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError:
            raise BrokenFile(f"{where}.command cannot be split into words (an unclosed quote?).") from None
    elif isinstance(value, list) and all(isinstance(word, str) for word in value):
        argv = list(value)
    else:
        raise BrokenFile(f"{where}.command must be text or a list of words.")
    if not argv or not argv[0]:
        raise BrokenFile(f"{where}.command is empty.")
    return tuple(argv)


def send_report(home: Home, report: Report, *, environ: Mapping[str, str] | None = None) -> SinkResult:
    """Send the report to the configured sink, if any; never raises for a sink that fails (it says why)."""
    environ = os.environ if environ is None else environ
    try:
        sink = load_report_sink(home)
    except MemoryInputError as exc:
        return SinkResult(False, None, f"The report was not sent: {exc}")
    if sink is None:
        return SinkResult(False, None, None)
    secrets = [environ.get(TELEGRAM_TOKEN_ENV) or ""]
    if sink.url:
        secrets.append(sink.url)
    try:
        if sink.kind == SINK_COMMAND:
            error = _run_command(sink, report.text)
        elif sink.kind == SINK_WEBHOOK:
            error = _post_webhook(sink, report)
        else:
            error = _post_telegram(sink, report.text, environ)
    except (OSError, ValueError, http.client.HTTPException, subprocess.SubprocessError) as exc:
        error = f"The report could not be sent to the {sink.kind} sink: {_detail(str(exc) or type(exc).__name__)}."
    if error is None:
        return SinkResult(True, sink.kind, None)
    return SinkResult(False, sink.kind, _scrub(error, secrets))


def _detail(text: str) -> str:
    """Something a program said, fit for one sentence: redacted, one line, short, no final stop."""
    line = " ".join(redact(text).text.split())
    if len(line) > ERROR_DETAIL_MAX_CHARS:
        line = line[: ERROR_DETAIL_MAX_CHARS - 1] + "…"
    return line.rstrip(".")


def _scrub(sentence: str, secrets: list[str]) -> str:
    for secret in secrets:
        if secret:
            sentence = sentence.replace(secret, "«hidden»")
    return sentence


def _run_command(sink: ReportSink, text: str) -> str | None:
    """Run the command with the text on stdin; its own session, so a timeout stops what it started too."""
    name = repr(sink.command[0])
    try:
        process = subprocess.Popen(
            sink.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return f"The report command {name} could not be started: {_detail(exc.strerror or str(exc))}."
    try:
        _, stderr = process.communicate(text.encode("utf-8"), timeout=sink.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the group we started, by its id
        process.communicate()
        return f"The report command {name} did not finish within {sink.timeout:g} seconds and was stopped."
    if process.returncode:
        said = _detail(stderr.decode("utf-8", "replace"))
        status = (
            f"was stopped by signal {-process.returncode}"
            if process.returncode < 0
            else f"exited with status {process.returncode}"
        )
        return f"The report command {name} {status}" + (f" ({said})." if said else ".")
    return None


def _post_json(url: str, body: dict, timeout: float) -> tuple[int, bytes]:
    """POST JSON; (status, the first bytes of the answer), HTTP errors included (not raised)."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
        headers={"Content-Type": "application/json; charset=utf-8"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 (http and https only)
            return answer.status, answer.read(ANSWER_READ_MAX_BYTES)
    except urllib.error.HTTPError as failure:
        with failure:
            return failure.code, failure.read(ANSWER_READ_MAX_BYTES)


def _unreachable(what: str, exc: urllib.error.URLError | OSError) -> str:
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError) or "timed out" in str(reason):
        return f"{what} did not answer in time."
    return f"{what} could not be reached: {_detail(str(reason))}."


def _post_webhook(sink: ReportSink, report: Report) -> str | None:
    assert sink.url is not None  # load_report_sink gives every webhook its address
    host = urlsplit(sink.url).hostname  # the path is not named: a webhook's path is often its secret
    what = f"The report webhook at {host}"
    try:
        status, _ = _post_json(sink.url, {**report.to_dict(), "text": report.text}, sink.timeout)
    except (urllib.error.URLError, OSError) as exc:
        return _unreachable(what, exc)
    if not 200 <= status < 300:
        return f"{what} answered HTTP {status}."
    return None


def _post_telegram(sink: ReportSink, text: str, environ: Mapping[str, str]) -> str | None:
    token = (environ.get(TELEGRAM_TOKEN_ENV) or "").strip()
    chat = (environ.get(TELEGRAM_CHAT_ENV) or "").strip()
    if not token or not chat:
        missing = TELEGRAM_TOKEN_ENV if not token else TELEGRAM_CHAT_ENV
        return f"Telegram is the report sink, but {missing} is not set."
    if any(mark in token for mark in "/?# ") or any(ord(c) < 33 for c in token):
        return f"{TELEGRAM_TOKEN_ENV} does not look like a bot token (it holds a slash, space or other mark)."
    base = (environ.get(TELEGRAM_API_ENV) or TELEGRAM_API_DEFAULT).rstrip("/")
    if urlsplit(base).scheme not in ("http", "https"):
        return f"{TELEGRAM_API_ENV} must be an http:// or https:// address."
    what = "Telegram"
    try:
        status, answer = _post_json(
            f"{base}/bot{token}/sendMessage", {"chat_id": chat, "text": _fit(text, TELEGRAM_MAX_CHARS)}, sink.timeout
        )
    except (urllib.error.URLError, OSError) as exc:
        return _unreachable(what, exc)
    if 200 <= status < 300:
        return None
    return f"Telegram answered HTTP {status}" + (f" ({said})." if (said := _telegram_description(answer)) else ".")


def _telegram_description(answer: bytes) -> str:
    """The `description` of a Telegram error answer ({"ok": false, "description": "..."}), or nothing."""
    try:
        data = json.loads(answer.decode("utf-8", "replace"))
    except ValueError:
        return ""
    description = data.get("description") if isinstance(data, dict) else None
    return _detail(description) if isinstance(description, str) else ""


def _fit(text: str, limit: int) -> str:
    """The text cut at a line end to `limit` characters, saying where the rest is."""
    if len(text) <= limit:
        return text
    note = "… (cut: every change is in memory-clean.log)"
    room = limit - len(note)
    cut = text.rfind("\n", 0, room)
    return text[: cut + 1 if cut > 0 else room] + note
