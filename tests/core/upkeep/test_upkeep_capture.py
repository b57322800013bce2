"""Capture (docs/upkeep-capture.md): unread turns of the person's chats go to the model once; code checks every fact it
proposes and files only those that pass, journaled with the run's id.

Every model answer comes from the scripted OpenAI-compatible server in tests/support/fake_llm.py on 127.0.0.1.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

import pytest
from support.capture import PERSON_NAME, VEG, add_turns, answer, fact, make_chat, make_room
from support.fake_llm import fake_llm, llm_home, write_llm_config  # noqa: F401 - fixtures

from omb_tui.core.base import clock
from omb_tui.core.facts import checks
from omb_tui.core.facts.lines import BOT, OTHER_PERSON, PERSON, Line
from omb_tui.core.journal.journal import Journal
from omb_tui.core.memory import conversations as conv
from omb_tui.core.memory.memory_update import MemoryUpdate
from omb_tui.core.memory.settings import load_profile_learned, save_profile_learned, update_bot_settings
from omb_tui.core.models.instances import NO_MODEL_CONNECTED, is_no_model
from omb_tui.core.upkeep import capture_state as state
from omb_tui.core.upkeep.capture import capture

pytestmark = pytest.mark.dates

TODAY = clock.today()


def sent_text(fake_llm) -> str:
    return "\n".join(m["content"] for r in fake_llm.requests for m in r.body["messages"])


def memory(home) -> str:
    return (home.workspace("scout") / "MEMORY.md").read_text(encoding="utf-8")


# ----- the right answers -----
def test_right_answers_are_saved_in_the_exact_format_and_journaled_with_the_run_id(llm_home, fake_llm):
    make_chat(
        llm_home,
        [
            VEG,
            ("My sister Asha lives in Goa and we meet every March.", "Lovely."),
            ("Let's go with the Friday launch then.", "Friday it is."),
        ],
    )
    fake_llm.script(
        answer(
            fact("The person is vegetarian", ["I'm vegetarian"]),
            fact(
                "The person's sister Asha lives in Goa",
                ["My sister Asha lives in Goa"],
                target="memory/family.md",
                topic_title="Family",
                aliases=["sister", "Asha"],
            ),
            fact("The launch is on Friday", kind="decision", target="memory/travel.md"),
        )
    )
    result = capture(llm_home, "scout")

    assert [s.text for s in result.saved] == [
        "The person is vegetarian",
        "The person's sister Asha lives in Goa",
        "The launch is on Friday",
    ] and result.skipped == []
    assert result.turns_read == 3
    assert memory(llm_home).endswith(f'- {TODAY} · from chat "Plans" (noticed) · The person is vegetarian\n')
    family = (llm_home.workspace("scout") / "memory" / "family.md").read_text(encoding="utf-8")
    assert family == (
        '---\ntitle: "Family"\naliases: ["sister", "Asha"]\n---\n# Family\n\n'
        f'- {TODAY} · from chat "Plans" (noticed) · The person\'s sister Asha lives in Goa\n'
    )
    travel = (llm_home.workspace("scout") / "memory" / "travel.md").read_text(encoding="utf-8")
    assert travel.endswith(f'- {TODAY} · from chat "Plans" (noticed) · The launch is on Friday\n')
    rows = [r for r in Journal(llm_home.journal_path("scout")).rows() if r.run == result.run]
    assert sorted(r.file for r in rows) == ["MEMORY.md", "memory/family.md", "memory/travel.md"]
    assert {r.who for r in rows} == {"Memory upkeep"}


def test_a_core_fact_goes_through_the_archive_overflow_with_the_run_id(llm_home, fake_llm):
    full = "".join(f'- 2026-01-{1 + n % 28:02d} · from chat "Old" · old note {n}\n' for n in range(200))
    (llm_home.workspace("scout") / "MEMORY.md").write_text(full, encoding="utf-8")
    make_chat(llm_home, [VEG])
    fake_llm.script(answer(fact("The person is vegetarian", ["I'm vegetarian"])))
    result = capture(llm_home, "scout")
    archive = (llm_home.workspace("scout") / "memory" / "archive.md").read_text(encoding="utf-8")
    assert "old note 0 · moved" in archive and "old note 0\n" not in memory(llm_home)
    assert memory(llm_home).endswith("(noticed) · The person is vegetarian\n")
    rows = [r for r in Journal(llm_home.journal_path("scout")).rows() if r.run == result.run]
    assert sorted(r.file for r in rows) == ["MEMORY.md", "memory/archive.md"]


def test_the_model_sees_memory_the_topics_and_the_turns_as_labelled_lines(llm_home, fake_llm):
    make_chat(llm_home, [VEG])
    fake_llm.script(answer())
    capture(llm_home, "scout")
    body = fake_llm.requests[-1].body
    user = body["messages"][-1]["content"]
    assert "The person lives in Pune" in user and "- memory/travel.md — Travel" in user
    assert "[PERSON Milind] I'm vegetarian, by the way." in user and "[BOT scout] Noted" in user


def test_json_output_and_plain_lines_from_the_command(llm_home, fake_llm, run_cli):
    make_chat(llm_home, [VEG])
    fake_llm.script(
        answer(fact("The person is vegetarian", ["I'm vegetarian"]), fact("The person eats fish", ["I eat fish"]))
    )
    out = run_cli("capture", "scout", "--json")
    data = json.loads(out.out)
    assert out.code == 0 and data["turns_read"] == 1 and data["run"]
    assert [s["text"] for s in data["saved"]] == ["The person is vegetarian"]
    skipped = data["skipped"][0]
    assert skipped["text"] == "The person eats fish" and "not in what was said" in skipped["reason"]

    add_turns(conv.conversation_path(llm_home, "scout", "plans"), [("I moved to Delhi.", "Noted.")], hours_ago=1)
    fake_llm.script(answer(fact("The person moved to Delhi", ["I moved to Delhi"], target="memory/home.md")))
    plain = run_cli("capture", "scout")
    assert plain.out.splitlines()[0] == "saved to memory/home.md: The person moved to Delhi"
    assert plain.out.splitlines()[-1].startswith("1 turn read; run ")


def test_json_output_never_prints_a_skipped_facts_secret(llm_home, fake_llm, run_cli):
    key = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
    make_chat(llm_home, [VEG])
    fake_llm.script(answer(fact(f"The person's key is {key}", ["I'm vegetarian"])))
    out = run_cli("capture", "scout", "--json")
    skipped = json.loads(out.out)["skipped"]
    assert len(skipped) == 1 and "secret" in skipped[0]["reason"] and "«redacted" in skipped[0]["text"]
    assert key not in out.out + out.err
    add_turns(conv.conversation_path(llm_home, "scout", "plans"), [("I moved to Delhi.", "Noted.")], hours_ago=1)
    fake_llm.script(answer(fact(f"The person's key is {key}", ["I moved to Delhi"])))
    plain = run_cli("capture", "scout")
    assert "skipped: " in plain.out and key not in plain.out + plain.err


# ----- the checks, through the model's answers -----
@pytest.mark.parametrize(
    "proposed, reason",
    [
        (fact("The person is vegan", ["I'm vegan"]), "is not in what was said in these turns"),
        (fact("The person keeps it in mind", ["I'll keep that in mind"]), "the bot's own words"),
        (fact("The person is vegetarian", []), "none were quoted"),
        (fact("The person has been vegetarian for 12 years", ["I'm vegetarian"]), "\u201c12\u201d is not in"),
        (
            fact("The person's notes are in ~/notes/food.md", ["I'm vegetarian"]),
            "\u201c~/notes/food.md\u201d is not in",
        ),
        (fact("The person reads https://veg.example.org", ["I'm vegetarian"]), "https://veg.example.org"),
        (fact("The person's key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", ["I'm vegetarian"]), "secret"),
        (fact("The person is vegetarian", ["I'm vegetarian"], kind="opinion"), "is not fact, preference"),
        (fact("The person is vegetarian", ["I'm vegetarian"], target="memory/../x.md"), "not a valid topic name"),
        (fact("The person is vegetarian", ["I'm vegetarian"], target="memory/archive.md"), "the archive"),
    ],
)
def test_a_fact_that_fails_a_check_is_skipped_with_its_reason_and_never_saved(llm_home, fake_llm, proposed, reason):
    make_chat(llm_home, [VEG])
    before = memory(llm_home)
    fake_llm.script(answer(proposed))
    result = capture(llm_home, "scout")
    assert result.saved == [] and len(result.skipped) == 1 and reason in result.skipped[0].reason
    assert memory(llm_home) == before and not (llm_home.workspace("scout") / "memory" / "x.md").exists()
    assert result.turns_read == 1  # the answer was read: the turn is not sent again


@pytest.mark.parametrize(
    "said, quote, reason",
    [
        ("Which note-takers suit a 10-person startup?", "note-takers suit a 10-person startup", "a question"),
        ("Write a launch plan for an AI app.", "a launch plan for an AI app", "a task"),
        ("Suppose I lived in Berlin, what would rent cost", "I lived in Berlin", "a supposition"),
        ("Imagine I had three kids.", "I had three kids", "a supposition"),
        ("What if I quit my job", "I quit my job", "a supposition"),
        (
            "\u0647\u0644 \u0623\u0646\u0627 \u0646\u0628\u0627\u062a\u064a\u061f",  # Arabic: "am I vegetarian?"
            "\u0623\u0646\u0627 \u0646\u0628\u0627\u062a\u064a",
            "a question",
        ),
        (
            "\u79c1\u306f\u83dc\u98df\u4e3b\u7fa9\u8005\u3067\u3059\u304b\uff1f",  # Japanese, full-width mark
            "\u79c1\u306f\u83dc\u98df\u4e3b\u7fa9\u8005",
            "a question",
        ),
    ],
)
def test_questions_tasks_and_suppositions_are_never_facts_about_the_person(llm_home, fake_llm, said, quote, reason):
    make_chat(llm_home, [(said, "Here you go.")])
    fake_llm.script(answer(fact("The person " + quote, [quote], target="memory/about.md")))
    result = capture(llm_home, "scout")
    assert result.saved == [] and reason in result.skipped[0].reason


def test_a_statement_next_to_a_question_is_still_a_fact(llm_home, fake_llm):
    make_chat(llm_home, [("I'm vegetarian. Any good places near me?", "Try Green Leaf.")])
    fake_llm.script(answer(fact("The person is vegetarian", ["i'm   VEGETARIAN"])))  # case and spaces may differ
    assert [s.text for s in capture(llm_home, "scout").saved] == ["The person is vegetarian"]


def test_numbers_paths_and_urls_that_are_in_the_quotes_pass(llm_home, fake_llm):
    make_chat(
        llm_home, [("My budget is 1.5 lakh and the plan is at ~/plans/q3.md, see https://acme.example/q3", "Got it.")]
    )
    fake_llm.script(
        answer(
            fact(
                "The person's budget is 1.5 lakh; the plan is at ~/plans/q3.md (https://acme.example/q3)",
                ["My budget is 1.5 lakh and the plan is at ~/plans/q3.md, see https://acme.example/q3"],
                target="memory/budget.md",
            ),
            fact("The person's budget is 15 lakh", ["My budget is 1.5 lakh"], target="memory/budget.md"),
        )
    )
    result = capture(llm_home, "scout")
    assert [s.text for s in result.saved] == [
        "The person's budget is 1.5 lakh; the plan is at ~/plans/q3.md (https://acme.example/q3)"
    ]
    assert "\u201c15\u201d is not in the quoted words" in result.skipped[0].reason


def test_a_decision_needs_no_quote_but_its_numbers_must_be_in_the_turns(llm_home, fake_llm):
    make_chat(llm_home, [("Ok, ship version 2.4 on Friday.", "Shipping 2.4 on Friday.")])
    fake_llm.script(
        answer(
            fact("Version 2.4 ships on Friday", kind="decision", target="memory/launch.md"),
            fact("Version 3.0 ships on Friday", kind="decision", target="memory/launch.md"),
        )
    )
    result = capture(llm_home, "scout")
    assert [s.text for s in result.saved] == ["Version 2.4 ships on Friday"]
    assert "\u201c3.0\u201d is not in these turns" in result.skipped[0].reason


def test_words_the_person_asked_to_forget_are_never_learned_again(llm_home, fake_llm):
    MemoryUpdate(llm_home, "scout").forget("Asha")
    make_chat(llm_home, [("My sister Asha lives in Goa.", "Lovely.")])
    fake_llm.script(
        answer(
            fact("The person's sister Asha lives in Goa", ["My sister Asha lives in Goa"], target="memory/family.md")
        )
    )
    result = capture(llm_home, "scout")
    assert result.saved == [] and "asked to forget" in result.skipped[0].reason


def test_a_fact_already_known_or_proposed_twice_is_saved_once(llm_home, fake_llm):
    make_chat(llm_home, [("I live in Pune and I'm vegetarian.", "Noted.")])
    fake_llm.script(
        answer(
            fact("The person lives in Pune.", ["I live in Pune"]),
            fact("The person is vegetarian", ["I'm vegetarian"]),
            fact("The person is  vegetarian.", ["I'm vegetarian"]),
        )
    )
    result = capture(llm_home, "scout")
    assert [s.text for s in result.saved] == ["The person is vegetarian"]
    assert [s.reason for s in result.skipped] == ["it is already in MEMORY.md", "it is already in MEMORY.md"]


def test_an_until_date_is_kept_but_a_yearly_date_never_gets_one(llm_home, fake_llm):
    make_chat(llm_home, [("I'm in Lisbon until the 30th, and my birthday is on 3 March.", "Enjoy!")])
    until = (TODAY + timedelta(days=10)).isoformat()
    fake_llm.script(
        answer(
            fact("The person is in Lisbon", ["I'm in Lisbon until the 30th"], target="memory/travel.md", until=until),
            fact(
                "The person's birthday is on 3 March",
                ["my birthday is on 3 March"],
                target="memory/dates.md",
                until=until,
            ),
        )
    )
    result = capture(llm_home, "scout")
    assert [s.entry.endswith(f"until {until}") for s in result.saved] == [True, False]


def test_a_fact_that_would_not_read_back_as_written_is_skipped(llm_home, fake_llm):
    make_chat(llm_home, [("Ship it on 2030-01-01.", "Will do.")])
    fake_llm.script(
        answer(
            fact("Ship it · until 2030-01-01", kind="decision", target="memory/launch.md"),
            fact("It ships on 2030-01-01", kind="decision", target="memory/launch.md"),
        )
    )
    result = capture(llm_home, "scout")
    assert [s.text for s in result.saved] == ["It ships on 2030-01-01"]
    assert "could not be saved" in result.skipped[0].reason


# ----- answers that cannot be used, and no model -----
@pytest.mark.parametrize(
    "reply, tries",
    [
        ({"content": '{"facts": [{"text": "The person is vegetarian", '}, 1),  # broken JSON
        ({"status": 500}, 3),
        ({"status": 401}, 1),
    ],
)
def test_an_unusable_answer_reads_nothing_and_saves_nothing(llm_home, fake_llm, reply, tries):
    make_chat(llm_home, [VEG])
    before = memory(llm_home)
    fake_llm.script(*([reply] * tries))
    result = capture(llm_home, "scout")
    assert result.saved == [] and result.turns_read == 0 and result.reason
    assert memory(llm_home) == before
    fake_llm.script(answer(fact("The person is vegetarian", ["I'm vegetarian"])))
    again = capture(llm_home, "scout")  # the turn was not read: the next run reads it
    assert again.turns_read == 1 and "I'm vegetarian" in fake_llm.requests[-1].body["messages"][-1]["content"]


def test_a_slow_answer_reads_nothing(home, fake_llm, monkeypatch):
    from omb_tui.core.models import call, instances

    write_llm_config(
        home, fake_llm, instances={"local": {"model": "openai/qwen3-8b", "api_base": fake_llm.api_base, "timeout": 0.3}}
    )
    monkeypatch.setattr(call, "RETRY_POLICY", call.RetryPolicy(first_backoff_s=0))
    instances.forget_said()
    make_chat(home, [VEG])
    fake_llm.script(
        {"delay": 3, "content": json.dumps({"facts": [fact("The person is vegetarian", ["I'm vegetarian"])]})}
    )
    result = capture(home, "scout")
    assert result.saved == [] and result.turns_read == 0 and "within" in result.reason
    assert not state.ReadPositions(home, "scout").positions


def test_prose_around_the_json_is_read(llm_home, fake_llm):
    make_chat(llm_home, [VEG])
    fake_llm.script(
        {
            "content": "Here is what I found:\n```json\n"
            + json.dumps({"facts": [fact("The person is vegetarian", ["I'm vegetarian"])]})
            + "\n```\nHope that helps."
        }
    )
    assert [s.text for s in capture(llm_home, "scout").saved] == ["The person is vegetarian"]


def test_with_no_model_nothing_is_read_and_the_output_says_how_to_connect_one(home, fake_llm, run_cli):
    make_chat(home, [VEG])
    out = run_cli("capture", "scout", "--json")
    data = json.loads(out.out)
    assert data["turns_read"] == 0 and data["saved"] == [] and is_no_model(data["reason"])
    assert fake_llm.requests == [] and not state.ReadPositions(home, "scout").positions
    plain = run_cli("capture", "scout")
    assert plain.out.splitlines()[-1] == f"Nothing was read. {NO_MODEL_CONNECTED}"


def test_with_an_instance_but_none_for_the_bot_the_output_says_why(home, fake_llm, run_cli):
    make_chat(home, [VEG])
    write_llm_config(home, fake_llm, helper=None)
    data = json.loads(run_cli("capture", "scout", "--json").out)
    assert data["turns_read"] == 0 and "helper" in data["reason"] and fake_llm.requests == []


# ----- which turns -----
def test_turns_not_started_by_the_person_and_failed_turns_are_never_sent(llm_home, fake_llm):
    make_chat(
        llm_home,
        [
            ("I'm vegetarian.", "Noted."),
            {"person": "WEBHOOK: new order 4411 arrived", "bot": "Filed order 4411.", "origin": "webhook"},
            {"person": "HANDOFF: finish the report", "bot": "Report finished.", "origin": "handoff"},
            {"person": "My flat is in Baner.", "bot": "Sorry, something went wrong.", "failed": True},
            ("I prefer short replies.", "Sure."),
        ],
    )
    make_chat(
        llm_home,
        [{"person": "ROUTINE: summarise email", "bot": "23 emails.", "origin": "routine"}],
        chat_id="digest",
        title="Digest",
        started="routine",
    )
    make_chat(
        llm_home,
        [{"person": "BOTTASK: check invoices", "bot": "Checked.", "origin": "bot"}],
        chat_id="from-ledger",
        title="From ledger",
        started="bot",
    )
    fake_llm.script(answer())
    result = capture(llm_home, "scout")
    assert len(fake_llm.requests) == 1 and result.turns_read == 2
    sent = sent_text(fake_llm)
    assert "I'm vegetarian." in sent and "I prefer short replies." in sent
    for never in ("WEBHOOK", "4411", "HANDOFF", "Report finished", "Baner", "went wrong", "ROUTINE", "BOTTASK"):
        assert never not in sent


def test_a_turn_read_once_is_never_sent_again(llm_home, fake_llm):
    path = make_chat(llm_home, [VEG])
    fake_llm.script(answer())
    assert capture(llm_home, "scout").turns_read == 1
    assert capture(llm_home, "scout").turns_read == 0 and len(fake_llm.requests) == 1
    add_turns(path, [("I work at Acme.", "Noted.")], hours_ago=1)
    fake_llm.script(answer())
    assert capture(llm_home, "scout").turns_read == 1
    latest = fake_llm.requests[-1].body["messages"][-1]["content"]
    assert "I work at Acme." in latest and "vegetarian" not in latest


def test_a_turn_the_bot_has_not_answered_yet_waits(llm_home, fake_llm):
    path = make_chat(llm_home, [VEG])
    conv.append_message(path, conv.Message("person", PERSON_NAME, clock.now(), "And I live in Goa.", origin="person"))
    fake_llm.script(answer())
    assert capture(llm_home, "scout").turns_read == 1
    assert "Goa" not in sent_text(fake_llm)


def test_a_rewound_chat_reads_only_what_came_after(llm_home, fake_llm):
    path = make_chat(llm_home, [VEG, ("I work at Acme.", "Noted.")], hours_ago=3)
    fake_llm.script(answer())
    capture(llm_home, "scout")
    rewound = conv.read_conversation(path)
    rewound.messages = rewound.messages[:2]  # the second turn is taken back
    conv.write_conversation(path, rewound)
    add_turns(path, [("I work at Globex now.", "Noted.")], hours_ago=1)
    fake_llm.script(answer())
    assert capture(llm_home, "scout").turns_read == 1
    latest = fake_llm.requests[-1].body["messages"][-1]["content"]
    assert "Globex" in latest and "vegetarian" not in latest


def test_memory_or_upkeep_off_reads_nothing(llm_home, fake_llm):
    make_chat(llm_home, [VEG])
    update_bot_settings(llm_home, "scout", upkeep=False)
    assert capture(llm_home, "scout").reason == "memory upkeep is off for this bot"
    update_bot_settings(llm_home, "scout", upkeep=True, memory=False)
    assert capture(llm_home, "scout").reason == "the bot's memory is off"
    assert fake_llm.requests == []


# ----- About me -----
def test_a_lasting_fact_from_the_persons_own_words_also_goes_to_about_me(llm_home, fake_llm):
    make_chat(llm_home, [VEG, ("I'm allergic to peanuts.", "Noted.")])
    learned = load_profile_learned(llm_home)
    learned.learned.append(
        {"id": "abc", "text": "The person is allergic to peanuts", "bot": "scout", "at": "2026-01-01", "removed": True}
    )
    save_profile_learned(llm_home, learned)
    fake_llm.script(
        answer(
            fact("The person is vegetarian", ["I'm vegetarian"], about_me=True),
            fact("The person is allergic to peanuts", ["I'm allergic to peanuts"], about_me=True),
        )
    )
    result = capture(llm_home, "scout")
    about = llm_home.about_me_path.read_text(encoding="utf-8")
    assert f"- {TODAY} · learned by Scout · The person is vegetarian\n" in about
    assert "peanuts" not in about
    assert [s.about_me for s in result.saved] == [True, False]
    assert "removed it from About me" in result.skipped[0].reason
    rows = [r for r in Journal(llm_home.journal_path("scout")).rows() if r.file == "about-me.md"]
    assert rows and rows[-1].run == result.run


ROOM = [
    ("person", "Anna", "The launch moved to Friday."),
    ("person", "Milind", "I'm vegetarian, order accordingly."),
    ("bot", "ledger", "I guess the budget is 9000."),
    ("bot", "scout", "Noted: Friday, vegetarian food."),
    ("bot", "ledger", "Anyone there?"),
    ("bot", "scout", "Yes."),
]


def test_rooms_are_read_only_with_learn_from_group_chats_under_room_rules(llm_home, fake_llm):
    make_chat(llm_home, [("Hi.", "Hello.")])  # Milind talks with scout in a 1:1: his words are "the person's"
    make_room(llm_home, ROOM)
    fake_llm.script(answer())
    capture(llm_home, "scout")
    assert "Launch" not in sent_text(fake_llm)  # switch off: the room is never read

    write_llm_config(llm_home, fake_llm, features={"roomMemoryCapture": True})
    fake_llm.script(
        answer(
            fact("The launch moved to Friday", ["The launch moved to Friday"], target="memory/launch.md"),
            fact(
                "The person prefers Friday launches",
                ["The launch moved to Friday"],
                kind="preference",
                target="memory/launch.md",
            ),
            fact("The person is vegetarian", ["I'm vegetarian"], about_me=True),
        )
    )
    result = capture(llm_home, "scout")
    assert len(fake_llm.requests) == 2 and result.turns_read == 1  # the stretch with no person's words: skipped
    user = fake_llm.requests[-1].body["messages"][-1]["content"]
    assert "[OTHER PERSON Anna]" in user and "[PERSON Milind]" in user and "[OTHER BOT ledger]" in user
    assert "Anyone there?" not in user
    assert [s.text for s in result.saved] == ["The launch moved to Friday", "The person is vegetarian"]
    assert "another person's words" in result.skipped[0].reason
    assert "not added to About me" in result.skipped[1].reason and not llm_home.about_me_path.exists()
    assert memory(llm_home).endswith(f'- {TODAY} · from room "Launch" (noticed) · The person is vegetarian\n')


def test_a_room_fewer_people_can_see_than_the_bot_never_feeds_it(llm_home, fake_llm):
    write_llm_config(llm_home, fake_llm, features={"roomMemoryCapture": True})
    make_chat(llm_home, [("Hi.", "Hello.")])
    make_room(llm_home, ROOM, members=("Anna",))  # Milind, who talks with scout, is not in it
    fake_llm.script(answer())
    capture(llm_home, "scout")
    assert "Anna" not in sent_text(fake_llm)
    assert "fewer people can see it" in capture(llm_home, "scout", chat="launch").reason


# ----- when capture is due, and the pending file -----
def test_capture_is_due_after_quiet_or_six_turns_or_when_kept_at_shutdown(llm_home, fake_llm):
    write_llm_config(llm_home, fake_llm, memory={"captureQuietMs": 120_000})
    make_chat(llm_home, [VEG], hours_ago=0)  # just now: not quiet yet
    make_chat(llm_home, [VEG] * 6, chat_id="busy", title="Busy", hours_ago=0)
    make_chat(llm_home, [VEG], chat_id="old", title="Old", hours_ago=2)
    now = clock.now()
    assert sorted(state.capture_due(llm_home, "scout", now)) == ["busy", "old"]
    assert sorted(state.capture_due(llm_home, "scout", now + timedelta(minutes=30))) == ["busy", "old", "plans"]

    kept = state.note_pending_at_shutdown(llm_home, ["scout"])
    assert {i["conversation"] for i in kept} == {"busy", "old", "plans"}
    assert "vegetarian" not in state.pending_path(llm_home).read_text(encoding="utf-8")  # ids, never text
    assert oct(state.pending_path(llm_home).stat().st_mode & 0o777) == "0o600"
    assert sorted(state.capture_due(llm_home, "scout", now)) == ["busy", "old", "plans"]
    fake_llm.script(answer(), answer(), answer())
    capture(llm_home, "scout")
    assert state.capture_due(llm_home, "scout", now + timedelta(hours=1)) == [] and state.read_pending(llm_home) == []


def test_the_pending_file_keeps_at_most_fifty_chats_the_newest(home):
    state.write_pending(home, [{"bot": "scout", "conversation": f"c{n}"} for n in range(60)])
    kept = state.read_pending(home)
    assert len(kept) == 50 and kept[0]["conversation"] == "c10" and kept[-1]["conversation"] == "c59"
    state.drop_pending(home, "scout", "c59")
    assert len(state.read_pending(home)) == 49
    capture(home, "scout")  # none of those chats exists any more: nothing is left waiting
    assert state.read_pending(home) == [] and not state.pending_path(home).exists()


# ----- the check functions themselves -----
def lines(*texts, role=PERSON):
    return [Line(n, role, "Milind", t) for n, t in enumerate(texts)]


def test_quote_check_normalises_whitespace_and_case_only():
    said = lines("I'm  vegetarian,\nby the way.")
    assert checks.quote_problem("fact", ["i'm vegetarian, BY THE WAY"], said, in_room=False) is None
    assert checks.quote_problem("fact", ["Im vegetarian"], said, in_room=False)  # punctuation is not normalised
    assert checks.quote_problem("fact", ["I'm vegetarian"], lines("I'm vegetarian", role=OTHER_PERSON), in_room=False)
    assert checks.quote_problem("decision", [], said, in_room=False) is None
    assert checks.quote_problem("outcome", ["done"], lines("done", role=BOT), in_room=False) is None


def test_a_question_mark_of_any_script_ends_a_question():
    for line in (
        "Am I vegetarian?",
        "\u00bfSoy vegetariano?",
        "\u0647\u0644 \u0623\u0646\u0627\u061f",
        "\u79c1\u3067\u3059\u304b\uff1f",
        "\u0395\u03af\u03bc\u03b1\u03b9 \u03c7\u03bf\u03c1\u03c4\u03bf\u03c6\u03ac\u03b3\u03bf\u03c2\u037e",
    ):
        quote = line[1:5]
        assert "a question" in checks.not_a_statement_problem([quote], lines(line)), line
    assert checks.not_a_statement_problem(["vegetarian"], lines("I'm vegetarian; what's near me?")) is not None
    assert checks.not_a_statement_problem(["vegetarian"], lines("I'm vegetarian. What's near me?")) is None


def test_exact_tokens_are_numbers_paths_and_urls_as_written():
    assert checks.exact_tokens("Balance is -10, see ./a/b.txt and https://x.example/p?q=1.") == {
        "-10",
        "./a/b.txt",
        "https://x.example/p?q=1",
    }
    assert checks.tokens_problem("C++ costs 1.5", ["it costs 15"], "the quoted words")
    assert checks.tokens_problem("It costs 1.5", ["it costs 1.5!"], "the quoted words") is None


def test_until_dates():
    today = date(2026, 9, 10)
    assert checks.until_date("2026-09-30", "in Lisbon", today) == (date(2026, 9, 30), None)
    assert checks.until_date("2026-09-30", "Birthday on 30 September", today) == (None, None)
    assert "before today" in checks.until_date("2026-09-01", "in Lisbon", today)[1]
    assert "not a date" in checks.until_date("next week", "in Lisbon", today)[1]


def test_a_quoted_secret_in_a_new_topics_title_or_aliases_never_reaches_its_frontmatter(llm_home, fake_llm):
    # JSON quoting turns the quotes into \" and would split the secret from its key, hiding it from redaction.
    secret = "FAKEkey0example1NOT2real3wJalrXUtn/K7MD"
    make_chat(llm_home, [("My sister Asha lives in Goa.", "Lovely.")])
    fake_llm.script(
        answer(
            fact(
                "The person's sister Asha lives in Goa",
                ["My sister Asha lives in Goa"],
                target="memory/family.md",
                topic_title=f'aws_secret_access_key = "{secret}"',
                aliases=[f'aws_secret_access_key: "{secret}"', "sister"],
            )
        )
    )
    result = capture(llm_home, "scout")
    assert [s.target for s in result.saved] == ["memory/family.md"]
    family = (llm_home.workspace("scout") / "memory" / "family.md").read_text(encoding="utf-8")
    assert secret not in family and secret.replace("/", "\\/") not in family
    assert family.startswith('---\ntitle: "aws_secret_access_key = \\"«redacted 39 chars»\\""\n')


def test_a_target_shaped_like_a_credential_is_skipped_and_reaches_no_file(llm_home, fake_llm):
    key = "AK" + "IA" + "FAKEEXAMPLE01234"
    make_chat(llm_home, [VEG])
    fake_llm.script(answer(fact("The person is vegetarian", ["I'm vegetarian"], target=f"memory/{key}.md")))
    result = capture(llm_home, "scout")
    assert result.saved == [] and [s.reason for s in result.skipped] == [
        "its target is a topic name that looks like a credential"
    ]
    found = [p for p in llm_home.root.rglob("*") if p.is_file() and key.encode() in p.read_bytes() + p.name.encode()]
    assert found == []
