"""Credential redaction: every memory, journal and archive write passes through here.

Implements the credentials part of the spec section "Where it lives" (memory files
are written 0600, atomically, and credentials are redacted before they reach disk):
anything that looks like a credential -- API keys, tokens, ``password: ...`` lines,
private key blocks, URLs with a password in them -- is replaced with
``«redacted N chars»``, where N is the number of characters removed. A bot that
helpfully "remembers" a key it read from a ``.env`` does not get to keep it.

Guarantees:

* Everything that is not a secret is kept exactly (line endings, tabs, unicode,
  a missing final newline). Only the secret value is replaced; the key name stays
  visible: ``password: hunter2`` -> ``password: «redacted 7 chars»``,
  ``https://bob:s3cret@example.com`` -> ``https://bob:«redacted 6 chars»@example.com``.
* Idempotent: redacting redacted text changes nothing; the marker itself is never
  taken for a secret.
* Conservative on prose: no entropy guessing, no IP-address detection. A dated
  note, a commit sha in a sentence or "the password reset flow" stays as written.
* Memory lines keep their shape (spec "Conventions inside the files"): no value
  runs past a `` · `` separator, a table cell's `` |`` (any unescaped ``|`` in a
  row that starts with ``|``), the ``~~`` that closes a strikethrough opened
  earlier on the line, or a «redacted N chars» mark. So
  ``- 2026-11-30 · wifi password: Tulip77 · until 2026-12-05`` keeps its until
  date and ``- ~~password: Tulip77~~ · superseded 2026-11-01`` stays struck.
* Fast: every rule is gated on a cheap literal check, so ordinary notes cost a
  handful of C-level substring scans. detect-secrets (~0.2 s to import) is only
  imported the first time a text actually needs its patterns.

Rules for ``key: value`` and ``key=value`` assignments (the key name stays):

* Password keys (password, passwd, passphrase; ``DB_PASSWORD`` too): any value
  that is not a reference (``$VAR``, ``<your key>``, ``None``, ``***``,
  ``os.environ/…``), a file path (``~/…``, ``/a/b``) or an ordinary word (a
  function word, or one of a small list of words that describe a password:
  "required", "changed", "weak", ...). After a colon an unquoted value may be a
  pass phrase of several words, up to the next ``key:``/``key=`` on the line
  (``password: correct horse token=…`` is two values); if it has a function
  word it reads as a sentence
  and only a first word that looks like a password (a digit, a symbol or an
  inner capital) goes: ``password: hunter2, the user changes it`` keeps the remark.
  A value of several words that describes the secret stays whole: one that starts
  with a directive ("wifi password: ask reception", "password: see 1Password") or
  a number of 1-3 digits ("secret: 42 is the answer"), has a number and a unit
  ("12 characters minimum", "four random words"), or has only ordinary words
  ("rotated yearly"). "correct horse battery staple" is none of these.
* Secret keys (``secret``, ``*_secret``, ``pwd``): the same, but one word only;
  ``secret: she hates cilantro`` and ``pwd: /Users/maciej`` stay.
* Token-like keys (``token``, ``*_token``, ``authorization``, ``pass``, and
  ``api/access/secret/private/auth/client/… key`` with ``_``, ``-``, a space or
  nothing before ``key``: ``API key: …``): only a value that looks generated: 8+
  characters with letters and digits, or 24+ characters of mixed case. After a
  ``token`` key 8+ ASCII letters count too (``token=abcdefghij``), unless they are
  an ordinary word or a lower-case word with more words after it
  ("token: regenerated monthly").
* Quoted values: the text inside the quotes, for every key.

The phrase "password is X" (also "was", "is now", "is set to", "is:"; password,
passwd, passphrase; "password for the router is X" with up to four words after
for/of/on/to) redacts X when X is one word, or a quoted value, that is not
a reference, a path or an ordinary word (as above). If more words follow X in
the same clause, X must also look like a password (a digit, a symbol or an
inner capital), and a number followed by a unit ("12 characters") is a length,
a number of 1-3 digits a count:
"my password is hunter2" and "the password is swordfish." lose the password;
"the password is changed monthly", "the password is kept in 1Password" and
"the password is 12 characters long" stay. After "pass" ("our wifi pass is
Tulip77") X must always look like a password, and a ticket ("the boarding pass
is BA0117") is not one. After a key name or "token"/"secret" ("the API key is X",
"the token is X") X must look generated: 16+ characters with letters, digits and
a 16-character alphanumeric run ("the private key is id_ed25519" stays).

URLs: the password of ``scheme://user:password@host`` (also with no user name)
may hold any character but ``/ ?`` and white space (``#`` too: people paste
passwords unescaped); it runs to the last ``@`` before the path, and only it is
replaced.

Which detector covers what is listed once, in :data:`DETECTORS` (the README shows it too).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DETECTORS",
    "REDACTION_MARK",
    "Redaction",
    "contains_credential",
    "mark",
    "redact",
]

REDACTION_MARK = "«redacted {n} chars»"

DETECTORS = """\
Secret kinds found with detect-secrets 1.5.0 (Yelp, Apache-2.0), using the regex
denylists of its plugins:
- AWS access key IDs (AKIA/ASIA/ABIA/ACCA/A3T…) and quoted AWS secret keys next to an "aws … key" name
- GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_
- GitLab tokens: glpat-, gldt-, glft-, glsoat-, glrt-, glcbt-, glimt-, glptt-, glagent-, gloas-, runner GR1348941…
- Slack tokens (xoxa/xoxb/xoxp/xoxo/xoxs/xoxr-…) and Slack webhook URLs
- Stripe live secret and restricted keys (sk_live_, rk_live_)
- OpenAI legacy keys (sk-…T3BlbkFJ…)
- JSON Web Tokens (eyJ….eyJ….signature, checked to decode as JSON)
- URLs with a password in them (scheme://user:password@host), password part only
- SendGrid, PyPI, npm (_authToken), Square OAuth, Mailchimp, Twilio, Telegram bot
  and Discord bot tokens
Secret kinds found with omb-tui's own patterns (detect-secrets 1.5.0 misses them,
or matches them in a way that does not fit prose notes):
- OpenAI project/service/admin keys (sk-proj-, sk-svcacct-, sk-admin-) and other sk- keys
- Anthropic keys (sk-ant-…)
- Google API keys (AIza…), OAuth client secrets (GOCSPX-…) and access tokens (ya29.…)
- GitHub fine-grained tokens (github_pat_…)
- Slack app-level and refresh tokens (xapp-, xoxe-)
- Stripe test and webhook secrets (sk_test_, rk_test_, whsec_)
- Hugging Face (hf_), Groq (gsk_) and xAI (xai-) keys
- npm access tokens (npm_…) and Docker Hub personal access tokens (dckr_pat_…)
- DigitalOcean tokens (dop_v1_, doo_v1_, dor_v1_) and Shopify tokens (shpat_,
  shpss_, shpca_, shppa_)
- HashiCorp Vault tokens (hvs., hvb., hvr., and the legacy s. followed by 24
  letters and digits of mixed case) and age secret keys (AGE-SECRET-KEY-1…)
- Azure storage account keys (AccountKey=…; detect-secrets' pattern takes the
  key name too)
- Bearer tokens ("Bearer <token>") and Authorization header values (Basic/Token/raw)
- "password: …", "secret=…", "token=…", "api_key: …" style assignments (also
  passwd, passphrase, pwd, *_token, *_secret, access/secret/private/auth… keys,
  and key names with a space: "API key", "access key", "secret key"); the key
  name stays, only the value is replaced, and a value ends at a " · " separator,
  a table cell's " |", a closing ~~ or a «redacted N chars» mark; a value that
  describes the secret stays ("ask reception", "12 characters minimum",
  "four random words", "42 is the answer")
- "my password is X" phrases, also "the password for the router is X" and "our
  wifi pass is X" (X one word that is not an ordinary English word; after "pass"
  it must look like a password), and "the API key is X", "the token is X" (X must
  look generated: 16+ characters, letters and digits)
- Private key blocks, whole block from -----BEGIN … PRIVATE KEY----- to
  -----END … PRIVATE KEY----- (RSA, EC, DSA, OpenSSH, PGP, PKCS#8, encrypted,
  SSH2), and PuTTY key files (detect-secrets only flags the BEGIN line)
- URLs with a password that detect-secrets skips: no user name
  (scheme://:password@host) or punctuation in the password (https://admin:S3cret!@host,
  mysql://root:Pa#ss9@host)
Not used, on purpose: detect-secrets' high-entropy string and public-IP
detectors (they would redact commit hashes and addresses in ordinary notes),
its keyword detector (it takes "Jane Doe" in "secretary: Jane Doe" for a
secret), its Artifactory detector (it flags plain upper-case words such as
"APEXLEGENDS"), and its IBM Cloud, IBM COS, Cloudant and SoftLayer
detectors (niche; their key = value forms fall under the assignment rule).
"""
"""Which secret kinds come from detect-secrets and which from our own patterns
(the same list as in the module docstring; copy it into the README)."""

_MARK_RE = re.compile(r"«redacted \d+ chars»")
_LINE_BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def mark(n: int) -> str:
    """The text that stands in for a removed secret of ``n`` characters."""
    return REDACTION_MARK.format(n=n)


@dataclass(frozen=True)
class Redaction:
    """The result of :func:`redact`."""

    text: str
    """The redacted text."""
    count: int
    """How many secrets were replaced."""

    @property
    def changed(self) -> bool:
        return self.count > 0


# --------------------------------------------------------------------------- helpers


# Values that name where a secret is kept rather than being one.
_REFERENCE_RE = re.compile(
    r"""
      \$\{?[A-Za-z_][A-Za-z0-9_]*\}?            # $VAR, ${VAR}
    | \$\(.*\)                                 # $(command)
    | %[A-Za-z_][A-Za-z0-9_]*%                   # %VAR%
    | \{\{.*\}\}                                # {{ template }}
    | <[^<>]*>                                   # <your key here>
    | (?:os\.environ|os\.getenv|process\.env|env[:.]|ENV\[)\S*
    | [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+              # OPENAI_API_KEY (a variable's name)
    | \(?(?i:none|null|nil|true|false|undefined|empty|redacted|hidden|n/?a|tbd|tba|todo)\)?
    | -+ | \?+                                    # "password: -", "password: ?"
    | \*+ | x+ | X+ | \.\.\.+ | …
    """,
    re.VERBOSE,
)


def _is_reference(value: str) -> bool:
    return _REFERENCE_RE.fullmatch(value) is not None


def _plausible(value: str) -> bool:
    """Whether an assigned value looks like a key rather than a word of prose.

    Needs 8+ characters and either letters and digits together, or 24+ characters
    with an upper-case letter after the first one (base64-like). Rejects URLs,
    dates, plain numbers and references such as ``$TOKEN`` or ``os.environ/KEY``.
    """
    if len(value) < 8 or "://" in value or _is_reference(value):
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    if has_alpha and has_digit:
        return True
    return (
        len(value) >= 24
        and any(c.islower() for c in value)
        and any(c.isupper() for c in value[1:])
    )


_ALNUM_RUN_RE = re.compile(r"[A-Za-z0-9]{16,}")


def _random_token(body: str, min_len: int) -> bool:
    """Whether a key body looks generated: long, letters and digits, and at least
    one 16-character alphanumeric run (so hyphenated names like a model called
    "sk-kogptv2-kormath-causal" are not taken for keys)."""
    return (
        len(body) >= min_len
        and any(c.isalpha() for c in body)
        and any(c.isdigit() for c in body)
        and _ALNUM_RUN_RE.search(body) is not None
    )


def _extend_token(text: str, end: int) -> int:
    """Move ``end`` over any further token characters (so a longer key is not half kept)."""
    n = len(text)
    while end < n and text[end] in _TOKEN_CHARS:
        end += 1
    return end


def _left_ok(text: str, start: int) -> bool:
    return start == 0 or text[start - 1] not in _ALNUM


def _right_ok(text: str, end: int) -> bool:
    return end >= len(text) or text[end] not in _ALNUM


# --------------------------------------------------------------------------- rules

Span = tuple[int, int]


@dataclass(frozen=True)
class _Rule:
    """One regex: where the secret is inside a match and how to trim/extend it."""

    pattern: re.Pattern[str]
    gates: tuple[str | re.Pattern[str], ...] = ()  # run only if one occurs in the text
    gate_lower: bool = False  # gates are checked against text.lower()
    group: int = 0  # which group holds the secret
    bound_left: bool = True  # the secret must not follow a letter/digit
    bound_right: bool = False  # the secret must not be followed by a letter/digit
    extend: bool = True  # swallow trailing [A-Za-z0-9_-]
    check: Callable[[str], bool] | None = None  # extra test on the secret
    anchor: str | None = None  # lower-case literal every match starts with (see _matches)

    def _matches(self, text: str, lowered: str) -> Iterator[re.Match[str]]:
        """All matches; with an ``anchor``, tried only where it occurs.

        Scanning a case-insensitive pattern over 500 KB costs ~20 ms; ``str.find``
        on the lower-cased text and anchored matches cost well under 1 ms. (Only
        when lower-casing kept every position, which it nearly always does.)
        """
        if self.anchor is None or len(lowered) != len(text):
            yield from self.pattern.finditer(text)
            return
        i = lowered.find(self.anchor)
        while i != -1:
            m = self.pattern.match(text, i)
            if m is not None:
                yield m
            i = lowered.find(self.anchor, i + 1)

    def spans(self, text: str, lowered: str) -> Iterator[Span]:
        for m in self._matches(text, lowered):
            start, end = m.span(self.group)
            if start < 0 or start == end:
                continue
            if self.bound_left and not _left_ok(text, start):
                continue
            if self.bound_right and not _right_ok(text, end):
                continue
            if self.extend:
                longer = _extend_token(text, end)
                if self.check is None or self.check(text[start:longer]):
                    yield start, longer
                    continue
                # The extension may have run into a neighbour ("…sig-----BEGIN");
                # fall back to what the pattern itself matched.
            if self.check is None or self.check(text[start:end]):
                yield start, end


def _own(pattern: str, *gates: str, flags: int = 0, **options: Any) -> _Rule:
    return _Rule(re.compile(pattern, flags), gates, **options)


def _jwt_ok(token: str) -> bool:
    from detect_secrets.plugins.jwt import JwtTokenDetector

    return JwtTokenDetector.is_formally_valid(token)


@dataclass(frozen=True)
class _LibrarySpec:
    """Which detect-secrets denylist regexes to use, and how (see :class:`_Rule`)."""

    module: str
    detector: str
    gates: tuple[str | re.Pattern[str], ...]
    gate_lower: bool  # literal gates are checked against text.lower()
    indexes: tuple[int, ...] | None = None  # None: every regex in the denylist
    options: tuple[tuple[str, Any], ...] = ()


def _spec(
    module: str,
    detector: str,
    gates: tuple[str | re.Pattern[str], ...],
    indexes: tuple[int, ...] | None = None,
    gate_lower: bool = False,
    **options: Any,
) -> _LibrarySpec:
    return _LibrarySpec(module, detector, gates, gate_lower, indexes, tuple(options.items()))


# Gates are checked before detect-secrets is imported, so text without any of them
# never pays for the import.
_LIBRARY_SPECS: tuple[_LibrarySpec, ...] = (
    _spec("aws", "AWSKeyDetector", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"), (0,), bound_right=True, extend=False),
    # The "aws … key = '<40 chars>'" regex is case-insensitive and slow; gate it on
    # its quoted 40-character value instead of on "aws".
    _spec(
        "aws",
        "AWSKeyDetector",
        (re.compile(r"['\"][0-9a-zA-Z/+]{40}['\"]"),),
        (1,),
        group=1,
        bound_left=False,
        extend=False,
    ),
    _spec("github_token", "GitHubTokenDetector", (re.compile(r"gh[pousr]_"),)),
    _spec("gitlab_token", "GitLabTokenDetector", (re.compile(r"gl[a-z]{1,5}-"), "GR1348941")),
    _spec("slack", "SlackDetector", ("xox",), (0,), gate_lower=True, anchor="xox"),
    _spec(
        "slack",
        "SlackDetector",
        ("hooks.slack.com",),
        (1,),
        gate_lower=True,
        anchor="https://hooks.slack.com",
        extend=False,
    ),
    _spec("stripe", "StripeDetector", ("k_live_",)),
    _spec("openai", "OpenAIDetector", ("T3BlbkFJ",)),
    _spec("jwt", "JwtTokenDetector", ("eyJ",), check=_jwt_ok),
    _spec("basic_auth", "BasicAuthDetector", ("://",), group=1, bound_left=False, extend=False),
    _spec("sendgrid", "SendGridDetector", ("SG.",)),
    _spec("pypi_token", "PypiTokenDetector", ("pypi-",)),
    _spec("npm", "NpmDetector", ("_authToken",), group=1, bound_left=False, extend=False),
    _spec("square_oauth", "SquareOAuthDetector", ("sq0csp-",)),
    _spec("mailchimp", "MailchimpDetector", (re.compile(r"-us[0-9]"),), bound_right=True, extend=False),
    _spec(
        "twilio",
        "TwilioKeyDetector",
        (re.compile(r"AC[a-z0-9]{32}"), re.compile(r"SK[a-z0-9]{32}")),
        bound_right=True,
        extend=False,
    ),
    _spec(
        "telegram_token",
        "TelegramBotTokenDetector",
        (re.compile(r":[0-9A-Za-z_-]{35}"),),
        bound_right=True,
        extend=False,
    ),
    _spec("discord", "DiscordBotTokenDetector", (re.compile(r"\.[\w-]{6}\."),), bound_right=True, extend=False),
)


@functools.cache
def _library_rules(index: int) -> tuple[_Rule, ...]:
    """The rules of ``_LIBRARY_SPECS[index]``, built from detect-secrets' own regexes."""
    import importlib

    spec = _LIBRARY_SPECS[index]
    module = importlib.import_module(f"detect_secrets.plugins.{spec.module}")
    denylist = tuple(getattr(module, spec.detector).denylist)
    chosen = denylist if spec.indexes is None else tuple(denylist[i] for i in spec.indexes)
    return tuple(_Rule(pattern, (), **dict(spec.options)) for pattern in chosen)


def _body_plausible(prefix_len: int) -> Callable[[str], bool]:
    return lambda secret: _plausible(secret[prefix_len:])


def _body_random(prefix_len: int, min_len: int) -> Callable[[str], bool]:
    return lambda secret: _random_token(secret[prefix_len:], min_len)


def _legacy_vault_token(secret: str) -> bool:
    """``s.`` and 24 generated characters: letters of both cases and digits."""
    body = secret[2:]
    return _random_token(body, 24) and not body.isupper() and not body.islower()


_OWN_RULES: tuple[_Rule, ...] = (
    # OpenAI (sk-proj-, sk-svcacct-, sk-admin-, plain sk-), Anthropic (sk-ant-),
    # OpenRouter, DeepSeek and other sk- keys. The body must look generated, so
    # "sk-learn" or a model named "sk-kogptv2-kormath-causal" stays.
    _own(r"sk-[A-Za-z0-9_-]{32,}", "sk-", check=_body_random(3, 32)),
    _own(r"AIza[0-9A-Za-z_-]{35}", "AIza"),
    _own(r"GOCSPX-[0-9A-Za-z_-]{20,}", "GOCSPX-"),
    _own(r"ya29\.[0-9A-Za-z_-]{20,}", "ya29.", check=_body_random(5, 20)),
    _own(r"github_pat_[A-Za-z0-9_]{22,}", "github_pat_"),
    _own(r"xapp-\d-[A-Za-z0-9-]{10,}", "xapp-"),
    _own(r"xoxe(?:\.xox[a-z])?-\d-[A-Za-z0-9-]{10,}", "xoxe", gate_lower=True, anchor="xoxe", flags=re.IGNORECASE),
    _own(r"(?:sk|rk)_test_[0-9A-Za-z]{16,}", "k_test_"),
    _own(r"whsec_[0-9A-Za-z]{20,}", "whsec_"),
    _own(r"hf_[A-Za-z0-9]{30,}", "hf_", check=_body_plausible(3)),
    _own(r"gsk_[A-Za-z0-9]{40,}", "gsk_"),
    _own(r"xai-[A-Za-z0-9]{40,}", "xai-"),
    _own(r"AccountKey=([a-zA-Z0-9+/=]{88})", "AccountKey=", group=1, bound_left=False, extend=False),
    _own(r"npm_[A-Za-z0-9]{36}", "npm_", check=_body_random(4, 36)),
    _own(r"do[por]_v1_[a-f0-9]{64}", "_v1_", bound_right=True, extend=False),
    _own(r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", "shp", bound_right=True, extend=False),
    _own(r"dckr_pat_[A-Za-z0-9_-]{27,}", "dckr_pat_"),
    # HashiCorp Vault service, batch and recovery tokens, and the legacy "s." + 24
    # characters (only when it mixes cases and digits, and stands alone: not "U.S.").
    _own(r"hv[sbr]\.[A-Za-z0-9_-]{24,}", "hv", check=_body_random(4, 24)),  # one gate costs a third of three
    _own(
        r"(?<![\w.@/-])s\.[A-Za-z0-9]{24}(?![\w.-])",
        "s.",
        gate_lower=True,
        anchor="s.",  # common in prose: matching at each "s." is ~15x faster than a regex search
        extend=False,
        check=_legacy_vault_token,
    ),
    _own(
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        "AGE-SECRET-KEY-1",
        bound_right=True,
        extend=False,
    ),
    # "Bearer <token>" anywhere (RFC 6750 token68 characters).
    _own(
        r"\bbearer[ \t]+([A-Za-z0-9\-._~+/]+=*)",
        "bearer",
        gate_lower=True,
        anchor="bearer",
        flags=re.IGNORECASE,
        group=1,
        bound_left=False,
        extend=False,
        check=_plausible,
    ),
    # scheme://user:password@host where detect-secrets' pattern gives up: no user
    # name (scheme://:password@host) or punctuation in the password ("S3cret!",
    # "pa$$w0rd", "Fake#Pass9": people paste passwords with "#" unescaped). The
    # password runs to the last "@" before the path; a reference
    # (scheme://user:${DB_PASS}@host) stays.
    _own(
        r"://[^:/?#\[\]@\s]*:([^/?\s]+)@",
        "://",
        group=1,
        bound_left=False,
        extend=False,
        check=lambda value: not _is_reference(value),
    ),
)


# ------------------------------------------------------------- key = value assignments

_PASSWORD_KEYS = r"pass(?:word|wd|phrase)"
# Keys whose value may be short and plain ("secret: hunter2") but is one word, never
# a multi-word pass phrase ("secret: she hates cilantro" is a note, not a secret).
_SHORT_KEYS = r"secret|(?<![A-Za-z])pwd"
_KEY_NAME_PREFIXES = r"(?:api|access|secret|private|auth|client|master|encryption|signing|session)"
_TOKEN_KEYS = rf"token|authorization|(?<![A-Za-z])pass|{_KEY_NAME_PREFIXES}(?:[_-]|[ \t])?key"
_ASSIGN_RE = re.compile(
    rf"(?:(?P<pw>{_PASSWORD_KEYS})|(?P<short>{_SHORT_KEYS})|(?P<tok>{_TOKEN_KEYS}))"
    r"[\"'`*_\]]{0,3}"  # closing quote, bracket or markdown emphasis of the key
    r"[ \t]*(?P<sep>:=|=>|:(?!:)|=(?!=))"
    r"(?:\*{1,2}|_{1,2})?[ \t]*",  # "**Password:** hunter2"
    re.IGNORECASE,
)
# "my password is hunter2", "the wifi password was: Tulip77", "password is now X",
# "the password for the router is X", "our wifi pass is X", "the API key is X".
_PHRASE_RE = re.compile(
    rf"(?:(?P<pw>{_PASSWORD_KEYS})|(?P<pass>pass)(?![A-Za-z])"
    rf"|(?P<tok>{_KEY_NAME_PREFIXES}(?:[_-]|[ \t])?key|token|secret)(?![A-Za-z]))"
    r"(?:[ \t]+(?:for|of|on|to)(?:[ \t]+[^\s.,;:!?]+){1,4}?)?"  # "password for the router"
    r"[ \t]+(?:is|was)(?:[ \t]+(?:now|still|currently|set[ \t]+to))?[ \t]*:?[ \t]+",
    re.IGNORECASE,
)
# Every key name above starts with one of these, or ends with "key" after a prefix.
_ASSIGN_LITERALS = ("pass", "pwd", "token", "secret", "authorization")
_KEY_PREFIX_RE = re.compile(rf"{_KEY_NAME_PREFIXES}(?:[_-]|[ \t])?\Z")
_KEY_PREFIX_ANY_CASE_RE = re.compile(_KEY_PREFIX_RE.pattern, re.IGNORECASE)
_KEY_LITERAL_RE = re.compile("|".join((*_ASSIGN_LITERALS, "key")), re.IGNORECASE)
_AUTH_SCHEME_RE = re.compile(r"(?:basic|bearer|token|digest)[ \t]+", re.IGNORECASE)
_BARE_VALUE_RE = re.compile(r"[^\s\"'`<>()\[\]{},;|&]+")  # token=…: stops at & (query strings)
_BARE_PASSWORD_RE = re.compile(r"[^\s\"'`]+")  # password=…: anything up to a space
_QUOTES = "\"'`"


def _assignment_matches(text: str, lowered: str) -> Iterator[tuple[bool, re.Match[str]]]:
    """``(is_phrase, match)`` for ``_ASSIGN_RE`` and ``_PHRASE_RE``, tried only where a
    key-name literal occurs.

    A case-insensitive alternation scanned over the whole text costs ~150 ms per
    500 KB; ``str.find`` on the lower-cased text followed by anchored matches costs
    a few. (When lower-casing moved positions, "İ" being two characters lower-cased,
    the literals are found with one case-insensitive scan instead.)
    """
    if len(lowered) == len(text):
        found: list[int] = []
        for literal in (*_ASSIGN_LITERALS, "key"):
            i = lowered.find(literal)
            while i != -1:
                found.append(i)
                i = lowered.find(literal, i + 1)
        haystack, prefix_re = lowered, _KEY_PREFIX_RE
    else:
        found = [m.start() for m in _KEY_LITERAL_RE.finditer(text)]
        haystack, prefix_re = text, _KEY_PREFIX_ANY_CASE_RE
    starts: set[int] = set()
    for start in found:
        if haystack[start : start + 3].lower() != "key":
            starts.add(start)
            continue
        # "API key", "secret_key": the key name starts at its prefix.
        prefix = prefix_re.search(haystack, max(0, start - 12), start)
        if prefix is not None:
            starts.add(prefix.start())
    for start in sorted(starts):
        m = _ASSIGN_RE.match(text, start)
        if m is not None:
            yield False, m
            continue  # a key followed by ":" or "=" is not followed by "is"
        m = _PHRASE_RE.match(text, start)
        if m is not None:
            yield True, m


# Where a value ends at the latest, whatever it looks like: the " · " separator of the
# memory-line conventions (so "· until DATE", "· superseded DATE", "· moved DATE" stay),
# a table cell's " |" (any unescaped "|" in a table row), and the "~~" that closes a
# strikethrough opened before the value on the same line.
_BOUNDARY_RE = re.compile(r"[ \t]+·(?=[ \t]|\Z)|[ \t]*(?<!\\)\||~~")
_LINE_BREAK_RE = re.compile("[" + re.escape(_LINE_BREAKS) + "]")


class _Scan:
    """What every value of one text needs: the line around a position (cached, as
    matches come in text order) and whether the text has marks at all."""

    __slots__ = ("_breaks", "_line", "_tildes", "has_marks", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.has_marks = "«redacted " in text
        self._breaks: list[str] | None = None  # the line-break characters the text has
        self._line: Span = (0, -1)
        self._tildes: tuple[int, list[int]] = (-1, [])  # a line's start, its "~~" positions

    def line(self, pos: int) -> Span:
        """Start and end (before the line break) of the line holding ``pos``."""
        start, end = self._line
        if start <= pos <= end:
            return self._line
        text = self.text
        if self._breaks is None:
            self._breaks = [c for c in _LINE_BREAKS if c in text]
        start = max((text.rfind(c, 0, pos) for c in self._breaks), default=-1) + 1
        found = _LINE_BREAK_RE.search(text, pos) if self._breaks else None
        self._line = start, len(text) if found is None else found.start()
        return self._line

    def limit(self, pos: int, stop: int | None = None, *, spaces: bool = True) -> int:
        """Where a value starting at ``pos`` must end (see ``_BOUNDARY_RE``): the first
        boundary before ``stop`` (at most the line end), else ``stop``. ``spaces``:
        whether ``text[pos:stop]`` may hold white space (a separator)."""
        text = self.text
        line_end = self.line(pos)[1]
        end = line_end if stop is None else min(stop, line_end)
        if not spaces and text.find("~", pos, end) < 0 and text.find("|", pos, end) < 0:
            return end  # without white space only a "~~" or a "|" can end the value
        table: bool | None = None
        struck: bool | None = None
        for m in _BOUNDARY_RE.finditer(text, pos, end):
            token = m.group()
            if token == "~~":
                if struck is None:
                    struck = self._tildes_before(pos) % 2 == 1
                if struck:
                    return m.start()
            elif token[0] == "|":
                if table is None:
                    first = self.line(pos)[0]
                    while first < pos and text[first] in " \t":
                        first += 1
                    table = text.startswith("|", first)
                if table:
                    return m.start()
            else:
                return m.start()
        return end

    def _tildes_before(self, pos: int) -> int:
        """How many "~~" (counted left to right, as ``str.count`` does) precede ``pos`` on its line."""
        line_start, line_end = self.line(pos)
        if self._tildes[0] != line_start:
            found = re.finditer("~~", self.text[line_start:line_end])
            self._tildes = (line_start, [line_start + m.start() for m in found])
        return bisect.bisect_right(self._tildes[1], pos - 2)

    def before_mark(self, pos: int, limit: int) -> int:
        """``limit``, or the start of the first «redacted N chars» mark before it."""
        if not self.has_marks:
            return limit
        found = _MARK_RE.search(self.text, pos, limit)
        return limit if found is None else found.start()

    def quoted(self, pos: int) -> Span | None:
        """The inside of the quoted value opening at ``pos``, if it closes within its limit."""
        text = self.text
        close = text.find(text[pos], pos + 1, self.line(pos)[1])
        # '"passwd:" and "group:"' is two quoted names, not a quoted value.
        if close <= pos + 1 or text[pos + 1].isspace() or self.limit(pos, close) < close:
            return None
        return pos + 1, close

    def next_word(self, end: int) -> int | None:
        """Where the next word starts, if only spaces or tabs lie between it and ``end``."""
        text = self.text
        n = len(text)
        while end < n and text[end] in " \t":
            end += 1
        return end if end < n and text[end].isalnum() else None


# Common English function words: an unquoted "password: …" value containing one
# reads as a sentence ("password: the user forgot it again"), not a pass phrase.
_PROSE_WORDS = frozenset(
    """a an the to of in on at for from by with without and or but not no nor is are
    was were be been being am has have had do does did can could will would shall
    should may might must it its it's this that these those he she they we you i me
    my your our their his her them us if then than so as about into onto over under
    after before when where which who whom what how why all any each some only just
    also still now never always again there here same very too don't doesn't didn't
    isn't wasn't can't won't cannot since until every per via""".split()
)
# Ordinary words that say something about a password rather than being one
# ("the password is changed monthly", "password: required", "token: unlimited").
_DESCRIBING_WORDS = frozenset(
    """set unset reset new old same different wrong right correct incorrect valid invalid
    weak strong simple easy hard long short secure insecure safe unsafe good bad fine ok
    okay great terrible private public secret shared personal known unknown missing blank
    empty default temporary temp optional mandatory unique obvious complex complicated
    required needed case sensitive insensitive stored saved kept written lost gone
    forgotten compromised leaked expired expiring changed changing unchanged rotated
    rotating revoked disabled enabled encrypted hashed protected managed generated
    random unlimited pending working broken available unavailable ready enough
    hourly daily weekly monthly yearly annually quarterly minimum maximum min max
    2fa mfa sso otp totp wpa wpa2 wpa3 wep enterprise""".split()
)
# A value that starts with one of these tells where to get the secret ("wifi password:
# ask reception", "password: see 1Password"); it is not the secret.
_DIRECTIVE_WORDS = frozenset(
    "ask see check call contact email mail text message ping use get find look request read try".split()
)
_NUMBER_WORDS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty""".split()
)
_NUMBER_RE = re.compile(r"\d+\+?")  # "12", "8+"
# Passes that are tickets, not passwords: "the boarding pass is BA0117".
_TICKET_WORDS = frozenset(
    """boarding bus train rail metro subway transit tram ferry ski season day week month
    year annual mountain hall backstage press museum gym park parking festival visitor
    travel lounge ticket""".split()
)
# "the password is 12 characters long": a number followed by a unit is a length.
_UNIT_RE = re.compile(
    r"(?:characters?|chars?|digits?|letters?|symbols?|words?|bytes?|bits?"
    r"|days?|weeks?|months?|years?|hours?|minutes?)\b",
    re.IGNORECASE,
)
_PATH_RE = re.compile(r"(?:~|\.\.?)/[\w.-]+(?:/[\w.-]*)*|/[\w.-]+/[\w./-]*")
_WORD_EDGE_PUNCT = "\"'`.,;:!?()[]{}<>"
_PROSE_SYMBOLS = "'-.,;:!?()[]{}<>|/\"`"
_SENTENCE_END = ".,;"  # trailing punctuation that ends the sentence, not the value
_OPENER = {")": "(", '"': '"', "'": "'", "`": "`"}


def _value_end(text: str, start: int, end: int, trailing: str) -> int:
    """``end`` moved back over ``trailing`` punctuation and over a bracket or quote that
    closes one opened before the value ('she wrote "password is hunter2".')."""
    while end > start:
        last = text[end - 1]
        if last in trailing or last in _OPENER and _OPENER[last] not in text[start : end - 1]:
            end -= 1
        else:
            break
    return end


def _short_number(word: str) -> bool:
    """1 to 3 digits: followed by more words it is a count ("secret: 42 is the answer")."""
    return len(word) <= 3 and word.isdigit()


def _describes_a_secret(words: list[str]) -> bool:
    """Whether a value of several words (lower case, edge punctuation stripped) says
    what a secret is like or where it is, rather than being one.

    "ask reception", "see 1Password" (a directive first), "42 is the answer" (a short
    number first), "12 characters minimum", "four random words" (a number and a unit),
    "rotated yearly" (only ordinary words). A pass phrase such as "correct horse
    battery staple" is none of these.
    """
    first = words[0]
    if first in _DIRECTIVE_WORDS or _short_number(first):
        return True
    for i, word in enumerate(words):
        if (word in _NUMBER_WORDS or _NUMBER_RE.fullmatch(word)) and any(
            _UNIT_RE.fullmatch(unit) for unit in words[i + 1 : i + 3]
        ):
            return True
    return all(_ordinary_word(word) for word in words)


def _previous_word(text: str, pos: int) -> str:
    """The word just before ``pos`` (spaces skipped), lower case."""
    end = pos
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "-_"):
        start -= 1
    return text[start:end].lower()


def _ordinary_word(value: str) -> bool:
    """A function word or a word that describes a password (:data:`_DESCRIBING_WORDS`)."""
    lowered = value.lower()
    return lowered in _PROSE_WORDS or lowered in _DESCRIBING_WORDS


def _is_path(value: str) -> bool:
    """A file path (``pwd: /Users/maciej``, ``password: ~/secrets/db``) names, not holds."""
    return _PATH_RE.fullmatch(value) is not None


def _looks_like_password(word: str) -> bool:
    """A single word that is not plain prose: has a digit, a symbol or a capital inside."""
    return any(
        c.isdigit() or (c.isupper() and i > 0) or not (c.isalnum() or c in _PROSE_SYMBOLS)
        for i, c in enumerate(word)
    )


_WORD_RE = re.compile(r"\S+")


def _line_value(text: str, start: int, end: int, mode: str) -> Span | None:
    """The secret part of an unquoted ``password: …`` value in ``text[start:end]``.

    ``mode`` ``"phrase"`` (password, passwd, passphrase): one word, or several with
    no function word (a pass phrase, possibly with a remark): all of it.
    ``"word"`` (secret, pwd): one word only. In every mode, and always in
    ``"strict"`` mode (a value after an earlier mark), a value that reads like a
    sentence gives only its first word, if that word looks like a password
    ("password: hunter2, the user changes it monthly"). A full stop or comma at
    the end is left.
    """
    if mode == "phrase":
        words = [m.span() for m in _WORD_RE.finditer(text, start, end)]
    else:  # only the first word counts, and whether there is a second one
        words = [m.span() for _, m in zip(range(2), _WORD_RE.finditer(text, start, end))]
    if not words:
        return None
    plain = [text[a:b].lower().strip(_WORD_EDGE_PUNCT) for a, b in words]
    prose = [word in _PROSE_WORDS for word in plain]
    whole = mode == "phrase" and not any(prose) or mode == "word" and len(words) == 1
    if whole or mode == "phrase" and len(words) == 1:
        if len(words) == 1 and prose[0] or len(words) > 1 and _describes_a_secret(plain):
            return None
        first, last = words[0][0], words[-1][1]
        last = _value_end(text, first, last, _SENTENCE_END)
        return (first, last) if last > first else None
    a, b = words[0]
    b = _value_end(text, a, b, ",;:)" + _SENTENCE_END)
    word = text[a:b]
    if word and _looks_like_password(word) and not _is_reference(word) and not _describes_a_secret(plain):
        return a, b
    return None


def _line_value_spans(scan: _Scan, start: int, end: int, mode: str) -> Iterator[Span]:
    """:func:`_line_value` for each stretch between «redacted N chars» marks.

    A value ends at a mark. Text after a mark (``password: «redacted 7 chars» hunter2``)
    is looked at on its own, in ``"strict"`` mode, so a second redaction finds
    nothing new in what the first one kept.
    """
    pos = start
    marks = _MARK_RE.finditer(scan.text, start, end) if scan.has_marks else iter(())
    for m in (*marks, None):
        stop = end if m is None else m.start()
        if pos < stop:
            span = _line_value(scan.text, pos, stop, mode)
            if span is not None:
                yield span
        if m is None:
            return
        pos = m.end()
        mode = "strict"


def _letters_token(value: str, scan: _Scan, end: int) -> bool:
    """``token=abcdefghij``: 8+ ASCII letters after a token key, unless the value is a
    lower-case word with more words after it ("token: regenerated monthly")."""
    if len(value) < 8 or not (value.isascii() and value.isalpha()) or _ordinary_word(value):
        return False
    return not (value[1:].islower() and scan.next_word(end) is not None)


def _phrase_spans(scan: _Scan, m: re.Match[str]) -> Iterator[Span]:
    """The word after "password is", "pass is" or "API key is" (see the module docstring)."""
    text = scan.text
    if not _left_ok(text, m.start()):
        return
    pos = m.end()
    if pos >= len(text):
        return
    if m.group("pass") and _previous_word(text, m.start()) in _TICKET_WORDS:
        return  # "the boarding pass is BA0117" is a flight
    if text[pos] in _QUOTES:
        inside = scan.quoted(pos)
        if inside is not None:
            value = text[inside[0] : inside[1]]
            if not _is_reference(value) and (not m.group("tok") or _random_token(value, 16)):
                yield inside
        return
    word = _WORD_RE.match(text, pos)
    if word is None or m.group("tok") and len(word.group()) < 16:
        return  # (the value is at most the word: too short to look generated)
    start = pos
    end = scan.before_mark(pos, scan.limit(pos, word.end(), spaces=False))
    end = _value_end(text, start, end, _SENTENCE_END + ":")
    value = text[start:end]
    if not value or _is_reference(value) or _is_path(value) or _ordinary_word(value):
        return
    if m.group("tok"):
        # In prose only a value that looks generated is a key ("the token is sha256-hashed" is not).
        if _random_token(value, 16):
            yield start, end
        return
    # Trimmed punctuation or a boundary ends the clause; otherwise see if it goes on.
    following = scan.next_word(end) if end == word.end() else None
    if following is not None:
        if not _looks_like_password(value) or _short_number(value):
            return
        if value.isdigit() and _UNIT_RE.match(text, following):
            return
    elif m.group("pass") and not _looks_like_password(value):
        return  # "the pass is Stelvio": a plain word after "pass" is a mountain pass, not a password
    yield start, end


def _assignment_spans(text: str, lowered: str) -> Iterator[Span]:
    """Values of ``password: …``, ``token=…``, ``"api_key": "…"``, "password is …" and friends.

    Every value ends at :meth:`_Scan.limit` (a `` · `` separator, a table cell, a
    closing ``~~``) and at a «redacted N chars» mark. Quoted values: the text
    inside the quotes. Unquoted values after a colon of a password or secret key:
    the rest of the region (pass phrases have spaces; see :func:`_line_value` for
    values that read as prose). Other unquoted values: one run of non-space
    characters. Token-like keys only count when the value looks like a key (see
    :func:`_plausible`, and :func:`_letters_token` for ``token``); passwords and
    secrets count unless the value is a reference (``$DB_PASSWORD``), a path or a
    function word.
    """
    scan = _Scan(text)
    matches = list(_assignment_matches(text, lowered))
    starts = [m.start() for _, m in matches]
    for is_phrase, m in matches:
        if is_phrase:
            yield from _phrase_spans(scan, m)
            continue
        group = "pw" if m.group("pw") else "short" if m.group("short") else "tok"
        key = m.group(group).lower()
        pos = m.end()
        if key == "authorization":
            scheme = _AUTH_SCHEME_RE.match(text, pos)
            if scheme:
                pos = scheme.end()
        if pos >= len(text):
            continue
        quote = text[pos]
        spans: Iterator[Span] | tuple[Span, ...]
        if quote in _QUOTES:
            inside = scan.quoted(pos)
            if inside is None:
                continue
            spans = (inside,)
        elif group != "tok" and m.group("sep") == ":":
            # The value also ends where the next key on its line begins.
            following = bisect.bisect_left(starts, pos)
            end = scan.limit(pos, starts[following] if following < len(starts) else None)
            while end > pos and text[end - 1] in " \t":
                end -= 1
            spans = _line_value_spans(scan, pos, end, "phrase" if group == "pw" else "word")
        else:
            bare = (_BARE_VALUE_RE if group == "tok" else _BARE_PASSWORD_RE).match(text, pos)
            if not bare:
                continue
            end = scan.before_mark(pos, scan.limit(pos, bare.end(), spaces=False))
            while end > pos and text[end - 1] in _SENTENCE_END:
                end -= 1
            spans = ((pos, end),)
        for start, end in spans:
            if start >= end:
                continue
            value = text[start:end]
            if _is_reference(value):
                continue
            if group == "tok":
                if _plausible(value) or key == "token" and _letters_token(value, scan, end):
                    yield start, end
            elif quote in _QUOTES:
                if value.lower() not in _PROSE_WORDS:
                    yield start, end
            elif not _ordinary_word(value) and not _is_path(value):
                yield start, end


# ----------------------------------------------------------------- private key blocks

_KEY_BEGIN_RE = re.compile(
    r"-{3,5}[ ]?BEGIN[ ](?:[A-Z0-9]+[ ])*PRIVATE[ ]KEY(?:[ ]BLOCK)?[ ]?-{3,5}"
    r"|PuTTY-User-Key-File-\d+:"
)
_KEY_END_RE = re.compile(r"-{3,5}[ ]?END[ ](?:[A-Z0-9]+[ ])*PRIVATE[ ]KEY(?:[ ]BLOCK)?[ ]?-{3,5}")
_BLANK_LINE_RE = re.compile(r"(?:\r\n|\n|\r(?!\n))[ \t]*(?:\r\n|\n|\r)")


def _private_key_spans(text: str) -> Iterator[Span]:
    """Whole private key blocks, BEGIN line to END line, as one span.

    Without an END line before the next BEGIN (a truncated paste, a PuTTY key
    file) the block runs to the first blank line or the end of the text.
    """
    pos = 0
    while True:
        begin = _KEY_BEGIN_RE.search(text, pos)
        if begin is None:
            return
        putty = begin.group().startswith("PuTTY")
        if putty and not _left_ok(text, begin.start()):
            pos = begin.end()
            continue
        end_m = None if putty else _KEY_END_RE.search(text, begin.end())
        if end_m is not None:
            # An END that belongs to a later block means this one was cut short.
            later = _KEY_BEGIN_RE.search(text, begin.end(), end_m.start())
            if later is not None:
                end_m = None
        if end_m is not None:
            end = end_m.end()
        else:
            blank = _BLANK_LINE_RE.search(text, begin.end())
            end = blank.start() if blank else len(text)
            while end > begin.start() and text[end - 1] in " \t\r\n":
                end -= 1
        yield begin.start(), end
        pos = end


# ---------------------------------------------------------------------------- redact


def _gate_open(gates: tuple[str | re.Pattern[str], ...], haystack: str) -> bool:
    if not gates:
        return True
    for gate in gates:
        if isinstance(gate, str):
            if gate in haystack:
                return True
        elif gate.search(haystack) is not None:
            return True
    return False


def _candidate_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    lowered = text.lower()
    for rule in _OWN_RULES:
        if _gate_open(rule.gates, lowered if rule.gate_lower else text):
            spans.extend(rule.spans(text, lowered))
    for index, spec in enumerate(_LIBRARY_SPECS):
        if _gate_open(spec.gates, lowered if spec.gate_lower else text):
            for rule in _library_rules(index):
                spans.extend(rule.spans(text, lowered))
    spans.extend(_assignment_spans(text, lowered))
    if "PRIVATE KEY" in text or "PuTTY-User-Key-File-" in text:
        spans.extend(_private_key_spans(text))
    return spans


def _merge(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _without_marks(text: str, spans: list[Span]) -> list[Span]:
    """Cut existing «redacted N chars» marks out of the spans.

    A value that is only a mark (``password: «redacted 7 chars»``) is left alone,
    which keeps :func:`redact` idempotent. Whitespace next to a cut is trimmed.
    """
    if "«redacted " not in text:
        return spans
    marks = [m.span() for m in _MARK_RE.finditer(text)]
    if not marks:
        return spans
    mark_ends = [m_end for _, m_end in marks]  # marks never overlap: sorted like the starts
    out: list[Span] = []
    for start, end in spans:
        pieces = [(start, end)]
        for index in range(bisect.bisect_right(mark_ends, start), len(marks)):
            m_start, m_end = marks[index]
            if m_start >= end:
                break
            cut: list[Span] = []
            for p_start, p_end in pieces:
                if m_end <= p_start or m_start >= p_end:
                    cut.append((p_start, p_end))
                    continue
                if p_start < m_start:
                    cut.append((p_start, m_start))
                if m_end < p_end:
                    cut.append((m_end, p_end))
            pieces = cut
        for p_start, p_end in pieces:
            if p_start != start:
                while p_start < p_end and text[p_start].isspace():
                    p_start += 1
            if p_end != end:
                while p_end > p_start and text[p_end - 1].isspace():
                    p_end -= 1
            if p_start < p_end:
                out.append((p_start, p_end))
    return out


def _redact_once(text: str) -> tuple[str, int]:
    spans = _without_marks(text, _merge(_candidate_spans(text)))
    if not spans:
        return text, 0
    parts: list[str] = []
    pos = 0
    for start, end in spans:
        parts.append(text[pos:start])
        parts.append(mark(end - start))
        pos = end
    parts.append(text[pos:])
    return "".join(parts), len(spans)


def redact(text: str) -> Redaction:
    """Replace every credential in ``text`` with ``«redacted N chars»``.

    One pass normally suffices; the result is passed again until nothing changes,
    so that a secret which only became recognisable once its neighbour was
    redacted is caught too (this is what makes ``redact`` idempotent). Marks are
    never redacted again, so every extra pass strictly shrinks the unredacted
    text and the loop ends after at most one pass per character.
    """
    total = 0
    for _ in range(len(text) + 1):  # the bound is never reached (see above)
        text, count = _redact_once(text)
        if not count:
            break
        total += count
    return Redaction(text, total)


def contains_credential(text: str) -> bool:
    """True when :func:`redact` would change ``text``."""
    return redact(text).changed
