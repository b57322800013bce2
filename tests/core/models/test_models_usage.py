"""Usage rows, `omb-tui usage` (text, --json, --csv) and the monthly spend limit (docs/models.md)."""

from __future__ import annotations

import csv
import io
import json
import stat
from datetime import UTC, datetime, timezone

import pytest
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.core.base import clock
from omb_tui.core.memory.settings import update_bot_settings
from omb_tui.core.models.call import ModelUnavailable, complete
from omb_tui.core.models.usage import REPORT_FIELDS, ROW_FIELDS, read_usage, usage_path

pytestmark = pytest.mark.dates

HELLO = [{"role": "user", "content": "hello"}]
ISSUE_ROW_FIELDS = [
    "at",
    "bot",
    "job",
    "instance",
    "model",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "ok",
    "triggered_by",
]


def this_month() -> str:
    return clock.now_utc().strftime("%Y-%m")


def priced_helper(home, fake, **fields):
    """The helper on a model litellm has a price for (gpt-4o-mini), served by the fake."""
    write_llm_config(
        home,
        fake,
        helper={"instanceId": "mini"},
        instances={"mini": {"model": "openai/gpt-4o-mini", "api_base": fake.api_base}},
        **fields,
    )


def seed_row(home, month: str, cost: float) -> None:
    path = usage_path(home, month)
    path.parent.mkdir(parents=True, exist_ok=True)
    row = {
        "at": f"{month}-01T00:00:00.000+00:00",
        "bot": "scout",
        "job": "capture",
        "instance": "mini",
        "model": "openai/gpt-4o-mini",
        "prompt_tokens": 1,
        "completion_tokens": 1,
        "cost_usd": cost,
        "ok": True,
        "triggered_by": "Helper model",
        "cost": "litellm",
        "duration_ms": 1,
        "attempts": 1,
        "error": None,
    }
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row) + "\n")


def test_every_call_failed_ones_included_is_one_private_row(llm_home, fake_llm):
    fake_llm.script("fine", {"status": 401})
    complete(llm_home, "scout", "capture", HELLO)
    with pytest.raises(ModelUnavailable):
        complete(llm_home, "scout", "tidy", HELLO)
    rows = read_usage(llm_home, this_month())
    assert [(r["job"], r["ok"]) for r in rows] == [("capture", True), ("tidy", False)]
    first, failed = rows
    assert list(first) == list(ROW_FIELDS)
    assert (first["bot"], first["instance"], first["model"], first["triggered_by"]) == (
        "scout",
        "local",
        "openai/qwen3-8b",
        "Helper model",
    )
    assert (first["prompt_tokens"], first["completion_tokens"]) == (12, 3)
    assert first["cost_usd"] is None and first["cost"] == "unknown"  # litellm has no price for a local model
    assert "401" in failed["error"] and failed["cost_usd"] == 0
    path = usage_path(llm_home, this_month())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_priced_model_records_litellms_cost(llm_home, fake_llm):
    priced_helper(llm_home, fake_llm)
    fake_llm.script({"content": "hi", "usage": (1000, 1000)})
    row = complete(llm_home, "scout", "capture", HELLO).usage_row
    assert row["cost"] == "litellm" and row["cost_usd"] > 0


def test_the_spend_limit_stops_the_next_call_before_it_is_sent(llm_home, fake_llm):
    priced_helper(llm_home, fake_llm, limits={"monthlySpendUsd": 0.000001})
    complete(llm_home, "scout", "capture", HELLO)  # this one costs more than the whole limit
    with pytest.raises(ModelUnavailable, match="the monthly spend limit is reached") as caught:
        complete(llm_home, "scout", "capture", HELLO)
    assert caught.value.via_helper  # helper calls stop at the limit too
    assert len(fake_llm.requests) == 1


def test_recorded_spend_this_month_counts_and_last_month_does_not(llm_home, fake_llm):
    seed_row(llm_home, "2001-01", 500.0)
    write_llm_config(llm_home, fake_llm, limits={"monthlySpendUsd": 20})
    complete(llm_home, "scout", "capture", HELLO)
    assert len(fake_llm.requests) == 1
    seed_row(llm_home, this_month(), 20.0)
    with pytest.raises(ModelUnavailable, match="spend limit"):
        complete(llm_home, "scout", "capture", HELLO)
    assert len(fake_llm.requests) == 1


def test_a_bots_own_instance_is_stopped_by_the_limit_too(llm_home, fake_llm):
    write_llm_config(llm_home, fake_llm, limits={"monthlySpendUsd": 0})
    update_bot_settings(llm_home, "scout", instance="local")
    with pytest.raises(ModelUnavailable, match="spend limit"):
        complete(llm_home, "scout", "chat", HELLO)
    assert fake_llm.requests == []


def test_usage_json_has_the_rows_and_the_total(run_cli, llm_home, fake_llm):
    priced_helper(llm_home, fake_llm)
    complete(llm_home, "scout", "capture", HELLO)
    seed_row(llm_home, this_month(), 1.5)
    result = run_cli("usage", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert list(data["rows"][0])[:10] == ISSUE_ROW_FIELDS
    assert data["total_cost_usd"] == pytest.approx(1.5 + data["rows"][0]["cost_usd"])
    assert data["totals"] == [
        {
            "bot": "scout",
            "model": "openai/gpt-4o-mini",
            "calls": 2,
            "failed": 0,
            "prompt_tokens": 13,
            "completion_tokens": 4,
            "cost_usd": pytest.approx(data["total_cost_usd"]),
            "unknown_cost": 0,
            "plan_calls": 0,
            "plan_cost_usd": 0.0,
        }
    ]
    assert data["plan_cost_usd"] == 0


def test_usage_csv_has_the_same_columns(run_cli, llm_home, fake_llm):
    fake_llm.script("fine", {"status": 500}, {"status": 500}, {"status": 500})
    complete(llm_home, "scout", "capture", HELLO)
    with pytest.raises(ModelUnavailable):
        complete(llm_home, "scout", "capture", HELLO)
    result = run_cli("usage", "--csv")
    table = list(csv.DictReader(io.StringIO(result.out)))
    assert list(table[0]) == list(REPORT_FIELDS) and list(REPORT_FIELDS)[:10] == ISSUE_ROW_FIELDS
    assert REPORT_FIELDS[: len(ROW_FIELDS)] == ROW_FIELDS  # the engines' columns come after every earlier one
    assert [(r["ok"], r["cost_usd"], r["cost"], r["triggered_by"]) for r in table] == [
        ("true", "", "unknown", "Helper model"),
        ("false", "0.0", "no answer", "Helper model"),
    ]


def test_usage_text_filters_by_bot_and_month(run_cli, llm_home, fake_llm):
    from support.home import make_bot

    make_bot(llm_home, "ledger", "Ledger")
    complete(llm_home, "scout", "capture", HELLO)
    complete(llm_home, "ledger", "tidy", HELLO)
    text = run_cli("usage", "--bot", "ledger")
    assert text.code == 0 and "tidy" in text.out and "capture" not in text.out
    assert "cost unknown" in text.out and "Totals for" in text.out
    assert ": 1 call, 0 failed, $" in text.out
    assert "No model calls in 2001-02." in run_cli("usage", "--month", "2001-02").out


@pytest.mark.parametrize(
    "argv", [("usage", "--month", "2026-13"), ("usage", "--json", "--csv"), ("usage", "--bot", "not a bot id")]
)
def test_usage_bad_input_is_one_sentence(run_cli, argv):
    result = run_cli(*argv)
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err
