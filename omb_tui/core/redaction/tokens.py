"""Token rules of credential redaction: keys known by their shape, and private key blocks.

Part of credential redaction (spec "Where it lives"; see :mod:`omb_tui.core.redaction.redact`): prefixed
tokens (``sk-…``, ``ghp_…``, ``AKIA…``), detect-secrets' own denylist regexes, Bearer tokens,
URLs with a password in them and private key blocks. Every rule is gated on a cheap literal
check, and detect-secrets is imported only the first time a text passes one of its gates.

URLs: the password of ``scheme://user:password@host`` (also with no user name)
may hold any character but ``/ ?`` and white space (``#`` too: people paste
passwords unescaped); it runs to the last ``@`` before the path, and only it is
replaced.

Which detector covers what is listed once, in :data:`DETECTORS` (docs/redaction.md shows it too).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .values import Span, is_reference, lazy, left_ok, plausible, random_token, right_ok
from .vendors import vendor_spans

__all__ = ["DETECTORS", "token_spans"]

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
- SendGrid, PyPI, npm (_authToken), Square OAuth, Mailchimp, Twilio and Telegram
  bot tokens
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
- a Team Cloud person's omb-tui token (ombp_…)
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
- Pass phrases after "passphrase" or "pass phrase" (with ":", "=" or "is"):
  every word up to the end of its clause ("my passphrase is correct horse
  battery staple, keep it safe"), unless they describe one ("at least 4 words")
- "my password is X" phrases, also "the password for the router is X" and "our
  wifi pass is X" (X one word that is not an ordinary English word; after "pass"
  it must look like a password), and "the API key is X", "the token is X" (X must
  look generated: 16+ characters, letters and digits)
- Private key blocks, whole block from -----BEGIN … PRIVATE KEY----- to
  -----END … PRIVATE KEY----- (RSA, EC, DSA, OpenSSH, PGP, PKCS#8, encrypted,
  SSH2), and PuTTY key files (detect-secrets only flags the BEGIN line)
- URLs with a password that detect-secrets skips: no user name
  (scheme://:password@host) or punctuation in the password (https://admin:S3cret!@host,
  mysql://root:Pa#ss9@host, https://user:pa/ss?wd@host: up to the last @ before the host)
- Discord bot tokens, the current ones too (a 38-character last part), and Telegram
  bot tokens inside the Bot API's URL (https://api.telegram.org/bot<token>/…)
- Keys cut by a zero-width character (U+200B, U+200C, U+200D, U+2060, U+FEFF) or by
  a line break (the next line starting, with no space, with the key's generated-looking
  tail): the whole key, the character or break included
- Prefixed keys of more providers, shapes after gitleaks' default rules (our own
  patterns): Perplexity (pplx-), Replicate (r8_), Atlassian (ATATT3), Databricks
  (dapi + 32 hex), Linear (lin_api_), Notion (ntn_), Doppler (dp.st., dp.pt., …),
  Pulumi (pul-), Terraform Cloud (….atlasv1.…), Mapbox secret tokens (sk.eyJ…; pk.
  is public), Sentry (sntrys_, sntryu_), Grafana (glsa_, glc_), New Relic (NRAK-,
  NRII-), Tailscale (tskey-auth-…), Supabase (sbp_, sb_secret_), Figma (figd_),
  Postman (PMAK-), PlanetScale (pscale_pw_, _tkn_, _oauth_), Fly.io (fo1_, fm1_,
  fm2_), Heroku (HRKU-AA), Alibaba (LTAI…), 1Password (ops_eyJ…, A3-… secret keys),
  Cloudflare origin CA (v1.0-), Dynatrace (dt0c01.), EasyPost (EZAK, EZTK), Prefect
  (pnu_), ReadMe (rdme_), RubyGems (rubygems_), Brevo (xkeysib-), Shippo (shippo_),
  Sourcegraph (sgp_), Hugging Face organizations (api_org_), Infracost (ico-),
  Scalingo (tk-us-), Azure AD client secrets (…Q~…), Stripe sk_prod_/rk_prod_,
  Square access tokens (EAAA, sq0atp-) and Facebook page tokens (EAAC, EAAM)
- Secrets inside URLs: X-Amz-Signature, X-Amz-Credential and X-Amz-Security-Token
  of a presigned S3 URL, an Azure SAS sig=, the token of a Discord webhook and the
  secret path of a Microsoft Teams webhook (after webhookb2/)
- Pasted files: .netrc (machine h login u password P), .pgpass lines
  (host:port:db:user:password), docker's "auth" and "identitytoken", kubeconfig's
  client-key-data (its token: is an assignment)
- Command lines: sshpass -p PW, mysql -pPW (glued to -p), curl -u user:pw
- Cookie and Set-Cookie headers: values of cookies with a session-like name
  (sessionid, JSESSIONID, *_session, auth, token, remember…)
- Private keys in hex (an Ethereum key: 0x and 64 hex digits, or 64 hex digits)
  within a few words after "private key"; a transaction hash or an address stays
- Password phrases in French, German, Spanish, Italian, Portuguese, Dutch, Czech,
  Polish and Swedish ("le mot de passe du wifi est X", "Passwort ist X",
  "contraseña: X", "heslo je X"; X must have a digit, a symbol or an inner capital)
Not used, on purpose: detect-secrets' high-entropy string and public-IP
detectors (they would redact commit hashes and addresses in ordinary notes),
its keyword detector (it takes "Jane Doe" in "secretary: Jane Doe" for a
secret), its Artifactory detector (it flags plain upper-case words such as
"APEXLEGENDS"), and its IBM Cloud, IBM COS, Cloudant and SoftLayer
detectors (niche; their key = value forms fall under the assignment rule).
"""
"""Which secret kinds come from detect-secrets and which from our own patterns
(copy it into docs/redaction.md: a test keeps the two equal)."""

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _extend_token(text: str, end: int) -> int:
    """Move ``end`` over any further token characters (so a longer key is not half kept)."""
    n = len(text)
    while end < n and text[end] in _TOKEN_CHARS:
        end += 1
    return end


# --------------------------------------------------------------------------- rules


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
        taken_to = -1  # a match inside a key already taken is part of it ("NRII-NRII-…" is read once)
        for m in self._matches(text, lowered):
            start, end = m.span(self.group)
            if start < 0 or start == end or start < taken_to:
                continue
            if self.bound_left and not left_ok(text, start):
                continue
            if self.bound_right and not right_ok(text, end):
                continue
            if self.extend:
                longer = taken_to = _extend_token(text, end)
                if self.check is None or self.check(text[start:longer]):
                    yield start, longer
                    continue
                # The extension may have run into a neighbour ("…sig-----BEGIN");
                # fall back to what the pattern itself matched.
            if self.check is None or self.check(text[start:end]):
                yield start, end


def _own(pattern: str, *gates: str | re.Pattern[str], flags: int = 0, **options: Any) -> _Rule:
    return _Rule(lazy(pattern, flags), gates, **options)


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
        (lazy(r"['\"][0-9a-zA-Z/+]{40}['\"]"),),
        (1,),
        group=1,
        bound_left=False,
        extend=False,
    ),
    _spec("github_token", "GitHubTokenDetector", (lazy(r"gh[pousr]_"),)),
    _spec("gitlab_token", "GitLabTokenDetector", (lazy(r"gl[a-z]{1,5}-"), "GR1348941")),
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
    _spec("basic_auth", "BasicAuthDetector", ("://",), group=1, bound_left=False, extend=False),
    _spec("sendgrid", "SendGridDetector", ("SG.",)),
    _spec("pypi_token", "PypiTokenDetector", ("pypi-",)),
    _spec("npm", "NpmDetector", ("_authToken",), group=1, bound_left=False, extend=False),
    _spec("square_oauth", "SquareOAuthDetector", ("sq0csp-",)),
    _spec("mailchimp", "MailchimpDetector", (lazy(r"-us[0-9]"),), bound_right=True, extend=False),
    _spec(
        "twilio",
        "TwilioKeyDetector",
        (lazy(r"AC[a-z0-9]{32}"), lazy(r"SK[a-z0-9]{32}")),
        bound_right=True,
        extend=False,
    ),
    _spec(
        "telegram_token",
        "TelegramBotTokenDetector",
        (lazy(r":[0-9A-Za-z_-]{35}"),),
        bound_right=True,
        extend=False,
    ),
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
    return lambda secret: plausible(secret[prefix_len:])


def _body_random(prefix_len: int, min_len: int) -> Callable[[str], bool]:
    return lambda secret: random_token(secret[prefix_len:], min_len)


def _legacy_vault_token(secret: str) -> bool:
    """``s.`` and 24 generated characters: letters of both cases and digits."""
    body = secret[2:]
    return random_token(body, 24) and not body.isupper() and not body.islower()


_OWN_RULES: tuple[_Rule, ...] = (
    # OpenAI (sk-proj-, sk-svcacct-, sk-admin-, plain sk-), Anthropic (sk-ant-),
    # OpenRouter, DeepSeek and other sk- keys. The body must look generated, so
    # "sk-learn" or a model named "sk-kogptv2-kormath-causal" stays.
    _own(r"sk-[A-Za-z0-9_-]{32,}", "sk-", check=_body_random(3, 32)),
    # JSON Web Tokens, judged by detect-secrets' check of the decoded parts. Its own pattern reads to the end of
    # every run of token characters from every "eyJ" to look for a dot (quadratic on "eyJeyJ…"); a header is short.
    _own(r"eyJ[A-Za-z0-9_-]{2,512}={0,2}\.[A-Za-z0-9_=-]+\.?[A-Za-z0-9_.+/=-]*", "eyJ", check=_jwt_ok),
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
    _own(r"ombp_[A-Za-z0-9_-]{40,}", "ombp_"),  # a person's token of a Team Cloud home (core/people/people.py)
    _own(r"ombo_[A-Za-z0-9_-]{40,}", "ombo_"),  # the owner's serve token (core/people/owner_token.py)
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
        check=plausible,
    ),
    # scheme://user:password@host where detect-secrets' pattern gives up: no user
    # name (scheme://:password@host) or punctuation in the password ("S3cret!",
    # "pa$$w0rd", "Fake#Pass9": people paste passwords with "#" unescaped). The
    # password runs to the last "@" before the path; a reference
    # (scheme://user:${DB_PASS}@host) stays. Failing that, a password holding "/" or
    # "?" (https://user:pa/ss?wd@host) runs to the last "@" that a host follows; a
    # port and a path (https://host:8080/p?email=a@b.com) are not a password.
    _own(
        r"://[^:/?#\[\]@\s]*:([^/?\s]+(?=@)"
        r"|(?!\d{1,5}(?:[/?#]|\Z))[^\s@/?]{0,128}[/?]\S{0,256}(?=@[A-Za-z0-9][A-Za-z0-9.-]*(?:[:/?#]|\s|\Z)))",
        "://",
        group=1,
        bound_left=False,
        extend=False,
        check=lambda value: not is_reference(value),
    ),
    # Discord bot tokens: base64 user id . 6 characters . 27 (older) or 38 (current) characters;
    # detect-secrets' pattern stops at 27, so a current token's tail was kept.
    _own(
        r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}",
        lazy(r"\.[\w-]{6}\."),
        check=_body_random(0, 40),
    ),
    # A Telegram bot token inside the Bot API's URL: https://api.telegram.org/bot<digits>:<35>.
    _own(r"(?<=/bot)\d{5,16}:[0-9A-Za-z_-]{35}", "/bot", bound_left=False, bound_right=True, extend=False),
    # Prefixed keys of more providers; shapes after gitleaks' default rules (MIT), patterns our own.
    # Each is gated on its prefix; a body must look generated where the prefix is also a word.
    _own(r"pplx-[A-Za-z0-9]{48}", "pplx-"),  # Perplexity
    _own(r"r8_[A-Za-z0-9]{37}", "r8_", check=_body_random(3, 37)),  # Replicate
    _own(r"ATATT3[A-Za-z0-9_=-]{150,}", "ATATT3"),  # Atlassian API token
    _own(r"dapi[a-f0-9]{32}(?:-\d)?", "dapi", bound_right=True, extend=False),  # Databricks
    _own(r"lin_(?:api|oauth)_[A-Za-z0-9]{40}", "lin_"),  # Linear
    _own(r"ntn_\d{11}[A-Za-z0-9]{35}", "ntn_"),  # Notion
    _own(r"dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,44}", "dp."),  # Doppler
    _own(r"pul-[a-f0-9]{40}", "pul-", bound_right=True, extend=False),  # Pulumi
    _own(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}", ".atlasv1."),  # Terraform Cloud / Enterprise
    _own(r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", "sk.eyJ"),  # Mapbox secret token (pk. is public)
    _own(r"sntrys_eyJ[A-Za-z0-9+/=]{20,}_[A-Za-z0-9+/]{43}", "sntrys_"),  # Sentry organization token
    _own(r"sntryu_[a-f0-9]{64}", "sntryu_", bound_right=True, extend=False),  # Sentry user token
    _own(r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}", "glsa_", bound_right=True, extend=False),  # Grafana SA
    _own(r"glc_[A-Za-z0-9+/]{32,400}={0,3}", "glc_", check=_body_random(4, 32)),  # Grafana Cloud
    _own(
        r"NR(?:AK|II)-[A-Za-z0-9-]{27,32}", "NRAK-", "NRII-", check=_body_random(5, 27)
    ),  # New Relic user / insert keys
    _own(r"tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]+-[A-Za-z0-9]{20,}", "tskey-"),  # Tailscale
    _own(r"sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{31,}", "sbp_", "sb_secret_"),  # Supabase access / secret keys
    _own(r"figd_[A-Za-z0-9_-]{40,}", "figd_"),  # Figma
    _own(r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}", "PMAK-", bound_right=True, extend=False),  # Postman
    _own(r"pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_=.-]{32,64}", "pscale_"),  # PlanetScale
    _own(r"fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}", "fo1_", "fm1", "fm2"),  # Fly.io
    _own(r"HRKU-AA[A-Za-z0-9_-]{58}", "HRKU-"),  # Heroku
    _own(r"LTAI[A-Za-z0-9]{12,20}", "LTAI", bound_right=True, extend=False, check=_body_random(4, 12)),  # Alibaba
    _own(r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}", "ops_eyJ"),  # 1Password service account
    _own(
        r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
        "A3-",
        bound_right=True,
        extend=False,
    ),  # 1Password account secret key
    _own(r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}", "v1.0-", bound_right=True, extend=False),  # Cloudflare origin CA
    _own(r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", "dt0c01."),  # Dynatrace
    _own(r"EZ[AT]K[A-Za-z0-9]{54}", "EZAK", "EZTK"),  # EasyPost
    _own(r"pnu_[A-Za-z0-9]{36}", "pnu_"),  # Prefect
    _own(r"rdme_[a-z0-9]{70}", "rdme_"),  # ReadMe
    _own(r"rubygems_[a-f0-9]{48}", "rubygems_", bound_right=True, extend=False),  # RubyGems
    _own(r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", "xkeysib-"),  # Brevo (Sendinblue)
    _own(r"shippo_(?:live|test)_[a-fA-F0-9]{40}", "shippo_", bound_right=True, extend=False),  # Shippo
    _own(r"sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}", "sgp_"),  # Sourcegraph
    _own(r"api_org_[A-Za-z]{34}", "api_org_", check=_body_plausible(8)),  # Hugging Face organization
    _own(r"ico-[A-Za-z0-9]{32}", "ico-", check=_body_random(4, 32)),  # Infracost
    _own(r"tk-us-[A-Za-z0-9_-]{48}", "tk-us-"),  # Scalingo
    _own(r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}", "Q~", check=_body_random(0, 38)),  # Azure AD client secret
    _own(r"(?:sk|rk)_prod_[A-Za-z0-9]{10,99}", "k_prod_"),  # Stripe
    _own(
        r"EAAA[A-Za-z0-9_-]{22,60}|sq0atp-[A-Za-z0-9_-]{22,60}", "EAAA", "sq0atp-", check=_body_random(4, 22)
    ),  # Square
    _own(r"EAA[CM][A-Za-z0-9]{100,}", "EAA"),  # Facebook page access token
    _own(r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk", "_mmk", bound_right=True, extend=False),  # MaxMind license key
)


# ----------------------------------------------------------------- private key blocks

_KEY_BEGIN_RE = lazy(
    r"-{3,5}[ ]?BEGIN[ ](?:[A-Z0-9]+[ ])*PRIVATE[ ]KEY(?:[ ]BLOCK)?[ ]?-{3,5}"
    r"|PuTTY-User-Key-File-\d+:"
)
_KEY_END_RE = lazy(r"-{3,5}[ ]?END[ ](?:[A-Z0-9]+[ ])*PRIVATE[ ]KEY(?:[ ]BLOCK)?[ ]?-{3,5}")
_BLANK_LINE_RE = lazy(r"(?:\r\n|\n|\r(?!\n))[ \t]*(?:\r\n|\n|\r)")


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
        if putty and not left_ok(text, begin.start()):
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


# ------------------------------------------------------------------------ all of them


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


def token_spans(text: str, lowered: str) -> list[Span]:
    """Where the token rules find a secret in ``text`` (``lowered`` is ``text.lower()``)."""
    spans = vendor_spans(text)
    for rule in _OWN_RULES:
        if _gate_open(rule.gates, lowered if rule.gate_lower else text):
            spans.extend(rule.spans(text, lowered))
    for index, spec in enumerate(_LIBRARY_SPECS):
        if _gate_open(spec.gates, lowered if spec.gate_lower else text):
            for rule in _library_rules(index):
                spans.extend(rule.spans(text, lowered))
    if "PRIVATE KEY" in text or "PuTTY-User-Key-File-" in text:
        spans.extend(_private_key_spans(text))
    return spans
