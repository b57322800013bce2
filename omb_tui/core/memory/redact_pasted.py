"""Secrets known by where they sit: in a URL's query or path, a pasted config file or command line, a
cookie, next to "private key", or after the word for password in another language.

Part of credential redaction (spec "Where it lives"; see :mod:`omb_tui.core.memory.redact`). Only the
value goes; what names it stays. Every rule is gated on a cheap literal check (most on the lower-cased
text), so a note with none of the literals pays a few substring scans.

* URLs: the value of ``X-Amz-Signature``, ``X-Amz-Credential`` and ``X-Amz-Security-Token`` (a presigned
  S3 URL) and of ``sig=`` (an Azure SAS) in a query; the token of a Discord webhook
  (``…/api/webhooks/<id>/<token>``) and everything after ``webhookb2/`` of a Microsoft Teams webhook.
* Files: ``.netrc`` (``machine h login u password P``, on one line or several), a ``.pgpass`` line
  (``host:port:db:user:password``, the host a name, the port digits or ``*``), docker's
  ``"auth": "<base64>"`` and ``"identitytoken"``, kubeconfig's ``client-key-data:``.
* Command lines: ``sshpass -p PW``, ``mysql … -pPW`` (the password glued to ``-p``; ``-p`` alone
  prompts), ``curl -u user:pw``.
* ``Cookie:`` / ``Set-Cookie:`` headers: the values of cookies with a session-like name (session,
  sid, auth, token, remember, login, jwt), 8 characters or more.
* An Ethereum (or any 64-hex) private key: ``0x`` and 64 hex digits, or 64 hex digits, within a few
  words after "private key" / "privkey" on the same line. A transaction hash or an address stays.
* The word for password in French, German, Spanish, Italian, Portuguese, Dutch, Czech, Polish and
  Swedish, followed by ":" or by the language's "is" (up to four words between: "le mot de passe du
  wifi est X"): X must look like a password (a digit, a symbol or a capital inside), since no list of
  ordinary words in those languages is kept ("das Passwort ist falsch" stays).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from .redact_values import Span, is_reference, lazy, looks_like_password

__all__ = ["pasted_spans"]


class _Rule(NamedTuple):
    """A pattern whose group 1 (or 2, for a quoted form) is the secret, run when a gate occurs."""

    pattern: re.Pattern[str]
    anchors: tuple[str, ...]  # lower-case literals; every match starts at one (found with str.find)
    check: str = ""  # "password": the value must look like a password


def _rule(pattern: str, *gates: str, check: str = "", flags: int = re.IGNORECASE) -> _Rule:
    return _Rule(lazy(pattern, flags), gates, check)


_QUERY_VALUE = r"([^&\s#\"'<>]{16,})"
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# A value on a command line: quoted (any characters) or bare (up to white space).
_ARG = r"(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"]+))"
# The word for password and the word for "is" in each language ("password … è" is Italian: the English
# phrase is read by the assignment rules, with their list of ordinary words).
_PASSWORD_IS = (
    (r"mot[ \t]de[ \t]passe", r"est"),
    (r"passwort|kennwort", r"ist|lautet"),
    (r"contrase(?:ñ|n)a|clave", r"es"),
    (r"password", r"(?:è|é)"),
    (r"senha", r"(?:é|e)"),
    (r"wachtwoord", r"is"),
    (r"heslo", r"je"),
    (r"has(?:ł|l)o", r"to|jest"),
    (r"l(?:ö|o)senord(?:et)?", r"(?:ä|a)r"),
)
_FOREIGN_PHRASE = "|".join(
    rf"(?:{word})(?:[ \t]+[^\s.,;:!?]+){{0,4}}?[ \t]+(?:{verb})(?:[ \t]*:)?" for word, verb in _PASSWORD_IS
)
_FOREIGN_KEY = "|".join(word for word, _ in _PASSWORD_IS if word != "password")

_RULES: tuple[_Rule, ...] = (
    _rule(rf"(?<=[?&])X-Amz-(?:Signature|Credential|Security-Token)={_QUERY_VALUE}", "x-amz-"),
    _rule(rf"(?<=[?&])sig={_QUERY_VALUE}", "sig="),
    _rule(r"discord(?:app)?\.com/api/webhooks/\d{17,20}/([A-Za-z0-9_-]{60,100})", "discord"),
    _rule(
        rf"\.webhook\.office\.com/webhookb2/({_UUID}@{_UUID}/IncomingWebhook/[0-9a-f]{{32}}/{_UUID}(?:/[A-Za-z0-9_-]+)?)",
        ".webhook.office.com/",
    ),
    _rule(r"\b(?:machine\s+\S+|default)\s+login\s+\S+\s+password[ \t]+" + _ARG, "machine", "default", check="password"),
    _rule(r"\"(?:auth|identitytoken)\"[ \t]*:[ \t]*\"([A-Za-z0-9+/=_.-]{8,})\"", '"auth"', '"identitytoken"'),
    _rule(r"\bclient-key-data:[ \t]*([A-Za-z0-9+/=]{16,})", "client-key-data"),
    _rule(r"\bsshpass\b[^\n]*?[ \t]-p[ \t]*" + _ARG, "sshpass", check="password"),
    _rule(
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?[ \t]-p([^\s'\"-][^\s'\"]*)",
        "mysql",
        "mariadb",
        check="password",
    ),
    _rule(r"\bcurl\b[^\n]*?[ \t](?:-u|--user)[ \t=]*['\"]?[^:\s'\"]+:([^\s'\"]+)", "curl", check="password"),
    _rule(
        r"\b(?:set-)?cookie[ \t]*:[ \t]*(?:[^;\n]*;[ \t]*)*?[\w.-]*(?:sess|sid|auth|token|remember|login|jwt)[\w.-]*"
        r"=([^;\s\"']{8,})",
        "cookie",
        "set-cookie",
    ),
    _rule(r"\bpriv(?:ate)?[ _-]?key\b[^\n]{0,40}?(?<![0-9A-Za-z])((?:0x)?[0-9a-fA-F]{64})(?![0-9A-Za-z])", "priv"),
    _rule(
        rf"(?<!\w)(?:{_FOREIGN_PHRASE}|(?:{_FOREIGN_KEY})[ \t]*:)[ \t]+{_ARG}",
        "mot de passe",
        "passwort",
        "kennwort",
        "contrase",
        "clave",
        "senha",
        "wachtwoord",
        "heslo",
        "hasło",
        "haslo",
        "lösenord",
        "losenord",
        "password",
        check="password",
    ),
)

_PGPASS = _Rule(lazy(""), (), "password")  # how a .pgpass password is judged (see _pgpass_matches)
_TRAILING = ".,;)"  # "!" and "?" are common in passwords


def _secret(m: re.Match[str]) -> Span | None:
    for group in range(1, (m.lastindex or 0) + 1):
        if m.start(group) >= 0:
            return m.span(group)
    return None


# A .pgpass line, host:port:database:user:password, the host a name (or *), the port digits (or *).
_PGPASS_PORT_RE = lazy(r":(?:\*|\d{1,5}):")
_PGPASS_LINE_RE = lazy(r"[ \t]*(?:\*|[A-Za-z0-9.-]*[A-Za-z.][A-Za-z0-9.-]*):(?:\*|\d{1,5}):[^:\s]+:[^:\s]+:(\S+)[ \t]*")


def _pgpass_matches(text: str) -> Iterator[re.Match[str]]:
    """The .pgpass lines of ``text``, looked for only where a ":port:" occurs."""
    line_end = -1
    for port in _PGPASS_PORT_RE.finditer(text):
        if port.start() < line_end:
            continue  # that line was tried
        line_start = text.rfind("\n", 0, port.start()) + 1
        found = text.find("\n", port.end())
        line_end = len(text) if found < 0 else found
        if text[line_end - 1 : line_end] == "\r":
            line_end -= 1
        m = _PGPASS_LINE_RE.fullmatch(text, line_start, line_end)
        if m is not None:
            yield m


def _matches(rule: _Rule, text: str, lowered: str) -> Iterator[re.Match[str]]:
    """Matches of ``rule``, tried only where one of its anchors occurs (when lower-casing kept every position)."""
    if len(lowered) != len(text):
        if any(anchor in lowered for anchor in rule.anchors):
            yield from rule.pattern.finditer(text)
        return
    starts: set[int] = set()
    for anchor in rule.anchors:
        i = lowered.find(anchor)
        while i != -1:
            starts.add(i)
            i = lowered.find(anchor, i + 1)
    for start in sorted(starts):
        m = rule.pattern.match(text, start)
        if m is not None:
            yield m


def pasted_spans(text: str, lowered: str) -> Iterator[Span]:
    """Where the rules above find a secret in ``text`` (``lowered`` is ``text.lower()``)."""
    found = [(rule, m) for rule in _RULES for m in _matches(rule, text, lowered)]
    if text.count(":") >= 4:  # a .pgpass line has four
        found.extend((_PGPASS, m) for m in _pgpass_matches(text))
    for rule, m in found:
        span = _secret(m)
        if span is None:
            continue
        start, end = span
        quoted = start > 0 and text[start - 1] in "'\"" and text[end : end + 1] == text[start - 1]
        if not quoted:
            while end > start and text[end - 1] in _TRAILING:
                end -= 1
        value = text[start:end]
        if not value or is_reference(value):
            continue
        if rule.check == "password" and not quoted and not looks_like_password(value):
            continue
        yield start, end
