"""`omb-tui chat|models|usage`: the bot's model (the spec's model instances and helper, the one call path, usage
and the spend limit): talk through it, see and test what is connected, and what the calls cost."""

from __future__ import annotations

import argparse
import logging
import sys

from ..core.base import clock
from ..core.base.text import plural
from ..core.files.paths import Home
from .common import CliError, add_command, add_json, given, open_bot, subcommands
from .output import one_line, print_json, write_text


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers,
        "chat",
        cmd_chat,
        "Talk with the bot through its model, one line a message (stdin "
        "when it is not a terminal): memory, recall and its memory tools, as in a turn.",
    )
    p.add_argument(
        "--chat", type=given, metavar="ID", help="the conversation to continue or start (default: a new one)"
    )
    p.add_argument(
        "--person", type=given, metavar="NAME", help="who is talking (default: the person of the bot's newest chat)"
    )
    p = add_command(
        subparsers,
        "models",
        cmd_models,
        "Connected model instances, the helper model and where each bot's jobs go.",
        json=True,
        bot=False,
    )
    p = add_command(
        subcommands(p, "[test]"),
        "test",
        cmd_models_test,
        "Make one tiny call to an instance (default: every instance); print the latency or what is wrong.",
        json=True,
        bot=False,
        description="Make one tiny call to an instance (default: every instance); print the latency or "
        "what is wrong. Exits 1 when a call fails.",
    )
    p.add_argument("instance_id", metavar="ID", nargs="?", help="the instance's id in config.json")
    p = add_command(
        subparsers, "usage", cmd_usage, "Model calls of a month (UTC), with totals per bot and model.", bot=False
    )
    p.add_argument("--month", type=given, metavar="YYYY-MM", help="the month (default: this one)")
    p.add_argument("--bot", type=given, metavar="ID", help="only this bot's calls (helper calls for it included)")
    output = p.add_mutually_exclusive_group()
    add_json(output, 'print {"rows": [...], "total_cost_usd": N}')
    output.add_argument("--csv", action="store_true", help="print the rows as CSV")


def cmd_chat(args: argparse.Namespace) -> int:
    from ..core.files.paths import MemoryInputError, quoted
    from ..core.people.people import is_team_cloud
    from ..core.redaction.redact import redact
    from ..core.turn.person_turn import require_turn_person
    from ..core.turn.turn import chat_turn, open_chat

    bot = open_bot(args)
    if args.person is not None and not is_team_cloud(bot.home):  # a name no one holds would be the owner's words
        raise MemoryInputError(
            f"This home has no people, so --person {quoted(args.person)} names no one: leave it out to talk as "
            f"the owner, or add them first (`omb-tui people add NAME`); nothing was sent."
        )
    require_turn_person(bot.home, args.person)  # on a Team Cloud home, before any chat is made for a wrong name
    logging.getLogger("omb_tui.recall").setLevel(logging.WARNING)  # one line per turn would crowd the chat
    logging.getLogger("omb_tui.models").setLevel(logging.ERROR)  # the chat says itself why no model answers
    started = clock.now()
    chat_id = args.chat or f"chat-{started:%Y%m%d-%H%M%S}"
    conversation = open_chat(
        bot.home, bot.id, chat_id, person=args.person, title=None if args.chat else f"Chat of {started:%Y-%m-%d %H:%M}"
    )
    interactive = sys.stdin.isatty()
    if interactive or not args.chat:
        print(
            f"Chat '{conversation.id}' with {bot.name}; continue it later with --chat {conversation.id}."
            + (" Ctrl-D ends it." if interactive else ""),
            file=sys.stderr,
        )
    any_failed = False
    for message in _chat_lines(interactive):
        result = chat_turn(bot.home, bot.id, message, chat=conversation.id, person=args.person)
        for call in result.tool_calls:  # what each tool told the bot, its first line (a search lists more)
            lines = call.result.splitlines() or [""]
            more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
            print(f"  · {call.name}: {one_line(lines[0])}{more}", file=sys.stderr)
        if result.model_unavailable:
            raise CliError(result.answer, 1)
        answer = redact(result.answer).text  # printed as it is stored
        print(answer if not result.failed else f"(the turn failed) {answer}", flush=True)
        any_failed = any_failed or result.failed
    _keep_waiting_turns(bot.home, bot.id)
    return 1 if any_failed else 0


def _keep_waiting_turns(home: Home, bot_id: str) -> None:
    """A normal end of a chat: the turns capture has not read yet are kept as ids (memory-capture-pending.json),
    so the next `upkeep --due` reads them however soon it runs. Never fails the chat."""
    from ..core.upkeep.capture_state import note_pending_at_shutdown

    try:
        note_pending_at_shutdown(home, [bot_id])
    except Exception as exc:  # the chat itself went well; the next capture still finds the turns when due
        logging.getLogger("omb_tui.upkeep").warning("could not keep the waiting turns for capture: %s", exc)


def _chat_lines(interactive: bool):
    """The person's messages: typed at a prompt on a terminal, else one per line of stdin; blank lines skipped."""
    while True:
        try:
            line = input("you> ") if interactive else sys.stdin.readline()
        except EOFError:
            return
        if not interactive and line == "":
            return  # end of input
        if line.strip():
            yield line.strip()


def cmd_models(args: argparse.Namespace) -> int:
    from ..core.models.engines import DEFAULT_COMMANDS
    from ..core.models.instances import NO_MODEL_CONNECTED, is_no_model
    from ..core.models.what_runs import describe_models

    described = describe_models(Home(args.home))
    if args.json:
        print_json(described)
        return 0
    print("Instances:" if described["instances"] else NO_MODEL_CONNECTED)
    for instance in described["instances"]:
        if instance["engine"]:  # a person's own agent CLI: no key, no address
            model = f" · {instance['model']}" if instance["model"] else ""
            command = " ".join(instance["command"] or DEFAULT_COMMANDS.get(instance["engine"], ()))
            print(f"  {instance['id']:<14} {instance['engine']} engine{model}  runs {command}")
            continue
        where = f"  {instance['api_base']}" if instance["api_base"] else ""
        key = instance["key"] + (f" ({instance['api_key_env']})" if instance["api_key_env"] else "")
        print(f"  {instance['id']:<14} {instance['model']}{where}  key {key}")
    helper = described["helper"]
    if helper["source"] == "off":
        print("Helper model: off")
    else:
        model = f" · {helper['model']}" if helper["model"] else ""
        source = "OMB_HELPER_INSTANCE" if helper["source"] == "env" else "config.json"
        print(f"Helper model: {helper['instanceId']}{model} (from {source})")
        if helper.get("problem"):
            print(f"  Not used: {helper['problem']}")
    if described["bots"]:
        print("Bots:")
    for bot in described["bots"]:
        goes = f" → {bot['instance']}" if bot["instance"] else ""
        problem = f"  ({bot['problem'].rstrip('.')})" if bot.get("problem") else ""
        print(f"  {bot['id']:<14} {bot['uses']}{goes}{problem}")
        steps = bot["model_steps"]
        print(f"    {steps['sentence']}")
        why = steps["why"] or ""
        if why and not is_no_model(why) and why.rstrip(".") != (bot.get("problem") or "").rstrip("."):
            print(f"    Why: {why}.")
    return 0


def cmd_models_test(args: argparse.Namespace) -> int:
    from ..core.memory.settings import load_config
    from ..core.models.call import check_instance
    from ..core.models.instances import NO_MODEL_CONNECTED

    home = Home(args.home)
    config = load_config(home)
    if args.instance_id is None:
        instances = list(config.instances.values())
        if not instances:
            raise CliError(NO_MODEL_CONNECTED)
    elif args.instance_id in config.instances:
        instances = [config.instances[args.instance_id]]
    else:
        known = ", ".join(config.instances) or "none"
        raise CliError(f"No instance {args.instance_id!r} in config.json (instances: {known}).")
    checks = [check_instance(home, instance, config.monthly_spend_usd) for instance in instances]
    if args.json:
        print_json([check.to_dict() for check in checks])
    else:
        for check in checks:
            if not check.ok:
                said = check.problem or "no answer"
            elif check.engine:  # the engine's CLI checks JSON against the schema itself, or it is asked in the prompt
                said = f"answered in {check.latency_ms / 1000:.2f} s through the {check.engine} engine ({check.model})"
            else:
                said = (
                    f"answered in {check.latency_ms / 1000:.2f} s ({check.model}); it takes JSON as {check.output_mode}"
                )
            print(f"{check.id}: {one_line(said)}.")
    return 0 if all(check.ok for check in checks) else 1


def cmd_usage(args: argparse.Namespace) -> int:
    from ..core.files.paths import validate_bot_id
    from ..core.journal.when import when_text
    from ..core.models.usage import check_month, is_plan_call, month_of, plan_cost, usage_csv, usage_report

    month = check_month(args.month) if args.month else month_of(clock.now_utc())
    report = usage_report(Home(args.home), month, validate_bot_id(args.bot) if args.bot else None)
    if args.json:
        print_json(
            {
                "rows": report["rows"],
                "totals": report["totals"],
                "total_cost_usd": report["total_cost_usd"],
                "plan_cost_usd": report["plan_cost_usd"],
            }
        )
        return 0
    if args.csv:
        write_text(usage_csv(report["rows"]))
        return 0
    if not report["rows"]:
        print(f"No model calls in {month}" + (f" for {args.bot}." if args.bot else "."))
        return 0
    for row in report["rows"]:
        if is_plan_call(row):  # on the person's plan: no money per call, what the CLI reported beside it
            reported = f", ${plan_cost(row):.6f} reported" if row["plan_cost_usd"] is not None else ""
            cost = f"plan ({row['engine'] or 'engine'}{reported})"
        else:
            cost = "cost unknown" if row["cost_usd"] is None else f"${row['cost_usd']:.6f}"
        outcome = "ok" if row["ok"] else f"failed: {row['error']}"
        print(
            f"{when_text(row['at'])}  {row['triggered_by'] or '':<14} {row['job'] or '':<14} "
            f"{row['model'] or ''}  {row['prompt_tokens'] or 0}+{row['completion_tokens'] or 0} tokens  "
            f"{cost}  {outcome}"
        )
    print(f"Totals for {month}:")
    for total in report["totals"]:
        unknown = f", {total['unknown_cost']} at an unknown price" if total["unknown_cost"] else ""
        plan = f", {total['plan_calls']} on your plan" if total["plan_calls"] else ""
        if total["plan_cost_usd"]:
            plan += f" (${total['plan_cost_usd']:.6f} reported, not counted)"
        print(
            f"  {total['bot'] or '(no bot)':<14} {total['model']}: {plural(total['calls'], 'call')}, "
            f"{total['failed']} failed, ${total['cost_usd']:.6f}{unknown}{plan}"
        )
    on_plan = (
        f" (and ${report['plan_cost_usd']:.6f} reported by engines on your plan, not counted toward the limit)"
        if report["plan_cost_usd"]
        else ""
    )
    print(f"  all: ${report['total_cost_usd']:.6f}{on_plan}")
    return 0
