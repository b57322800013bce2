"""The owner's serve token: a prefix that tells it apart (and lets redaction find it alone in a text), while a token
made before the prefix keeps opening the home."""

from __future__ import annotations

import secrets

from omb_tui.core.people.owner_token import load_or_create_token, token_matches, token_path
from omb_tui.core.redaction.redact import mark, redact


def test_a_new_token_has_the_owner_prefix(home):
    token = load_or_create_token(home)
    assert token.startswith("ombo_")
    assert len(token) > 40 and load_or_create_token(home) == token


def test_a_token_made_before_the_prefix_still_opens_the_home(home):
    old = secrets.token_urlsafe(32)
    token_path(home).write_text(old + "\n", encoding="ascii")
    token_path(home).chmod(0o600)
    assert load_or_create_token(home) == old
    assert token_matches(old, load_or_create_token(home))


def test_the_token_alone_in_a_text_is_redacted(home):
    token = load_or_create_token(home)
    for before, after in [("", ""), ("curl -H 'X: ", "' http://127.0.0.1:8080/"), ("it is ", ", keep it safe")]:
        assert redact(before + token + after).text == before + mark(len(token)) + after
