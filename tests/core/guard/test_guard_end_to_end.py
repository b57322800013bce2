"""The nightly guard end to end (docs/guard.md), run as cron and a person would: the installed `omb-tui` on the
demo home with the scripted model (tests/support/fake_llm.py on 127.0.0.1). The person confirms last night's capture in
the Review area (`review --mark`, what the app's `m` does); tonight's compaction deletes that fact as `ephemeral`,
which its validator lets pass; the guard undoes the whole run, the Review area says why, and `omb-tui check scout`
finds every probe's fact again."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest
from support.fake_llm import fake_llm  # noqa: F401 (the fixture)
from support.guard_helpers import EMPTY, step_of

from omb_tui.core.base import clock
from omb_tui.core.files.paths import Home
from omb_tui.core.memory.entries import format_dated_entry
from omb_tui.demo.night import SCOUT_CAPTURE_CHAT, SCOUT_CAPTURE_FACT

pytestmark = pytest.mark.dates


def confirmed_line(demo_today: date) -> str:
    """The fact last night's capture saved in the demo (demo/night.py): dated the day before the demo's today."""
    day = demo_today - timedelta(days=1)
    return format_dated_entry(day, SCOUT_CAPTURE_FACT, f'chat "{SCOUT_CAPTURE_CHAT}"', noticed=True) + "\n"


def written_demo(run_exe, home: Home, env: dict) -> str:
    """`omb-tui demo` on the suite's clock; the confirmed fact's line as that demo wrote it (its today is the
    clock's day when it ran: the day before it began or the day after it ended, if a midnight fell in between)."""
    before = clock.today()
    assert run_exe("demo", "--home", str(home.root), env=env).returncode == 0
    memory = (home.workspace("scout") / "MEMORY.md").read_text(encoding="utf-8")
    lines = [confirmed_line(day) for day in sorted({before, clock.today()})]
    (line,) = [line for line in lines if line in memory]
    return line


def scripted(fake, confirmed: str) -> None:
    """Probes: each fact's first four words; compaction: the confirmed fact is `ephemeral`; the rest: nothing."""

    def next_reply() -> dict:
        body = fake.requests[-1].body
        step = step_of(body)
        if step == "probes":
            listing = body["messages"][-1]["content"]
            facts = re.findall(r"^(\d+)\. (.+)$", listing, re.MULTILINE)
            probes = [{"n": int(n), "probe": " ".join(fact.split()[:4])} for n, fact in facts]
            return {"content": json.dumps({"probes": probes})}
        if step == "changes":
            change = {"category": "ephemeral", "original": confirmed, "reason": "The invoices went back already."}
            return {"content": json.dumps({"changes": [change]})}
        return {"content": json.dumps(EMPTY.get(step or "", {}))}

    fake.next_reply = next_reply


def files_of(home: Home, bot: str) -> dict[str, bytes]:
    root = home.workspace(bot)
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.md")) if "log" not in p.parts}


def test_a_night_deleting_a_confirmed_fact_is_undone_by_the_guard_on_the_demo_home(tmp_path, run_exe, fake_llm):
    home = Home(tmp_path / "demo")
    env = {"OMB_HOME": str(home.root)}
    confirmed = written_demo(run_exe, home, env)
    config = json.loads(home.config_path.read_text()) if home.config_path.exists() else {}
    config["instances"] = {"local": {"model": "openai/qwen3-8b", "api_base": fake_llm.api_base, "timeout": 10}}
    config["helper"] = {"instanceId": "local"}
    home.config_path.write_text(json.dumps(config))
    assert run_exe("compact", "scout", "--nightly", "on", "--propose-only", "off", env=env).returncode == 0
    assert confirmed in (home.workspace("scout") / "MEMORY.md").read_text(encoding="utf-8")

    # the day before: the person goes through last night's run of scout in the Review area
    marked = run_exe("review", "--bot", "scout", "--mark", "--json", env=env)
    assert marked.returncode == 0 and json.loads(marked.stdout)["marked"]["scout"]
    scripted(fake_llm, confirmed)
    before = files_of(home, "scout")

    night = run_exe("upkeep", "--due", "--json", env=env)
    assert night.returncode == 0, night.stderr.decode()
    scout = next(row for row in map(json.loads, night.stdout.decode().splitlines()) if row["bot"] == "scout")

    assert scout["compact"]["applied"] and scout["guard"]["undone"], json.dumps(scout["guard"], indent=1)
    assert scout["guard"]["failed"] == (
        'the probe "Invoices sent back to" no longer finds "Invoices sent back to Acme go with a short note, and '
        'Dana i…"'
    )
    assert files_of(home, "scout") == before  # the whole run undone: every file byte for byte as before it
    undo_rows = [json.loads(line) for line in home.journal_path("scout").read_text().splitlines()][-1:]
    assert (undo_rows[0]["who"], undo_rows[0]["how"], undo_rows[0]["step"]) == ("Memory upkeep", "undo", "guard")

    listed = json.loads(run_exe("review", "--bot", "scout", "--since", "1d", "--json", env=env).stdout)
    (run,) = [run for run in listed["bots"][0]["runs"] if run["id"] == scout["run"]]
    assert run["undone"] and run["guard"].startswith("guard: run undone by the guard: the probe ")
    plain = run_exe("upkeep", "--due", env=env)  # nothing more is due tonight
    assert plain.returncode == 0

    checked = run_exe("check", "scout", "--json", env=env)
    assert checked.returncode == 0
    probes = json.loads(checked.stdout)
    assert probes["total"] >= 1 and probes["finding"] == probes["total"]
    assert any(probe["fact"].startswith("Invoices sent back to Acme") for probe in probes["probes"])
