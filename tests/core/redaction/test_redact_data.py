"""Redaction of decoded values, of a model's raw answer and of log lines (omb_tui/core/redaction/data.py).

Spec "Where it lives": credentials are redacted before they reach disk, whatever hides them. Every credential of
the corpus (tests/support/credential_corpus_data.py) is tried in each escaped form a JSON or YAML string can give it.
"""

from __future__ import annotations

import io
import json
import logging

import pytest
from support.credential_corpus_data import CREDENTIALS, Credential, escaped_forms
from support.decoding import fully_decoded

from omb_tui.core.compact.records import append_attempt, compact_files
from omb_tui.core.files.disk import write_private_json
from omb_tui.core.redaction.data import RedactLogRecords, decode_escapes, redact_answer, redact_data
from omb_tui.core.redaction.redact import mark

AWS_KEY = "AK" + "IA" + "FAKEEXAMPLE01234"
IDS = [f"{i}-{c.kind}" for i, c in enumerate(CREDENTIALS)]


def leaks(credential: Credential, out: str) -> bool:
    """The secret, or any 8 characters of it (that the note's own words do not hold), in the text as written or
    as decoded."""
    secret, context = credential.secret, credential.before + "\n" + credential.after
    pieces = {secret} | {secret[i : i + 8] for i in range(len(secret) - 7)}
    pieces = {piece for piece in pieces if piece not in context}
    return any(piece in text for piece in pieces for text in (out, fully_decoded(out)))


# ----- decoded values -----
def test_every_text_of_a_structure_is_redacted_keys_too_and_nothing_else_changes():
    data = {
        "note": f"merged, the key {AWS_KEY} was old",
        AWS_KEY: 1,
        "n": 3,
        "ok": True,
        "none": None,
        "list": ["plain", f"use {AWS_KEY}", {"deep": [AWS_KEY]}],
    }
    out = redact_data(data)
    assert AWS_KEY not in json.dumps(out)
    assert out["note"] == f"merged, the key {mark(20)} was old"
    assert out["n"] == 3 and out["ok"] is True and out["none"] is None and out["list"][0] == "plain"
    assert redact_data(out) == out


def test_a_value_under_a_secret_key_is_judged_with_its_key():
    # Alone, "hunter2" is a word; under "password" it is a password, as in the note "password: hunter2".
    out = redact_data({"password": "hunter2", "db_token": "Tulip77Tulip77", "title": "hunter2"})
    assert out == {"password": mark(7), "db_token": mark(14), "title": "hunter2"}
    assert redact_data({"password_policy": "at least 12 characters"}) == {"password_policy": "at least 12 characters"}


def test_a_decoded_value_is_caught_where_its_json_text_hid_it():
    value = 'aws_secret_access_key = "FAKEkey0example1NOT2real3wJalrXUtn/K7MD"'
    written = json.dumps({"title": value})  # the quotes become \", which split the value from its key
    assert "FAKEkey0example1NOT2real3wJalrXUtn/K7MD" in written
    assert "FAKEkey0" not in json.dumps(redact_data({"title": value}))


def test_every_json_file_the_project_writes_is_redacted_once_decoded(home):
    path = home.root / "state.json"
    write_private_json(path, {"records": [{"reason": "\u0041KIA" + AWS_KEY[4:] + " is stale"}]})
    assert AWS_KEY not in path.read_text() and "KIAFAKE" not in fully_decoded(path.read_text())
    assert path.stat().st_mode & 0o777 == 0o600


# ----- a model's raw answer -----
@pytest.mark.parametrize("credential", CREDENTIALS, ids=IDS)
def test_each_credential_in_every_escaped_form_is_redacted_from_a_logged_answer(credential):
    for form, escaped in escaped_forms(credential).items():
        answers = {
            "json": f'{{"changes": [{{"category": "detail", "reason": "{escaped}"}}]}}',
            "cut short": f'Here you are: {{"changes": [{{"reason": "{escaped}',  # not JSON: never parses
            "prose": f"Noted:\n{escaped}\nThat is all.",
            "misquoted": f'He said "hi. {{"k": "{escaped}"}}',  # a stray quote pairs the literals wrongly
        }
        for shape, answer in answers.items():
            assert not leaks(credential, redact_answer(answer)), (form, shape)


def test_an_answer_without_escapes_is_kept_as_redacted_text():
    answer = '{"changes": [{"reason": "dup\\nline", "original": "x"}]}'
    assert redact_answer(answer) == answer  # nothing hidden: the escapes stay as the model wrote them
    hidden = '{"reason": "the key \\u0041KIAFAKEEXAMPLE01234"}'
    assert redact_answer(hidden) == '{"reason": "the key «redacted 20 chars»"}'


def test_decoding_leaves_surrogates_and_control_characters_escaped():
    assert decode_escapes("\\ud800 \\u0000 \\b \\u0041 \\/") == "\\ud800 \\u0000 \\b A /"
    out = redact_answer('{"r": "\\ud800 \\u0041KIAFAKEEXAMPLE01234"}')
    assert "\\ud800" in out and AWS_KEY not in out
    out.encode("utf-8")  # writable as it is


def test_attempts_log_keeps_no_escaped_credential(home):
    for number, credential in enumerate(CREDENTIALS):
        forms = list(escaped_forms(credential).values())
        answer = json.dumps({"changes": [{"reason": "see below"}]})[:-1] + ', "x": "' + '", "y": "'.join(forms) + '"}'
        append_attempt(home, "scout", "run-1", number, answer, [f'Change 1: "{forms[0]}" is not in MEMORY.md'])
    text = compact_files(home, "scout").attempts_log.read_text(encoding="utf-8")
    attempts = text.split("\n--- ")  # one per credential, in order (a piece of one secret may be another's word)
    assert len(attempts) == len(CREDENTIALS)
    assert [c.kind for c, attempt in zip(CREDENTIALS, attempts) if leaks(c, attempt)] == []


# ----- log lines -----
def test_a_log_line_is_redacted_by_the_handler_filter():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactLogRecords())
    logger = logging.getLogger("omb_tui.test_redact_data")
    logger.addHandler(handler)
    try:
        logger.error("the provider said: %s", '{"error": "bad key \\u0041KIAFAKEEXAMPLE01234"}')
        try:
            raise ValueError(f"echoed {AWS_KEY}")
        except ValueError:
            logger.exception("a call failed")
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert "the provider said" in written and "a call failed" in written and "Traceback" in written
    assert "KIAFAKEEXAMPLE" not in written
