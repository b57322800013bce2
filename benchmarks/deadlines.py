"""How long each model call path takes to answer against a server that trickles its answer, beside its deadline.

The server is the tests' scripted one (tests/support/fake_llm.py) on 127.0.0.1, sending every answer a byte every 0.2 s (a
whole answer would take two minutes). For each path it prints the deadline, the time to the answer (the command's
own outcome: words alone, a refused call, one sentence) and the time over the deadline; then `uptime`'s load,
since a loaded machine adds its own delay. The paths: `omb-tui index` (an embeddings batch, the instance's timeout),
recall and `omb-tui search` (a query's vector, 300 ms), a chat call whole and streamed, and `omb-tui models test`
(the instance's timeout). Each row also says whether the server saw the client hang up (the connection closed).

    .venv/bin/python benchmarks/deadlines.py [--timeout 5]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from in_venv import run_in_venv  # noqa: E402

run_in_venv()
sys.path.insert(0, str(ROOT / "tests"))  # the scripted server and the test home live with the tests

from support.capture import make_chat  # noqa: E402
from support.fake_llm import start  # noqa: E402
from support.home import make_bot  # noqa: E402

from omb_tui.cli import main as omb  # noqa: E402
from omb_tui.core.files.paths import Home  # noqa: E402
from omb_tui.core.models.call import ModelUnavailable, complete  # noqa: E402
from omb_tui.core.models.embeddings import QUERY_DEADLINE_S  # noqa: E402
from omb_tui.core.recall.meaning import forget_query_vectors  # noqa: E402
from omb_tui.core.recall.recall import recall  # noqa: E402

TRICKLE = {"trickle": 0.2}


def quietly(*argv: str) -> tuple[int, str]:
    """An omb-tui command in this process; its exit code and what it printed, on one line."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = omb(list(argv))
    return code, " ".join((out.getvalue() + err.getvalue()).split())


def chat(home: Home) -> str:
    try:
        complete(home, "scout", "capture", [{"role": "user", "content": "Any notes?"}])
    except ModelUnavailable as problem:
        return problem.reason
    return "answered"


def said(outcome: str) -> str:
    """The sentence about the instance in what a path printed (the rest is the path's usual report)."""
    return outcome[outcome.find("instance '") :] if "instance '" in outcome else outcome[:90]


def hung_up(fake, before: int) -> str:
    """Whether the server saw the client close the trickled connection (it notices at its next byte)."""
    give_up = time.monotonic() + 5
    while len(fake.hostile) == before and time.monotonic() < give_up:
        time.sleep(0.05)
    return "closed" if fake.hostile[before:] and "cut by the client" in fake.hostile[before:] else "still open"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5.0, help="the instances' timeout, in seconds")
    args = parser.parse_args()
    fake, stop = start()
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder) / "home")
        make_bot(home)
        make_chat(home, [("I am thrilled about the Lisbon offsite!", "Me too.")], hours_ago=30)
        spec = {"model": "openai/qwen3-8b", "api_base": fake.api_base, "timeout": args.timeout}
        instances = {
            "local": spec,
            "streamed": {**spec, "stream": True},
            "vectors": {"model": "openai/mini-embed", "api_base": fake.api_base, "timeout": args.timeout},
        }
        config = {"instances": instances, "helper": {"instanceId": "local"}, "embeddings": {"instanceId": "vectors"}}
        home.config_path.write_text(json.dumps(config), encoding="utf-8")
        root = str(home.root)
        quietly("--home", root, "index", "scout")  # every vector made at once, litellm loaded: the rows time calls
        paths = [
            ("index (a batch of vectors)", args.timeout, lambda: quietly("--home", root, "index", "scout")[1]),
            ("recall (a query's vector)", QUERY_DEADLINE_S, lambda: recall(home, "scout", "excited?").log_line),
            (
                "search (a query's vector)",
                QUERY_DEADLINE_S,
                lambda: quietly("--home", root, "search", "scout", "thrilled offsite")[1],
            ),
            ("chat, whole", args.timeout, lambda: chat(home)),
            ("models test", args.timeout, lambda: quietly("--home", root, "models", "test", "local")[1]),
        ]
        print(f"A server sending a byte every {TRICKLE['trickle']} s; each path's time to answer against its deadline.")
        print(f"{'path':<28} {'deadline':>9} {'answered':>9} {'over':>7}  connection  outcome")
        for name, deadline, run in paths:
            forget_query_vectors()
            if name.startswith("index"):
                fake.script_embeddings(TRICKLE)
                _drop_vectors(home)
            elif name.startswith(("recall", "search")):
                fake.script_embeddings(TRICKLE)
            else:
                fake.script(TRICKLE)
            before = len(fake.hostile)
            started = time.monotonic()
            outcome = run()
            took = time.monotonic() - started
            print(
                f"{name:<28} {deadline:>8.1f}s {took:>8.2f}s {took - deadline:>+6.2f}s  {hung_up(fake, before):<10}  "
                f"{said(outcome)}"
            )
        streamed = dict(config, helper={"instanceId": "streamed"})
        home.config_path.write_text(json.dumps(streamed), encoding="utf-8")
        fake.script(TRICKLE)
        before, started = len(fake.hostile), time.monotonic()
        outcome = chat(home)
        took = time.monotonic() - started
        print(
            f"{'chat, streamed':<28} {args.timeout:>8.1f}s {took:>8.2f}s {took - args.timeout:>+6.2f}s  "
            f"{hung_up(fake, before):<10}  {said(outcome)}"
        )
    stop()
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


def _drop_vectors(home: Home) -> None:
    """The index's vectors dropped, so `index` has a batch to ask for."""
    import sqlite3

    for path in (home.root / "index").glob("*.sqlite"):
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            for table in ("message_vectors", "note_vectors"):
                if table in tables:
                    db.execute(f"DELETE FROM {table}")


if __name__ == "__main__":
    os.environ.setdefault("OMB_TUI_LOG_LEVEL", "WARNING")
    main()
