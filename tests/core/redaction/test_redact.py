"""Credential redaction (omb_tui/core/redact.py): spec "Where it lives".

Every fake credential below is assembled from pieces at run time, so this file
does not itself look like a leaked key to secret scanners.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.repo import ROOT

from omb_tui.core.redaction.redact import DETECTORS, REDACTION_MARK, Redaction, contains_credential, mark, redact

MARK_RE = re.compile(r"«redacted (\d+) chars»")


# ------------------------------------------------------------------ fake secrets


def _b64url(data: dict) -> str:
    raw = json.dumps(data, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


AWS_KEY_ID = "AK" + "IA" + "Q7X2" * 4
AWS_SECRET = "wJa1" + "rXU7" * 9
OPENAI_LEGACY = "sk-" + "Ab12" * 5 + "T3Blbk" + "FJ" + "Cd34" * 5
OPENAI_PROJECT = (
    "sk-" + "proj-" + "Qw3rTy7uI0pAsD4fGh8jKl2zXc6vBn1m" + "-" + "Lk5jHg9fDs3aPo7iUy1t" + "_" + "Mn4bVc8xZa"
)
ANTHROPIC = "sk-" + "ant-" + "api03-" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz" * 3 + "-" + "AbC1" + "AA"
GITHUB_CLASSIC = "gh" + "p_" + "aB3d" * 9
GITHUB_OAUTH = "gh" + "o_" + "Zy9X" * 9
GITHUB_FINE = "github" + "_pat_" + "11ABCDEFG0" + "aBcD1234eF" + "gh_" + "Kl5m" * 14 + "Nop"
GITLAB = "gl" + "pat-" + "xY7z" * 5
SLACK_BOT = "xo" + "xb-" + "123456789012-" + "1234567890123-" + "AbCd1234" * 3
SLACK_WEBHOOK = "https://hooks." + "slack.com/services/T" + "0ABC1234" + "/B" + "0DEF5678" + "/" + "xYz1" * 6
STRIPE_LIVE = "sk" + "_live_" + "4eC3" * 6 + "Xy9Z" * 16
STRIPE_TEST = "sk" + "_test_" + "4eC3" * 6
GOOGLE_API = "AI" + "za" + "SyD1" * 8 + "a-_"
JWT = ".".join(
    [
        _b64url({"alg": "HS256", "typ": "JWT"}),
        _b64url({"sub": "1234567890", "name": "Test User", "iat": 1516239022}),
        "SflKxw" + "RJSMeK" + "KF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ]
)
BEARER = "abcDEF" + "123456" + "ghiJKL" + "789"
SENDGRID = "SG" + "." + "aB3dEf6hIj9kLm2nOp5qRs" + "." + "tU8vWx1yZa4bCd7eFg0hIj3kLm6nOp9qRs2tUv5wXy8"
HUGGING_FACE = "h" + "f_" + "aBcDeFgHiJ" * 3 + "kLmN"
RSA_BODY = [
    "MIIEpAIBAAKCAQEA" + "u1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0" + "/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gn",
    "TxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyeh" + "kd3qqGElvW/VDL5AaWTg0nLV",
]
RSA_BLOCK = "\n".join(["-----BEGIN " + "RSA PRIVATE KEY-----", *RSA_BODY, "-----END " + "RSA PRIVATE KEY-----"])
OPENSSH_BLOCK = "\n".join(
    [
        "-----BEGIN " + "OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        "QyNTUxOQAAACB" + "x" * 40,
        "-----END " + "OPENSSH PRIVATE KEY-----",
    ]
)


# (kind, text before, secret, text after): redact(before + secret + after) must be
# exactly before + «redacted len(secret) chars» + after.
CASES = [
    ("aws-key-id", "aws key ", AWS_KEY_ID, " was in the .env"),
    ("aws-secret-quoted", 'aws_secret = "', AWS_SECRET, '"'),
    ("aws-secret-env", "AWS_SECRET_ACCESS_KEY=", AWS_SECRET, "\n"),
    ("openai-legacy", "the key is ", OPENAI_LEGACY, ", keep it safe"),
    ("openai-project", "OPENAI_API_KEY=", OPENAI_PROJECT, "\n"),
    ("openai-in-prose", "the user pasted ", OPENAI_PROJECT, " by mistake"),
    ("anthropic", 'ANTHROPIC_API_KEY="', ANTHROPIC, '"'),
    ("anthropic-in-prose", "- 2026-09-10 · user shared ", ANTHROPIC, " in chat"),
    ("github-classic", "push with ", GITHUB_CLASSIC, " please"),
    ("github-oauth", "(", GITHUB_OAUTH, ")"),
    ("github-fine-grained", "GH_TOKEN=", GITHUB_FINE, ""),
    ("gitlab", "gitlab token ", GITLAB, " for CI"),
    ("slack-token", "slack: ", SLACK_BOT, " (bot)"),
    ("slack-webhook", "post to ", SLACK_WEBHOOK, " daily"),
    ("stripe-live", "stripe ", STRIPE_LIVE, "."),
    ("stripe-test", "stripe test ", STRIPE_TEST, "."),
    ("google-api-key", "maps key ", GOOGLE_API, " for the demo"),
    ("jwt", "cookie session=", JWT, "; path=/"),
    ("jwt-in-prose", "a token like ", JWT, " was logged"),
    ("bearer", "Authorization: Bearer ", BEARER, ""),
    ("bearer-curl", "curl -H 'Authorization: Bearer ", BEARER, "' https://api.example.com"),
    ("authorization-basic", "Authorization: Basic ", "dXNlcjpwYXNzd29yZDEyMw==", "\n"),
    ("password-colon", "password: ", "hunter2", ""),
    ("password-passphrase", "Password: ", "correct horse battery staple", "\nnext line"),
    ("password-markdown", "- **Password:** ", "Tr0ub4dor&3", "\n"),
    ("password-env", "DB_PASSWORD=", "s3cr3t!pw", " # prod"),
    ("password-json", '{"user": "bob", "password": "', "pa ss:w0rd", '"}'),
    ("passwd-yaml", "  passwd: '", "letmein", "'\n"),
    ("secret-assignment", "secret=", "q9Xz7Lm2Np4", "\n"),
    ("client-secret", "client_secret: ", "a8f5f167f44f4964e6c998dee827110c", "\n"),
    ("token-assignment", "token=", "abc123def456ghi", "&user=bob"),
    ("access-token-json", '"access_token": "', "ya2" + "9-notreally-1234abcd", '",'),
    ("api-key-yaml", "api_key: ", "Zx81kQp0Lm3Nv7Rt", "\n"),
    ("api-key-header", "X-API-Key: ", "0123abcd4567efgh", "\r\n"),
    ("private-key-rsa", "the key:\n", RSA_BLOCK, "\nend of note"),
    ("private-key-openssh", "```\n", OPENSSH_BLOCK, "\n```"),
    ("url-password", "https://bob:", "s3cret", "@example.com/x"),
    ("url-password-db", "DATABASE_URL=postgres://app:", "Xq7Lw9pA", "@db.internal:5432/app"),
    ("url-password-no-user", "redis://:", "s3cr3tpw", "@cache:6379/0"),
    ("sendgrid", "sendgrid ", SENDGRID, " key"),
    ("hugging-face", "HF token ", HUGGING_FACE, " for downloads"),
]


@pytest.mark.parametrize(("kind", "before", "secret", "after"), CASES, ids=[c[0] for c in CASES])
def test_each_kind_is_redacted(kind: str, before: str, secret: str, after: str) -> None:
    result = redact(before + secret + after)
    assert result.text == before + mark(len(secret)) + after
    assert secret not in result.text
    assert result.count == 1
    assert result.changed


@pytest.mark.parametrize(("kind", "before", "secret", "after"), CASES, ids=[c[0] for c in CASES])
def test_each_kind_is_idempotent(kind: str, before: str, secret: str, after: str) -> None:
    once = redact(before + secret + after).text
    again = redact(once)
    assert again.text == once
    assert again.count == 0


# -------------------------------------------------------- the spec's own examples


def test_password_line_keeps_key_name() -> None:
    assert redact("password: hunter2").text == "password: «redacted 7 chars»"


def test_url_keeps_user_and_host() -> None:
    assert redact("https://bob:s3cret@example.com/x").text == "https://bob:«redacted 6 chars»@example.com/x"


def test_bearer_keeps_scheme() -> None:
    out = redact("Authorization: Bearer " + BEARER).text
    assert out == f"Authorization: Bearer «redacted {len(BEARER)} chars»"


def test_private_key_block_is_one_span() -> None:
    text = "note\n" + RSA_BLOCK + "\nafter\n"
    result = redact(text)
    assert result.count == 1
    assert result.text == "note\n" + mark(len(RSA_BLOCK)) + "\nafter\n"
    assert "PRIVATE KEY" not in result.text


def test_private_key_block_with_crlf() -> None:
    block = RSA_BLOCK.replace("\n", "\r\n")
    text = "before\r\n" + block + "\r\nafter\r\n"
    assert redact(text).text == "before\r\n" + mark(len(block)) + "\r\nafter\r\n"


def test_private_key_without_end_line_runs_to_blank_line() -> None:
    truncated = "\n".join(RSA_BLOCK.splitlines()[:-1])
    text = "pasted:\n" + truncated + "\n\nthe user stopped pasting here\n"
    assert redact(text).text == "pasted:\n" + mark(len(truncated)) + "\n\nthe user stopped pasting here\n"


def test_truncated_key_does_not_reach_a_later_block() -> None:
    # A BEGIN without END must not run on to the END of a later block and take
    # every note in between with it.
    mention = "-----BEGIN " + "RSA PRIVATE KEY-----"
    notes = "\n\n- 2026-09-10 · the user likes jazz\n\n"
    out = redact(mention + "\nMIIEpAIB" + notes + RSA_BLOCK).text
    assert out == mark(len(mention) + len("\nMIIEpAIB")) + notes + mark(len(RSA_BLOCK))


def test_truncated_key_with_crlf_stops_at_blank_line() -> None:
    truncated = "\r\n".join(RSA_BLOCK.splitlines()[:-1])
    text = truncated + "\r\n\r\nkept\r\n"
    assert redact(text).text == mark(len(truncated)) + "\r\n\r\nkept\r\n"


def test_putty_key_file() -> None:
    putty = "\n".join(
        [
            "PuTTY-User-Key-File-" + "2: ssh-rsa",
            "Encryption: none",
            "Private-Lines: 1",
            "AAABAQC" + "x" * 40,
            "Private-MAC: " + "ab12" * 10,
        ]
    )
    assert redact(putty + "\n\nlater").text == mark(len(putty)) + "\n\nlater"


def test_marker_is_not_a_secret() -> None:
    for text in (
        "password: «redacted 7 chars»",
        "token=«redacted 40 chars»",
        'api_key: "«redacted 20 chars»"',
        "Authorization: Bearer «redacted 21 chars»",
        "https://bob:«redacted 6 chars»@example.com/x",
        "«redacted 1679 chars»",
    ):
        result = redact(text)
        assert result == Redaction(text, 0), text
        assert not contains_credential(text)


def test_value_next_to_a_marker_is_still_redacted() -> None:
    # Only the mark itself is spared; a real value beside it is not.
    out = redact("password: «redacted 7 chars» hunter2").text
    assert out == "password: «redacted 7 chars» «redacted 7 chars»"
    assert redact(out).count == 0


def test_several_secrets_counted() -> None:
    text = f"a {GITHUB_CLASSIC}\nb {AWS_KEY_ID}\npassword: hunter2\n"
    result = redact(text)
    assert result.count == 3
    assert result.text == (f"a {mark(len(GITHUB_CLASSIC))}\nb {mark(len(AWS_KEY_ID))}\npassword: {mark(7)}\n")


def test_password_line_that_reads_as_a_sentence() -> None:
    # Prose after "password:" is not a pass phrase ...
    line = "- 2026-09-10 · the user's password: never share it with the bot"
    assert redact(line) == Redaction(line, 0)
    # ... but a password-looking first word is still removed ...
    out = redact("password: hunter2, the user changes it monthly").text
    assert out == f"password: {mark(7)}, the user changes it monthly"
    # ... and a pass phrase without function words goes whole.
    assert redact("passphrase: correct horse battery staple").text == f"passphrase: {mark(28)}"


def test_password_value_edges() -> None:
    # "&" belongs to a password; a full stop after it ends the sentence.
    assert redact("DB_PASSWORD=abc&def1 next").text == f"DB_PASSWORD={mark(8)} next"
    assert redact("the wifi password: Tr0ub4dor&3.").text == f"the wifi password: {mark(11)}."
    # In a query string a token stops at "&".
    assert redact("?token=abc123def456&page=2").text == f"?token={mark(12)}&page=2"


def test_references_are_not_secrets() -> None:
    for line in (
        "api_key: os.environ/OPENAI_API_KEY",
        "token: ${GITHUB_TOKEN}",
        "password: $DB_PASSWORD",
        "password: <your password here>",
        "password=None",
        'password: "{{ vault_db_password }}"',
        "secret: ********",
    ):
        assert redact(line) == Redaction(line, 0), line


def test_overlapping_detections_make_one_mark() -> None:
    # The key= assignment and the GitHub pattern both see the same value.
    result = redact("token=" + GITHUB_CLASSIC)
    assert result.text == "token=" + mark(len(GITHUB_CLASSIC))
    assert result.count == 1


def test_longer_key_than_library_pattern_is_removed_whole() -> None:
    # detect-secrets' Stripe regex stops after 24 characters; nothing may stay behind.
    result = redact(STRIPE_LIVE + " end")
    assert result.text == mark(len(STRIPE_LIVE)) + " end"


def test_no_leftovers_for_detect_secrets() -> None:
    """After redaction, detect-secrets' own plugins find nothing in any case."""
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.private_key import PrivateKeyDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.stripe import StripeDetector

    plugins = [
        AWSKeyDetector(),
        BasicAuthDetector(),
        GitHubTokenDetector(),
        GitLabTokenDetector(),
        JwtTokenDetector(),
        OpenAIDetector(),
        PrivateKeyDetector(),
        SendGridDetector(),
        SlackDetector(),
        StripeDetector(),
    ]
    text = "\n".join(before + secret + after for _, before, secret, after in CASES)
    assert any(list(p.analyze_string(text)) for p in plugins)  # the cases do trigger them
    out = redact(text).text
    for plugin in plugins:
        assert list(plugin.analyze_string(out)) == [], type(plugin).__name__


# --------------------------------------------------------- ordinary notes untouched

ORDINARY = [
    "# What I know about the user",
    '- 2026-09-10 · from chat "X" · the user prefers short replies',
    "- 2026-09-11 · the password reset flow was discussed; they want magic links",
    "- the token economy of their game is unbalanced",
    "- fixed in commit 3f9a2b1c4d5e6f708192a3b4c5d6e7f809a1b2c3, see the PR",
    "- docs at https://example.com/docs/page?id=42#section (no login needed)",
    "- runs on http://localhost:8080/api and ssh://git@github.com:22/org/repo",
    "- key insight: they hoard gold; secret santa on 2026-12-20, budget 30 EUR",
    "- the AWS bill was high; ACTION ITEM: call BACK office about the ASIA region",
    "- secretary: Jane Doe; token: expired; secret: she hates cilantro",
    "- Passwords are kept in 1Password; the bypass: none; compass: north",
    "- max_tokens: 4096, temperature: 0.7, api_version: 2024-06-01",
    "- a bearer bond is not a bearer token; basic understanding of Rust",
    "- version 1.2.3-beta4, build 20260910.1, phone call at 14:30",
    "- sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "- uuid 123e4567-e89b-12d3-a456-426614174000 and IP 203.0.113.7",
    "- she uses scikit-learn (sk-learn) and risk-averse planning",
    "- Ünïcödé — 日本語のメモ · emoji 🎉 and\ttabs",
    "- model madatnlp/sk-kogptv2-kormath-causal; C++ strlen_pass::handle_assign",
    "- pwd: /Users/maciej; gpg: The option --passphrase= can be empty.",
    "- openssl_hash_password: normalize the password prior to use",
    '- the "passwd:" and "group:" lines in /etc/nsswitch.conf',
    "- config: api_key: os.environ/OPENAI_API_KEY, API_KEY = 'WillAlsoBeIgnored'",
    "| date | note |",
    "|------|------|",
    "| 2026-09-10 | likes jazz |",
    "",
]


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_line_untouched(line: str) -> None:
    assert redact(line) == Redaction(line, 0)
    assert not contains_credential(line)


def test_ordinary_note_untouched_byte_exact() -> None:
    for ending in ("\n", "\r\n"):
        text = ending.join(ORDINARY)  # no final newline
        result = redact(text)
        assert result.text == text
        assert result.count == 0
        assert not result.changed


def test_empty_text() -> None:
    assert redact("") == Redaction("", 0)


def test_crlf_line_endings_preserved() -> None:
    text = "a\r\npassword: hunter2\r\nb\ttab\r\n" + GITHUB_CLASSIC + "\r\nlast"
    out = redact(text).text
    assert out == f"a\r\npassword: {mark(7)}\r\nb\ttab\r\n{mark(len(GITHUB_CLASSIC))}\r\nlast"
    assert out.count("\r\n") == text.count("\r\n")


def test_mark_format() -> None:
    assert mark(7) == "«redacted 7 chars»" == REDACTION_MARK.format(n=7)


def test_detectors_list_names_both_sources() -> None:
    assert "detect-secrets" in DETECTORS
    assert "own patterns" in DETECTORS
    for word in ("Anthropic", "Google", "Bearer", "GitHub", "Private key"):
        assert word in DETECTORS


# --------------------------------------------------------------------- properties

SECRET_LINES = [before + secret + after for _, before, secret, after in CASES]
SECRETS = [secret for _, _, secret, _ in CASES]

mixed_lines = st.lists(
    st.one_of(
        st.sampled_from(ORDINARY),
        st.sampled_from(SECRET_LINES),
        st.text(max_size=40),
    ),
    max_size=12,
)


def _aligns(original: str, redacted: str) -> bool:
    """``redacted`` is ``original`` with some spans replaced by marks of their length."""
    pos = 0
    last = 0
    for m in MARK_RE.finditer(redacted):
        piece = redacted[last : m.start()]
        if original[pos : pos + len(piece)] != piece:
            return False
        pos += len(piece) + int(m.group(1))
        last = m.end()
    tail = redacted[last:]
    return original[pos:] == tail


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_lines, st.sampled_from(["\n", "\r\n"]))
def test_idempotent_on_mixed_text(lines: list[str], ending: str) -> None:
    once = redact(ending.join(lines))
    twice = redact(once.text)
    assert twice.text == once.text
    assert twice.count == 0


@settings(max_examples=300)
@given(st.text())
def test_idempotent_on_any_text(text: str) -> None:
    once = redact(text).text
    assert redact(once).text == once


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_lines, st.sampled_from(["\n", "\r\n"]))
def test_secrets_gone_and_the_rest_byte_exact(lines: list[str], ending: str) -> None:
    text = ending.join(lines)
    assume("«redacted" not in text)
    out = redact(text).text
    assert _aligns(text, out)
    for line in lines:
        if line in SECRET_LINES:
            assert SECRETS[SECRET_LINES.index(line)] not in out


@settings(max_examples=300)
@given(st.text())
def test_only_whole_spans_are_replaced(text: str) -> None:
    assume("«redacted" not in text)
    assert _aligns(text, redact(text).text)


# Pieces of secrets, key names, separators, quotes and marks glued together at
# random: the nastiest neighbourhoods for boundaries, extensions and marks.
FRAGMENTS = [
    "password",
    "Password",
    "pass",
    "pwd",
    "token",
    "secret",
    "api_key",
    "Authorization",
    ":",
    "=",
    ": ",
    '"',
    "'",
    "`",
    " ",
    "\n",
    "\r\n",
    "\t",
    "**",
    "&",
    "@",
    "://",
    "https://",
    "«redacted 3 chars»",
    "«redacted ",
    "»",
    "sk-",
    "proj-",
    "AK" + "IA",
    "Q7X2" * 4,
    "abc123def456",
    "gh" + "p_",
    "aB3d" * 9,
    "eyJ",
    "Bearer ",
    "bob",
    "x",
    "1",
    "_",
    "-",
    ".",
    "-----BEGIN " + "RSA PRIVATE KEY-----",
    "-----END " + "RSA PRIVATE KEY-----",
    "PuTTY-User-Key-File-" + "2:",
    "é",
    "\u2028",
    *SECRETS,
]
fragment_text = st.lists(st.sampled_from(FRAGMENTS), max_size=25).map("".join)


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(fragment_text)
def test_idempotent_and_exact_on_glued_fragments(text: str) -> None:
    once = redact(text)
    assert redact(once.text) == Redaction(once.text, 0)
    if "«redacted" not in text:
        assert _aligns(text, once.text)


# Lower-case letters, digits-free, no ':' '=' '/' '-' '_' '.' '@': no key prefix,
# no assignment, no URL, no key block can be spelled with these.
SAFE_ALPHABET = st.sampled_from(
    list("abcdefghijklmnopqrstuvwxyz ,;!?'\"()#*\t\r\n") + ["é", "ß", "日", "本", "🎉", "\u2028", "·", "—"]
)


@settings(max_examples=500)
@given(st.text(alphabet=SAFE_ALPHABET, max_size=300))
def test_non_secret_text_is_byte_exact(text: str) -> None:
    assert redact(text) == Redaction(text, 0)


@settings(max_examples=200)
@given(st.lists(st.sampled_from(ORDINARY), max_size=30), st.sampled_from(["\n", "\r\n", "\r"]))
def test_ordinary_notes_are_byte_exact(lines: list[str], ending: str) -> None:
    text = ending.join(lines)
    assert redact(text) == Redaction(text, 0)


# ------------------------------------------------------------ size and imports


def _notes(size: int) -> str:
    out: list[str] = []
    total = 0
    i = 0
    while total < size:
        line = ORDINARY[i % len(ORDINARY)] + f" ({i})"
        out.append(line)
        total += len(line) + 1
        i += 1
    return "\n".join(out) + "\n"


def test_500_kb_of_notes_untouched() -> None:
    # Speed is measured by a benchmark script, not here (tests never time anything);
    # this only checks that an archive-sized text of notes comes back as it was.
    text = _notes(500_000)
    assert redact(text) == Redaction(text, 0)
    with_key = text + "password: hunter2\n"
    assert redact(with_key) == Redaction(text + f"password: {mark(7)}\n", 1)


def test_import_is_light() -> None:
    code = (
        "import sys, omb_tui.core.redaction.redact as r\n"
        "assert 'detect_secrets' not in sys.modules, 'detect-secrets imported eagerly'\n"
        "assert 'textual' not in sys.modules and 'rich' not in sys.modules\n"
        "r.redact('password: hunter2')\n"
        "assert 'textual' not in sys.modules and 'rich' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_redaction_page_names_every_detector():
    page = (ROOT / "docs" / "redaction.md").read_text()
    assert DETECTORS.rstrip() in page


# ------------------------------------------- values stop at the line's conventions
#
# Memory lines carry their dates after " · " separators (spec "Conventions inside
# the files"); a value that ran to the end of the line took them with it.


def test_password_value_stops_at_until_separator() -> None:
    line = "- 2026-11-30 · guest wifi password: Tulip77 · until 2026-12-05"
    assert redact(line).text == f"- 2026-11-30 · guest wifi password: {mark(7)} · until 2026-12-05"


def test_password_value_stops_at_closing_strikethrough() -> None:
    line = "- ~~wifi password: Tulip77~~ · superseded 2026-11-01"
    assert redact(line).text == f"- ~~wifi password: {mark(7)}~~ · superseded 2026-11-01"


def test_redacted_moved_line_is_left_alone() -> None:
    line = "- 2026-11-01 · wifi password: «redacted 7 chars» · moved 2026-11-30"
    assert redact(line) == Redaction(line, 0)


def test_password_value_stops_at_table_cell() -> None:
    assert redact("| wifi | password: Tulip77 | guest |").text == f"| wifi | password: {mark(7)} | guest |"
    # In a table row an unescaped pipe ends the cell even without a space before it.
    assert redact("| wifi | password: Tulip77| guest |").text == f"| wifi | password: {mark(7)}| guest |"


def test_password_value_stops_at_a_later_mark() -> None:
    # Text before a mark is one value and the mark is another's; they are not joined.
    line = "password: Tulip77 «redacted 9 chars» later"
    assert redact(line).text == f"password: {mark(7)} «redacted 9 chars» later"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "- 2026-11-30 · passphrase: correct horse battery · until 2026-12-05",
            f"- 2026-11-30 · passphrase: {mark(21)} · until 2026-12-05",
        ),
        ("- 2026-11-30 · password=Tulip77 · until 2026-12-05", f"- 2026-11-30 · password={mark(7)} · until 2026-12-05"),
        ("- ~~password=Tulip77~~ · superseded 2026-11-01", f"- ~~password={mark(7)}~~ · superseded 2026-11-01"),
        ("- ~~token=abc123def456~~ · superseded 2026-11-01", f"- ~~token={mark(12)}~~ · superseded 2026-11-01"),
        (
            "- ~~api_key: Zx81kQp0Lm3Nv7Rt~~ · superseded 2026-11-01",
            f"- ~~api_key: {mark(16)}~~ · superseded 2026-11-01",
        ),
        ("- ~~secret=q9Xz7Lm2Np4~~ · superseded 2026-11-01", f"- ~~secret={mark(11)}~~ · superseded 2026-11-01"),
        (
            "- ~~the password is hunter2~~ · superseded 2026-11-01",
            f"- ~~the password is {mark(7)}~~ · superseded 2026-11-01",
        ),
        ("| db | password=Tulip77| x |", f"| db | password={mark(7)}| x |"),
        (
            "- 2026-11-01 · password: 'Tulip77' · moved 2026-11-30",
            f"- 2026-11-01 · password: '{mark(7)}' · moved 2026-11-30",
        ),
    ],
)
def test_every_assignment_stops_at_line_conventions(line: str, expected: str) -> None:
    result = redact(line)
    assert result.text == expected
    assert result.count == 1
    assert redact(expected) == Redaction(expected, 0)


def test_pass_phrase_ends_at_the_next_key() -> None:
    # Each key gets its own value (and a long line with many keys is not rescanned
    # from every key to its end).
    line = "passphrase: correct horse token=abc123def456"
    result = redact(line)
    assert result.text == f"passphrase: {mark(13)} token={mark(12)}"
    assert result.count == 2


def test_tilde_inside_an_unstruck_password_is_kept_whole() -> None:
    # Without an opening ~~ on the line, ~~ is part of the password.
    assert redact("password: ab~~cd9").text == f"password: {mark(7)}"


# ------------------------------------------------------- secrets that were missed


@pytest.mark.parametrize(
    ("before", "secret", "after"),
    [
        ("secret: ", "hunter2", ""),
        ("secret=", "hunter2", ""),
        ("password=", "hunter2", ""),
        ("pwd=", "hunter2", "\n"),
        ("- the vault secret: ", "hunter2", " · until 2026-12-05"),
        ('{"secret": "', "hunter2", '"}'),
        ("token=", "abcdefghij", ""),
        ("token: ", "abcdefghij", ""),
        ("access_token=", "AbCdEfGhIj", "&x=1"),
        ("https://admin:", "S3cret!", "@example.com"),
        ("mysql://root:", "pa$$w0rd", "@localhost"),
        ("https://admin:", "p@ss:w(0)rd", "@example.com/path"),
        ("API key: ", "12345abcdef67890", ""),
        ("api key: ", "12345abcdef67890", ""),
        ("Access key = ", "12345abcdef67890", ""),
        ("secret key: ", "12345abcdef67890", ""),
        ("My password is ", "hunter2", ""),
        ("the password is ", "hunter2", ""),
        ("the wifi password is ", "swordfish", "."),
        ("Her password was ", "Tulip77", ", she said"),
        ("the password is: ", "hunter2", ""),
        ("the password is now ", "Tulip77", ""),
        ("the password is set to ", "Tulip77", " for guests"),
        ("my password is ", "hunter2", " and the user changes it monthly"),
    ],
)
def test_missed_secrets_are_redacted(before: str, secret: str, after: str) -> None:
    text = before + secret + after
    result = redact(text)
    assert result.text == before + mark(len(secret)) + after, text
    assert result.count == 1
    assert redact(result.text) == Redaction(result.text, 0)


def test_quoted_password_is_value() -> None:
    assert redact('the passphrase is "correct horse"').text == f'the passphrase is "{mark(13)}"'


@pytest.mark.parametrize(
    "line",
    [
        "the password is changed monthly",
        "the password is changed.",
        "the password is expired",
        "the password is weak",
        "the password is the same as before",
        "the password is in 1Password",
        "the password is kept in the vault",
        "the password is 12 characters long",
        "the password is rotating weekly",
        "My password is $WIFI_PASSWORD",
        "the password is <ask the admin>",
        "the password is ********",
        "the password is None",
        "the password is",
        "1Password is great",
        "secret: ${VAULT_SECRET}",
        "secret=None",
        "secret: <your secret>",
        "secret: ***",
        "secret: she hates cilantro",
        "secret: surprise party",
        "pwd: /Users/maciej",
        "pwd: ~/code/project",
        "token: expired",
        "token: regenerated monthly by the CI job",
        "token: unlimited",
        "access_token: required",
        "password: required",
        "secret: unknown",
        "token=$GITHUB_TOKEN",
        "token=undefined",
        "the API key: rotate it monthly",
        "private key: stored in the keychain",
        "https://user:${DB_PASS}@db.internal",
        "http://localhost:8080/api?next=a@b",
    ],
)
def test_references_and_prose_still_untouched(line: str) -> None:
    assert redact(line) == Redaction(line, 0), line


# ------------------------------------------ entries survive redaction (property)

from datetime import date as _date  # noqa: E402

from omb_tui.core.memory.entries import format_dated_entry, parse_entries  # noqa: E402

# One-line secrets (no private key blocks: a fact is one line).
ONE_LINE_SECRETS = [
    before.strip("\r\n") + secret + after.rstrip("\r\n")
    for _, before, secret, after in CASES
    if "\n" not in before.strip("\r\n") + secret + after.rstrip("\r\n")
] + [
    "wifi password: Tulip77",
    "password=hunter2",
    "secret: hunter2",
    "the password is hunter2",
    "my password is swordfish",
    "https://admin:S3cret!@example.com",
    "API key: 12345abcdef67890",
    "token=abcdefghij",
    "passphrase: correct horse battery staple",
    "password: «redacted 7 chars»",
]
PROSE_BITS = ["", "note", "the guest wifi", "see the vault", "(ask Bob)", "x", "'", '"', "~", "|", ",", "é 日本"]
SOURCES = [None, 'chat "Follow-up"', 'room "Launch"', "tidy-up", "learned by Scout"]
days = st.dates(min_value=_date(2000, 1, 1), max_value=_date(2099, 12, 31))


@st.composite
def secret_facts(draw: st.DrawFn) -> str:
    before = draw(st.sampled_from(PROSE_BITS))
    secret = draw(st.sampled_from(ONE_LINE_SECRETS))
    after = draw(st.sampled_from(PROSE_BITS))
    glue = draw(st.sampled_from([" ", "; ", ": ", ", "]))
    return glue.join(part for part in (before, secret, after) if part)


def _one(text: str):
    entries = [e for e in parse_entries(text) if e.is_bullet]
    assert len(entries) == 1, text
    return entries[0]


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(secret_facts(), days, st.sampled_from(SOURCES), st.one_of(st.none(), days), days)
def test_redacted_entry_keeps_its_dates(
    fact: str, day: _date, source: str | None, until: _date | None, later: _date
) -> None:
    try:
        line = format_dated_entry(day, fact, source=source, until=until)
    except ValueError:
        assume(False)
    before = _one(line)
    out = redact(line).text
    after = _one(out)
    assert (after.kind, after.day, after.source, after.until) == (before.kind, day, before.source, until), out
    assert redact(out).text == out

    struck = f"- ~~{fact}~~ · superseded {later.isoformat()}"
    assert _one(struck).superseded == later
    got = _one(redact(struck).text)
    assert (got.kind, got.superseded) == ("dated", later), redact(struck).text

    moved = f"{line} · moved {later.isoformat()}"
    assert _one(moved).moved == later
    got = _one(redact(moved).text)
    assert (got.day, got.source, got.until, got.moved) == (day, before.source, until, later), redact(moved).text


# ------------------------------------------------ claimed kinds in their current forms

DISCORD_MODERN = "MTE" + "2FAKE0example1NOTreal2x" + "." + "GFake1" + "." + "Fake0Discord1Example2NOT3real4token56"
TELEGRAM = "123456789:" + "AA" + "FAKE0telegram1_-FAKE0telegram1_-F"
GITHUB_SPLIT = ("gh" + "p_" + "FAKE0example1NOT2", "real3token4FAKE0ex1")  # 36 characters after ghp_, split in two


@pytest.mark.parametrize(
    ("before", "secret", "after"),
    [
        # A modern Discord bot token: its last part has 38 characters, not 27.
        ("discord bot ", DISCORD_MODERN, " in .env"),
        # A Telegram token inside the Bot API's URL: "bot" is glued to its digits.
        ("https://api.telegram.org/bot", TELEGRAM, "/sendMessage?chat_id=42"),
        # A URL password holding "/" or "?": all of it up to the "@" before the host.
        ("https://user:", "pa/ss?wd", "@host.example.com/x"),
        ("postgres://app:", "Fake/Pass?9", "@db.internal:5432/app"),
        # A zero-width character inside a key is part of the key.
        ("key ", "AK" + "IA" + "FAKE\u200bEXAMPLE01234", " please"),
        ("key ", "AK" + "IA" + "FAKEEXAM\u2060PLE01234", ""),
        ("push with ", "gh" + "p_" + "FAKE0example1\u200dNOT2real3token4FAKE0ex1", " please"),
        # A key cut by a line break, its tail on the next line with no space before it.
        ("push with ", GITHUB_SPLIT[0] + "\n" + GITHUB_SPLIT[1], "\nthanks"),
        ("push with ", GITHUB_SPLIT[0] + "\r\n" + GITHUB_SPLIT[1], " please"),
        ("key ", "AK" + "IA" + "FAKEEX\n" + "AMPLE01234", "\nok"),
    ],
)
def test_claimed_kinds_in_their_current_forms_are_redacted(before: str, secret: str, after: str) -> None:
    text = before + secret + after
    result = redact(text)
    assert result.text == before + mark(len(secret)) + after, text
    assert redact(result.text) == Redaction(result.text, 0)


@pytest.mark.parametrize(
    "text",
    [
        # A port and a path are not a password, whatever the query holds.
        "https://example.com:8080/path?email=bob@example.com",
        "see http://localhost:3000/login?next=/a@b",
        # A line that ends in a word and a next line that starts with one are two words.
        "push with the key\nFAKE0example1 is a test id",
        "the hash 3f9a2b1c4d5e6f708192a3b4c5d6e7f809a1b2c3\nv2 released",
        # Zero-width characters in ordinary words stay.
        "zero\u200bwidth joiner in a word, and a BOM \ufeffhere",
    ],
)
def test_forms_near_the_claimed_kinds_stay(text: str) -> None:
    assert redact(text) == Redaction(text, 0)


def test_a_key_cut_by_a_line_break_keeps_the_next_line_when_it_is_prose() -> None:
    text = "push with " + GITHUB_SPLIT[0] + GITHUB_SPLIT[1] + "\nplease"
    assert redact(text).text == "push with " + mark(40) + "\nplease"
