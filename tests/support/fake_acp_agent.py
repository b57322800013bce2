"""A fake Agent Client Protocol agent for the `acp` engine's tests: a small Python program that speaks the protocol
on stdio (JSON-RPC 2.0, one message a line), scripted by a scenario name, and notes what it was sent in a log.

`agent_command(tmp_path, scenario)` writes the program and returns the instance's `command` and the log's path;
`read_log(path)` gives the notes: `started` (its pid, cwd and what the cwd held), `received` (each message),
`answered` (the client answered something the agent asked for), `ran` (the agent ran what it asked for), `child`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

PROGRAM = r'''
import json, os, signal, subprocess, sys

scenario, log_path = sys.argv[1], sys.argv[2]
log = open(log_path, "a", buffering=1)
SESSION = "sess-1"


def note(kind, **data):
    log.write(json.dumps({"kind": kind, **data}) + "\n")


def send(message):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def update(body):
    send({"method": "session/update", "params": {"sessionId": SESSION, "update": body}})


def receive():
    line = sys.stdin.readline()
    if not line:
        note("stdin closed")
        sys.exit(0)
    message = json.loads(line)
    note("received", message=message)
    return message


def ask(method, params):
    """Ask the client for something; run it only if the client answers (the engine must never answer)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a stubborn agent: only SIGKILL ends it
    send({"id": "ask-1", "method": method, "params": params})
    while True:
        message = receive()
        if message.get("id") == "ask-1" and "method" not in message:
            note("answered", message=message)
            outcome = (message.get("result") or {}).get("outcome") or {}
            if "result" in message and outcome.get("outcome") != "cancelled":
                note("ran")


note("started", pid=os.getpid(), pgid=os.getpgid(0), cwd=os.getcwd(), listing=os.listdir("."))
if scenario == "garbage":
    print("Welcome to the agent! Type /help.", flush=True)
if scenario == "not_jsonrpc":
    print(json.dumps({"hello": "world"}), flush=True)
if scenario == "huge_line":
    sys.stdout.write("x" * 4096)
    sys.stdout.flush()
if scenario == "child":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    note("child", pid=child.pid)

modes = {"currentModeId": "default", "availableModes": [{"id": "default", "name": "Default"},
                                                      {"id": "bypassPermissions", "name": "Bypass"}]}
if scenario == "starts_bypassing":
    modes = {"currentModeId": "yolo", "availableModes": [{"id": "yolo", "name": "YOLO"},
                                                       {"id": "default", "name": "Default"}]}
if scenario == "only_bypass":
    modes = {"currentModeId": "yolo", "availableModes": [{"id": "yolo", "name": "YOLO"}]}
models = {"currentModelId": "small", "availableModels": [{"modelId": "small", "name": "Small"},
                                                        {"modelId": "big", "name": "Big"}]}

while True:
    message = receive()
    method, ident = message.get("method"), message.get("id")
    if method == "initialize":
        if scenario == "exit_1":
            sys.stderr.write("boom: the agent could not start its model\n")
            sys.exit(1)
        send({"id": ident, "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": [
            {"id": "agent-login", "name": "Log in", "description": "Run `fake-agent login` in the terminal"}]}})
    elif method == "session/new":
        if scenario == "hang":
            continue
        if scenario == "needs_sign_in":
            send({"id": ident, "error": {"code": -32000, "message": "Authentication required"}})
            continue
        send({"id": ident, "result": {"sessionId": SESSION, "modes": modes, "models": models}})
    elif method in ("session/set_mode", "session/set_model"):
        send({"id": ident, "result": {}})
    elif method == "session/prompt":
        if scenario == "permission":
            ask("session/request_permission", {"sessionId": SESSION, "toolCall": {
                "toolCallId": "t1", "title": "Bash", "kind": "execute"}, "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]})
        if scenario == "fs_read":
            ask("fs/read_text_file", {"sessionId": SESSION, "path": sys.argv[3]})
        if scenario == "fs_write":
            ask("fs/write_text_file", {"sessionId": SESSION, "path": sys.argv[3], "content": "written"})
        if scenario == "terminal":
            ask("terminal/create", {"sessionId": SESSION, "command": "touch", "args": [sys.argv[3]]})
        if scenario in ("tool_call", "tool_call_elsewhere"):
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Let me look. "}})
            call = {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read\nMEMORY.md", "kind": "read",
                    "status": "pending"}
            if scenario == "tool_call":
                update(call)
            else:
                send({"method": "session/update", "params": {"sessionId": "another", "update": call}})
            while True:
                receive()
        if scenario == "flood":
            for n in range(100_000):
                update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "."}})
        if scenario == "other_request":  # a request the client does not offer: it says so, and the turn goes on
            send({"id": "x-1", "method": "_fake/custom", "params": {}})
            note("custom answer", message=receive())
        update({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "thinking aloud"}})
        update({"sessionUpdate": "plan", "entries": []})
        send({"method": "session/update", "params": {"sessionId": "another", "update": {
            "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "NOT MINE"}}}})
        answer = os.environ.get("FAKE_ACP_ANSWER", "Hello, world.")
        for piece in (answer[: len(answer) // 2], answer[len(answer) // 2 :]):
            update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": piece}})
        update({"sessionUpdate": "usage_update", "used": 120, "size": 200000,
                "cost": {"amount": 0.0042, "currency": "USD"}})
        stop = "refusal" if scenario == "refusal" else "end_turn"
        send({"id": ident, "result": {"stopReason": stop, "usage": {
            "inputTokens": 120, "outputTokens": 7, "totalTokens": 127, "cachedReadTokens": 100}}})
    elif ident is not None:
        send({"id": ident, "error": {"code": -32601, "message": "Method not found"}})
'''


def agent_command(tmp_path: Path, scenario: str, *extra: str) -> tuple[list[str], Path]:
    """The `command` of an acp instance running the fake agent in `scenario`, and the path of its log."""
    program = tmp_path / "fake_acp_agent.py"
    program.write_text(PROGRAM, encoding="utf-8")
    log = tmp_path / f"agent-{scenario}.log"
    return [sys.executable, str(program), scenario, str(log), *extra], log


def read_log(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def received(path: Path, method: str) -> list[dict]:
    """The params of every `method` request the agent was sent."""
    return [
        note["message"].get("params")
        for note in read_log(path)
        if note["kind"] == "received" and note["message"].get("method") == method
    ]


def live_in_group(pgid: int) -> list[int]:
    """The processes of group `pgid` still running (a zombie, ended but not yet reaped, does not count)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


def running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
