"""Vendor keys known by a fixed prefix: a table of prefix, body alphabet and least body length.

Part of credential redaction (spec "Where it lives"; see :mod:`omb_tui.core.redaction.redact`). The prefixes were read
as data from the current default rules of gitleaks (``config/gitleaks.toml``) and the detectors of trufflehog
(``pkg/detectors/*``): for each kind, its literal prefix, the characters its body is made of and how long the body
is at least. No pattern of theirs is used; the matching is this module's own, and the same for every row:

* the prefix occurs (``str.find``, case as written) where no letter or digit stands right before it;
* its body is the longest run of the row's alphabet right after it (so a longer key is never half kept);
* the run is at least the row's length (at most its ``longest``, where the row has one), ends where no letter or
  digit follows, and looks generated: a digit and a letter, or 24 characters and more in both cases.

Each occurrence costs its run once: an occurrence that lies inside a run already read for the same row is skipped,
so a text that repeats a prefix (``fio-u-fio-u-…``) is read in linear time. The kinds the other rules already find
(``ghp_``, ``sk-``, ``AKIA``, …) are not repeated here.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Iterator
from typing import NamedTuple

from .values import Span

__all__ = ["VENDOR_PREFIXES", "vendor_spans"]

_ALNUM = string.ascii_letters + string.digits
_LOWER = string.ascii_lowercase + string.digits
_UPPER = string.ascii_uppercase + string.digits
_HEX = "0123456789abcdef"
_URL = _ALNUM + "_-"  # base64url and most vendor bodies
_B64 = _ALNUM + "+/="
_DOTTED = _URL + "."  # bodies of several dot-separated parts
_B64URL = _ALNUM + "+/=_-"


class _Vendor(NamedTuple):
    prefix: str
    alphabet: frozenset[str]
    least: int  # the body's least length
    longest: int = 0  # its greatest length, where a longer run is something else (0: no bound)
    check: Callable[[str], bool] | None = None  # a further test of the body


def _row(
    prefix: str, alphabet: str, least: int, longest: int = 0, check: Callable[[str], bool] | None = None
) -> _Vendor:
    return _Vendor(prefix, frozenset(alphabet), least, longest, check)


def _dots(count: int) -> Callable[[str], bool]:
    return lambda body: body.count(".") >= count


# (vendor, as the rule sets name it) prefix, alphabet, least body length. Sorted by vendor.
VENDOR_PREFIXES: tuple[_Vendor, ...] = (
    _row("p8e-", _ALNUM, 32),  # Adobe client secret
    _row("ak_live_", _ALNUM, 30),  # Aiven / others' live keys
    _row("aio_", _ALNUM, 28),  # Adafruit IO
    _row("apify_api_", _ALNUM, 36),  # Apify
    _row("AKCp", _ALNUM, 60),  # Artifactory API key
    _row("cmVmdGtu", _ALNUM, 50),  # Artifactory reference token
    _row("ATCTT3xFfG", _B64URL, 100),  # Atlassian Cloud admin token
    _row("ABSK", _B64, 100),  # AWS Bedrock long-lived API key
    _row("bedrock-api-key-", _B64, 40),  # AWS Bedrock short-lived API key
    _row("BBDC-", _ALNUM + "+/@_-", 40),  # Bitbucket Data Center
    _row("bb_pr_", _HEX, 30),  # Bitbucket
    _row("bb_ma_", _HEX, 30),
    _row("BBFF-", _ALNUM, 30),  # Bubble
    _row("bkua_", _LOWER, 40),  # Buildkite
    _row("cio", _ALNUM, 32),  # crates.io (cargo login)
    _row("CCIPAT_", _URL, 60),  # CircleCI personal token
    _row("4b1d", _ALNUM, 38),  # ClickHouse Cloud secret
    _row("cfk_", _ALNUM, 48),  # Cloudflare API key (new form)
    _row("CLOJARS_", _ALNUM, 60),  # Clojars
    _row("CFPAT-", _URL, 43),  # Contentful personal token
    _row("dckr_oat_", _URL, 32),  # Docker organization access token
    _row("duffel_test_", _B64URL, 43),  # Duffel
    _row("duffel_live_", _B64URL, 43),
    _row("figp_", _B64URL, 40),  # Figma
    _row("flb_live_", _ALNUM, 20),  # Flutterwave / Fleetbase live key
    _row("FLWSECK_TEST-", _URL, 32),  # Flutterwave secret and encryption keys
    _row("FLWSECK-", _URL, 32),
    _row("fio-u-", _URL, 64),  # Frame.io
    _row("glpat-", _DOTTED, 20),  # GitLab (the routable form has a ".01…" tail)
    _row("glrt-", _DOTTED, 20),
    _row("glffct-", _URL, 20),  # GitLab feature-flag client token
    _row("eyJrIjoi", _ALNUM + "=", 70),  # Grafana API key (legacy)
    _row("pat.", _DOTTED, 60, check=_dots(2)),  # Harness personal and service-account tokens
    _row("sat.", _DOTTED, 60, check=_dots(2)),
    _row("pat-na1-", _URL, 36),  # HubSpot private app
    _row("pat-eu1-", _URL, 36),
    _row("s-s4t2ud-", _HEX, 64),  # 42 Intra
    _row("s-s4t2af-", _HEX, 64),
    _row("u-s4t2ud-", _HEX, 64),
    _row("u-s4t2af-", _HEX, 64),
    _row("lsv2_pt_", _URL, 40),  # LangSmith
    _row("lsv2_sk_", _URL, 40),
    _row("key-", _LOWER, 32, 32),  # Mailgun private key
    _row("NRBR-", _HEX, 19),  # New Relic browser, insights query and JS keys
    _row("NRIQ-", _URL, 25),
    _row("NRJS-", _HEX, 19),
    _row("secret_", _ALNUM, 43),  # Notion (legacy integration token)
    _row("oy2", _LOWER, 43),  # NuGet API key
    _row("nvapi-", _URL, 64),  # NVIDIA
    _row("API-", _UPPER, 26, 26),  # Octopus Deploy
    _row("sha256~", _URL, 43),  # OpenShift user token
    _row("pcsk_", _URL, 60),  # Pinecone
    _row("phx_", _URL, 43),  # PostHog personal key
    _row("ramp_id_", _ALNUM, 40),  # Ramp
    _row("ramp_sec_", _ALNUM, 48),
    _row("rh-api-", _URL, 36),  # Red Hat
    _row("rootly_", _HEX, 64),  # Rootly
    _row("salad_cloud_", _URL, 15),  # SaladCloud
    _row("sm_aat_", _ALNUM, 16),  # SettleMint
    _row("sm_pat_", _ALNUM, 16),
    _row("sm_sat_", _ALNUM, 16),
    _row("shltm_", _URL, 40),  # Shopify (Hydrogen)
    _row("slk_", _HEX, 64),  # (trufflehog: slk_)
    _row("sqco_", _ALNUM, 59),  # Square (connect)
    _row("pi_", _URL, 45, check=lambda body: "_secret_" in body),  # Stripe payment-intent client secret
    _row("thog-key-", _HEX, 16),  # trufflehog's own canary keys
    _row("thog-secret-", _HEX, 32),
    _row("tfp_", _B64URL + ".", 40),  # Typeform
    _row("xkeysib-", _URL, 64),  # Brevo (both forms)
    _row("t1.", _DOTTED + "=", 90, check=_dots(1)),  # Yandex IAM token
    _row("AQVN", _URL, 35),  # Yandex API key
    _row("1000.", _DOTTED, 60, check=_dots(1)),  # Zoho refresh / access token
)
"""Every row: a kind's prefix, its body's alphabet and least length (docs/redaction.md lists them by vendor)."""

_LETTERS_OR_DIGITS = frozenset(_ALNUM)


def _generated(body: str) -> bool:
    """A digit and a letter, or 24+ characters with both cases: a word of prose has neither."""
    has_digit = any(c.isdigit() for c in body)
    has_alpha = any(c.isalpha() for c in body)
    if has_digit and has_alpha:
        return True
    return len(body) >= 24 and any(c.isupper() for c in body) and any(c.islower() for c in body)


@functools.cache
def _run(alphabet: frozenset[str]) -> re.Pattern[str]:
    """The longest run of ``alphabet``'s characters (a character class, matched in C)."""
    return re.compile("[" + "".join(re.escape(c) for c in sorted(alphabet)) + "]*")


def _row_spans(text: str, row: _Vendor) -> Iterator[Span]:
    prefix, alphabet, n = row.prefix, row.alphabet, len(text)
    read_to = -1  # the end of the last run read for this row: an occurrence inside it was judged with it
    i = text.find(prefix)
    while i != -1:
        start = i
        i = text.find(prefix, i + 1)
        if start < read_to or start > 0 and text[start - 1] in _LETTERS_OR_DIGITS:
            continue
        body_start = start + len(prefix)
        run = _run(alphabet).match(text, body_start)  # "[…]*" matches everywhere, if only the empty string
        end = read_to = body_start if run is None else run.end()
        while end > body_start and text[end - 1] == ".":
            end -= 1  # a sentence's full stop after the key is not part of it
        body = text[body_start:end]
        if len(body) < row.least or row.longest and len(body) > row.longest:
            continue
        if end < n and text[end] in _LETTERS_OR_DIGITS:
            continue  # a longer word the alphabet does not hold (hex followed by a letter)
        if _generated(body) and (row.check is None or row.check(body)):
            yield start, end


def vendor_spans(text: str) -> list[Span]:
    """Where a row of :data:`VENDOR_PREFIXES` finds a key in ``text``."""
    spans: list[Span] = []
    for row in VENDOR_PREFIXES:
        if row.prefix in text:
            spans.extend(_row_spans(text, row))
    return spans
