"""`omb-tui demo`: a realistic sample home to try everything on (sample data: not part of the core).

Spec: memory.md as a whole. Five bots between them show every part of it:

- scout   a personal assistant: dated, noticed, until, struck and hand-written lines, topics (one with a broken
          header, one with a [[wikilink]]), an archive, daily logs of the last weeks and a journal of over two
          hundred rows (the bot during tasks, the person in Settings and in another editor, Memory upkeep, an
          import, a deleted log, an undo, a row that cannot be undone because its earlier text held a credential);
- ledger  bookkeeping, its MEMORY.md close to the budget (amber), with entries already moved to the archive;
- harbor  a project bot whose pasted hand-written rules fill the budget by themselves (red, lines not loaded);
- quill   memory switched off, its files still there for review;
- atlas   a small bot kept off the helper model, upkeep off.

Scout's, Ledger's and Harbor's histories have modules of their own (demo/scout.py with its daily logs in
demo/scout_logs.py, demo/ledger.py, demo/harbor.py); Quill's and Atlas's are short and stay here, beside `write_demo_home`.

Scout and Ledger share the team "Launch crew" (demo/team.py): accepted notes, one pinned, and a card Scout
proposed.

Last night (demo/night.py) one `upkeep --due` pass ran at 23:40 for the Review area and the bots screen's Night
column: Scout's capture (with its quotes) and tidy-up, Ledger's tidy-up and nightly compaction (two changes
applied), Harbor's first-week compaction kept as proposals.

No model is connected: config.json names no instance and no helper, so every model action (Send, the tidy-up's
contradictions, capture, organize, compaction) says in one line how to connect one, and a scripted model never
answers as if a model had (docs/models.md, "Connect a model").

Nothing is faked: each bot's history is a Story (demo/story.py), every change made through the core the way
the app makes it, by the actor who would have made it. The dates inside the files are relative to `today`, so the
demo always looks current; each journal row carries the simulated moment of its step, never later than the moment
the demo ran.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from ..core.base import clock
from ..core.files.disk import write_private_json
from ..core.files.paths import MEMORY_FILE, Home, MemoryInputError
from ..core.memory.settings import BotSettings, save_bot_settings
from .conversations import write_sample_conversations
from .harbor import harbor_history
from .ledger import ledger_history
from .scout import scout_history
from .story import TIDY_HOUR, Story, Topic
from .team import write_demo_team

DEMO_BOT_IDS = ("scout", "ledger", "harbor", "quill", "atlas")
# The bots with sample conversations.
CONVERSATION_BOT_IDS = ("scout", "ledger", "atlas")
PERSON_NAME = "Nadia"  # the person every demo bot works for, as About me names her


def write_demo_home(home: Home, today: date | None = None, *, now: datetime | None = None) -> list[str]:
    """Write the sample home and return its bot ids; refuse (writing nothing) when it would overwrite anything.

    `now` (default: the real time) is the latest moment a journal row may carry."""
    today = today or clock.today()
    now = (now or clock.now_utc()).astimezone(UTC)
    refuse_to_overwrite(home)
    # No model and no helper: the demo says how to connect one rather than show invented answers (docs/models.md).
    write_private_json(
        home.config_path,
        {
            "features": {"autoRecall": True, "roomMemoryCapture": False},
            "memory": {"captureQuietMs": 120_000, "tidyHour": TIDY_HOUR},
        },
    )
    for settings in demo_settings():
        save_bot_settings(home, settings)
    for bot_id in DEMO_BOT_IDS:
        story = Story(home, bot_id, today)
        _HISTORIES[bot_id](story)
        story.tell(now)
    _write_conversations(home, today)
    write_demo_team(home)  # after the conversations: Scout's card quotes the room
    return list(DEMO_BOT_IDS)


def refuse_to_overwrite(home: Home) -> None:
    """The demo only goes into a home that has none of what it writes: nothing of the person's is replaced."""
    for bot_id in DEMO_BOT_IDS:
        if home.has_bot(bot_id):
            raise MemoryInputError(
                f"{home.root} already holds a bot named {bot_id}; choose an empty folder with --home."
            )
    for path in (home.config_path, home.about_me_path, home.profile_learned_path):
        if path.exists():
            raise MemoryInputError(f"{home.root} already has its own {path.name}; choose an empty folder with --home.")


def demo_settings() -> list[BotSettings]:
    return [
        BotSettings(id="scout", name="Scout", engine="claude"),
        BotSettings(id="ledger", name="Ledger", engine="codex"),
        BotSettings(id="harbor", name="Harbor", engine="claude"),
        BotSettings(id="quill", name="Quill", engine="claude", memory=False),
        BotSettings(id="atlas", name="Atlas", engine="pi", upkeep=False, helper_model=False),
    ]


def _write_conversations(home: Home, today: date) -> None:
    # Roles map to bot ids; the sample room ("Launch") holds Scout and whichever bot plays "ledger".
    write_sample_conversations(home, {role: role for role in CONVERSATION_BOT_IDS}, today, person=PERSON_NAME)


# ----- Quill: memory switched off, its files kept for review -----
def _quill(s: Story) -> None:
    s.topics = {
        "style-guide.md": Topic(
            "Style guide",
            "How Nadia writes for the studio newsletter and blog",
            ("writing", "tone", "newsletter", "blog", "spelling"),
        )
    }
    s.write(
        70,
        MEMORY_FILE,
        "# Quill\n\n- Quill drafts Nadia's newsletter and blog posts.\n"
        "- British spelling, sentence-case headings, no exclamation marks.\n",
    )
    s.remember(
        65, "Newsletter", "The studio newsletter goes out on the first Tuesday of the month to about 420 readers"
    )
    s.note(
        60,
        "Newsletter",
        "style-guide.md",
        "Open with one concrete story from a project, never with news about the studio",
    )
    s.note(60, "Newsletter", "style-guide.md", "Links as plain words, never click here; at most five links an issue")
    s.remember(45, "Blog", "Nadia's posts run 600 to 900 words and end with one question to the reader")
    s.log(45, "11:40", "Blog", "Draft of the forgiving forms post: 840 words, three examples.", "docs.create")
    s.note(38, "Blog", "style-guide.md", "Client names only with written permission; otherwise a ferry company, a city")


# ----- Atlas: small, on a local model, kept off the helper -----
def _atlas(s: Story) -> None:
    s.topics = {
        "sources.md": Topic(
            "Sources", "Where Atlas looks first, and what Nadia trusts", ("references", "reading", "research", "papers")
        )
    }
    s.remember(20, "Reading list", "Nadia wants papers summarised in five bullets, with the method first")
    s.note(
        15,
        "Reading list",
        "sources.md",
        "Trusted on accessibility: WebAIM, the GOV.UK service manual, Nielsen Norman Group",
    )
    s.remember(10, "Studio standup", "Atlas posts the research digest in the standup on Mondays")
    s.remember(4, "Reading list", "Current question: how do ferry and airline apps handle changes after booking?")


# Each demo bot's history, told in the order of DEMO_BOT_IDS.
_HISTORIES: dict[str, Callable[[Story], None]] = {
    "scout": scout_history,
    "ledger": ledger_history,
    "harbor": harbor_history,
    "quill": _quill,
    "atlas": _atlas,
}
