"""Secrets known by where they sit: in a URL's query or path, a pasted config file or command line, a
cookie, next to "private key", or after the word for password in another language.

Part of credential redaction (spec "Where it lives"; see :mod:`omb_tui.core.redaction.redact`). Only the
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
* ``Authorization:`` and ``Proxy-Authorization:`` headers with any scheme (Bearer, Basic, Token, Digest,
  AWS4-HMAC-SHA256, SSWS, Bot, a custom one, or none): the scheme stays; one credential after it goes when it looks
  generated (a Basic one when it decodes to ``user:password``), and a list of parameters (``Digest username="…",
  response="…"``, ``Credential=…, Signature=…``) goes whole, to the end of the header's value.
* Package managers: ``.npmrc``'s ``_auth=`` and yarn's ``npmAuthIdent``, ``npm config set …:_authToken X``,
  ``cargo login X``, composer's ``auth.json`` (``"github-oauth": {"github.com": "…"}``, ``gitlab-token``,
  ``bearer``), NuGet's ``<add key="ClearTextPassword" value="…"/>`` and XML elements such as Maven's
  ``<password>…</password>``; ``docker login … -p X`` and ``--password X``/``--token X`` flags on any command line.
* Oracle's ``jdbc:oracle:thin:user/password@host`` and ``sqlplus user/password@db``.
* The word for password in French, German, Spanish, Italian, Portuguese, Dutch, Czech, Polish and
  Swedish, followed by ":" or by the language's "is" (up to four words between: "le mot de passe du
  wifi est X"): X must look like a password (a digit, a symbol or a capital inside), since no list of
  ordinary words in those languages is kept ("das Passwort ist falsch" stays).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from .values import Span, is_reference, lazy, looks_like_password, plausible

__all__ = ["pasted_spans"]


class _Rule(NamedTuple):
    """A pattern whose group 1 (or 2, for a quoted form) is the secret, run when a gate occurs."""

    pattern: re.Pattern[str]
    anchors: tuple[str, ...]  # lower-case literals; every match starts at one (found with str.find)
    check: str = ""  # "password": the value must look like a password; "token": look generated


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
_PASSWORD_FLAGS = r"password|passwd|pass|pw"
_TOKEN_FLAGS = r"token|api-?key|access-token|auth-token|secret|client-secret|secret-key|access-key|private-token"
_XML_SECRET = r"[A-Za-z_.:-]*?(?:password|passwd|passphrase|secret|token|api[_-]?key|private[_-]?key)"

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
    _rule(r"\bsshpass\b[^\n]{0,300}?[ \t]-p[ \t]*" + _ARG, "sshpass", check="password"),
    _rule(
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,300}?[ \t]-p([^\s'\"-][^\s'\"]*)",
        "mysql",
        "mariadb",
        check="password",
    ),
    _rule(r"\bcurl\b[^\n]{0,300}?[ \t](?:-u|--user)[ \t=]*['\"]?[^:\s'\"]+:([^\s'\"]+)", "curl", check="password"),
    _rule(
        r"\b(?:set-)?cookie[ \t]*:[ \t]*(?:[^;\n]{0,200};[ \t]*){0,20}?[\w.-]*(?:sess|sid|auth|token|remember|login|jwt)[\w.-]*"
        r"=([^;\s\"']{8,})",
        "cookie",
        "set-cookie",
    ),
    _rule(r"\bpriv(?:ate)?[ _-]?key\b[^\n]{0,40}?(?<![0-9A-Za-z])((?:0x)?[0-9a-fA-F]{64})(?![0-9A-Za-z])", "priv"),
    _rule(r"(?<![\w/])_auth[ \t]*=[ \t]*" + _ARG, "_auth", check="password"),
    _rule(r"\bnpmAuthIdent[\"']?[ \t]*:[ \t]*" + _ARG, "npmauthident", check="password"),
    _rule(
        r"\b(?:npm|pnpm|yarn)[ \t]+config[ \t]+set[ \t]+\S*(?:_authToken|_auth|_password|npmAuthToken)[ \t]+" + _ARG,
        "npm",
        "pnpm",
        "yarn",
        check="token",
    ),
    _rule(r"\bcargo[ \t]+login[ \t]+(?:--registry[ \t=]+\S+[ \t]+)?" + _ARG, "cargo", check="token"),
    _rule(
        r"\"(?:github-oauth|gitlab-token|gitlab-oauth|bearer)\"[ \t]*:[ \t]*\{\s{0,40}\"[^\"\n]{1,200}\"[ \t]*:[ \t]*"
        r"\"([^\"\n]{8,})\"",
        '"github-oauth"',
        '"gitlab-token"',
        '"gitlab-oauth"',
        '"bearer"',
        check="token",
    ),
    _rule(
        r"<add[ \t]+key=[\"'](?:ClearText)?(?:Password|Token|ApiKey)[\"'][ \t]+value=\"([^\"\n]+)\"",
        "<add",
    ),
    _rule(rf"<({_XML_SECRET})>([^<\n]+)</", "<", check="element"),
    _rule(
        r"\b(?:docker|podman|nerdctl|buildah|skopeo|helm)[ \t]+(?:registry[ \t]+)?login\b[^\n]{0,300}?[ \t]-p[ \t]*"
        + _ARG,
        "docker",
        "podman",
        "nerdctl",
        "buildah",
        "skopeo",
        "helm",
        check="password",
    ),
    _rule(rf"(?<![\w-])--(?:{_PASSWORD_FLAGS})[ \t]+(?!-)" + _ARG, "--p", check="password"),
    _rule(
        rf"(?<![\w-])--(?:{_TOKEN_FLAGS})[ \t]+(?!-)" + _ARG,
        "--token",
        "--api",
        "--access-",
        "--auth-",
        "--secret",
        "--client-secret",
        "--private-token",
        check="token",
    ),
    _rule(r"\bjdbc:oracle:[a-z0-9]+:[^/\s@:'\"]{1,128}/([^@\s'\"]{1,256})@", "jdbc:oracle:"),
    _rule(
        r"\b(?:sqlplus|rman|expdp|impdp)(?:[ \t]+-[A-Za-z]+)*[ \t]+[^\s/@'\"-][^\s/@'\"]*/([^@\s'\"]+)",
        "sqlplus",
        "rman",
        "expdp",
        "impdp",
    ),
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


def _secret(m: re.Match[str], rule: _Rule) -> Span | None:
    first = 2 if rule.check == "element" else 1  # an element's name is group 1
    for group in range(first, (m.lastindex or 0) + 1):
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
    matched_to = -1  # an anchor inside a match already made is part of it ("_auth=_auth=…" is read once)
    for start in sorted(starts):
        if start < matched_to:
            continue
        m = rule.pattern.match(text, start)
        if m is not None:
            matched_to = m.end()
            yield m


def pasted_spans(text: str, lowered: str) -> Iterator[Span]:
    """Where the rules above find a secret in ``text`` (``lowered`` is ``text.lower()``)."""
    found = [(rule, m) for rule in _RULES for m in _matches(rule, text, lowered)]
    if text.count(":") >= 4:  # a .pgpass line has four
        found.extend((_PGPASS, m) for m in _pgpass_matches(text))
    for rule, m in found:
        span = _secret(m, rule)
        if span is None:
            continue
        start, end = span
        quoted = start > 0 and text[start - 1] in "'\"" and text[end : end + 1] == text[start - 1]
        if rule.check == "element":
            while start < end and text[start] in " \t":
                start += 1
            while end > start and text[end - 1] in " \t":
                end -= 1
        elif not quoted:
            while end > start and text[end - 1] in _TRAILING:
                end -= 1
        value = text[start:end]
        if not value or is_reference(value):
            continue
        if rule.check == "password" and not quoted and not looks_like_password(value):
            continue
        if rule.check == "token" and not plausible(value):
            continue
        if rule.check == "element" and (" " in value or "\t" in value) and not looks_like_password(value):
            continue  # "<password>see the vault</password>" describes one
        yield start, end
    yield from authorization_spans(text, lowered)


# ------------------------------------------------------------------ Authorization headers

_AUTH_HEADER_RE = lazy(r"authorization[\"'`]?[ \t]*(?::|=>?)[ \t]*", re.IGNORECASE)
_AUTH_SCHEME_RE = lazy(r"[A-Za-z][A-Za-z0-9_.+-]*[ \t]+(?=\S)")
_AUTH_PARAM_RE = lazy(r"[A-Za-z][\w-]*[ \t]*=")  # Digest's username="…", AWS4's Credential=…
# The whole list: name=value or name="value" (its quotes escaped too, as in a JSON string), separated by commas.
_AUTH_PARAMS_RE = lazy(
    r"(?:[A-Za-z][\w-]{0,64}[ \t]*=[ \t]*(?:\\*\"[^\"\\\r\n]{0,1024}\\*\"|[^\s,\"'`\\]{1,4096})(?:[ \t]*,[ \t]*)?)+"
)
_AUTH_TOKEN_RE = lazy(r"(?:[^\s\"'`,;<>|~«]|~(?!~))+")
# Where a memory line's conventions end a value: " · ", a table cell, a closing "~~", a «redacted N chars» mark.
_LINE_CONVENTIONS = (" · ", " |", "~~", "«redacted ")
_GENERATED_RUN_RE = lazy(r"[A-Za-z0-9+/_=.~-]{8,}")
_QUOTE_CHARS = "\"'`"


def _basic_credentials(value: str) -> bool:
    """Whether a Basic credential decodes to ``user:password``."""
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def _line_end(text: str, pos: int) -> int:
    found = _LINE_END_RE.search(text, pos)
    return len(text) if found is None else found.start()


_LINE_END_RE = lazy(r"[\r\n]")
_LONGEST_HEADER = 8192  # a quote not closed within this is not the header's (a bound keeps every look linear)


def _header_value_end(text: str, header: int, pos: int, line_end: int) -> int:
    """Where the value that starts at ``pos`` ends: the quote that opened before it (``-H 'Authorization: …'``,
    ``"Authorization": "…"``), else the end of the line."""
    opener = text[pos - 1] if pos > 0 and text[pos - 1] in _QUOTE_CHARS else ""
    if not opener and header > 0 and text[header - 1] in _QUOTE_CHARS:
        opener = text[header - 1]
    if opener:
        close = text.find(opener, pos, min(line_end, pos + _LONGEST_HEADER))
        if close >= 0:
            return close
    return line_end


def authorization_spans(text: str, lowered: str) -> Iterator[Span]:
    """The credentials of ``Authorization:`` headers, whatever the scheme (see the module docstring)."""
    if len(lowered) != len(text):
        lowered = text.lower()  # positions must agree; rare ("İ")
        starts = [m.start() for m in re.finditer("authorization", text, re.IGNORECASE)]
    else:
        starts = []
        i = lowered.find("authorization")
        while i != -1:
            starts.append(i)
            i = lowered.find("authorization", i + 1)
    judged_to = line_end = -1  # a header inside a value already judged is part of it; the current line's end
    for header in starts:
        if header < judged_to or header > 0 and text[header - 1].isalnum():
            continue  # "preauthorization: …"
        m = _AUTH_HEADER_RE.match(text, header)
        if m is None:
            continue
        pos = m.end()
        if pos < len(text) and text[pos] in _QUOTE_CHARS:
            pos += 1
        if pos > line_end:
            line_end = _line_end(text, pos)
        end = _header_value_end(text, header, pos, line_end)
        scheme = _AUTH_SCHEME_RE.match(text, pos, end)
        credentials = scheme.end() if scheme else pos
        if _AUTH_PARAM_RE.match(text, credentials, end):
            params = _AUTH_PARAMS_RE.match(text, credentials, line_end)
            stop = end if params is None else max(end, params.end())  # a quoted value's quotes are not the header's
            value_end = min(
                (i for i in (text.find(c, credentials, stop) for c in _LINE_CONVENTIONS) if i >= 0), default=stop
            )
            while value_end > credentials and text[value_end - 1] in " \t.,;":
                value_end -= 1
            value = text[credentials:value_end]
            judged_to = value_end
            if any(plausible(run) for run in _GENERATED_RUN_RE.findall(value)):
                yield credentials, value_end
            continue
        token = _AUTH_TOKEN_RE.match(text, credentials, end)
        if token is None:
            continue
        value_end = judged_to = token.end()
        while value_end > credentials and text[value_end - 1] in ".)":
            value_end -= 1
        value = text[credentials:value_end]
        if not value or is_reference(value):
            continue
        basic = scheme is not None and scheme.group().strip().lower() == "basic"
        if plausible(value) or basic and len(value) >= 8 and _basic_credentials(value):
            yield credentials, value_end
