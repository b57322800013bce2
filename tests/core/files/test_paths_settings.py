"""Layout, name rules and settings (spec: "Where it lives", "Editing", "The helper model")."""

from __future__ import annotations

import pytest

from omb_tui.core.files.paths import FileKind, Home, InvalidName, OutsideWorkspace, resolve_home, validate_bot_id
from omb_tui.core.memory.settings import (
    BrokenFile,
    load_bot_settings,
    load_config,
    save_bot_settings,
)


def test_home_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("OMB_HOME", str(tmp_path / "env"))
    assert resolve_home(tmp_path / "flag") == tmp_path / "flag"
    assert resolve_home(None) == tmp_path / "env"
    monkeypatch.delenv("OMB_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert resolve_home(None) == tmp_path / "user" / ".openmausbot"


def test_layout(tmp_path):
    home = Home(tmp_path)
    assert home.workspace("scout") == tmp_path / "workspaces" / "scout"
    assert home.journal_path("scout") == tmp_path / "memory-journal" / "scout.ndjson"
    assert home.settings_path("scout") == tmp_path / "bots" / "scout.json"


@pytest.mark.parametrize(
    "rel,kind",
    [
        ("MEMORY.md", FileKind.MEMORY),
        ("./MEMORY.md", FileKind.MEMORY),
        ("memory/travel.md", FileKind.TOPIC),
        ("memory/Trip to Paris 2.0.md", FileKind.TOPIC),
        ("memory/archive.md", FileKind.ARCHIVE),
        ("memory/log/2026-09-10.md", FileKind.LOG),
    ],
)
def test_memory_paths(tmp_path, rel, kind):
    assert Home(tmp_path).memory_path("scout", rel).kind is kind


@pytest.mark.parametrize(
    "rel,error",
    [
        ("../MEMORY.md", OutsideWorkspace),
        ("memory/../../x.md", OutsideWorkspace),
        ("/etc/passwd", OutsideWorkspace),
        ("memory/a\x00b.md", OutsideWorkspace),
        ("memory/a/b.md", InvalidName),
        ("memory/.hidden.md", InvalidName),
        ("memory/x.txt", InvalidName),
        ("memory/log/2026-13-45.md", InvalidName),
        ("notes.md", InvalidName),
    ],
)
def test_bad_paths_refused(tmp_path, rel, error):
    with pytest.raises(error):
        Home(tmp_path).memory_path("scout", rel)


@pytest.mark.parametrize("bot_id", ["../x", "", ".x", "a/b", "x" * 65, "a b"])
def test_bad_bot_ids(bot_id):
    with pytest.raises(InvalidName):
        validate_bot_id(bot_id)


def test_workspace_without_settings_is_a_bot_with_defaults(tmp_path):
    home = Home(tmp_path)
    home.workspace("scout").mkdir(parents=True)
    assert home.bot_ids() == ["scout"]
    settings = load_bot_settings(home, "scout")
    assert (settings.name, settings.memory, settings.upkeep, settings.helper_model) == ("scout", True, True, True)


def test_settings_round_trip_keeps_unknown_keys(tmp_path):
    home = Home(tmp_path)
    home.bots_dir.mkdir()
    home.settings_path("scout").write_text('{"name": "Scout", "color": "blue"}')
    settings = load_bot_settings(home, "scout")
    settings.memory = False
    settings.helper_model = False
    save_bot_settings(home, settings)
    again = load_bot_settings(home, "scout")
    assert not again.memory and not again.helper_model and again.name == "Scout"
    assert '"color": "blue"' in home.settings_path("scout").read_text()


def test_broken_settings_are_a_clear_error(tmp_path):
    home = Home(tmp_path)
    home.bots_dir.mkdir()
    home.settings_path("scout").write_text("{nope")
    with pytest.raises(BrokenFile, match="not valid JSON"):
        load_bot_settings(home, "scout")
    home.settings_path("scout").write_text('{"memory": "yes"}')
    with pytest.raises(BrokenFile, match="true or false"):
        load_bot_settings(home, "scout")


def test_config_keys_and_helper_environment(tmp_path):
    home = Home(tmp_path)
    home.config_path.write_text(
        '{"helper": {"instanceId": "claude", "model": "claude-haiku-4-5"},'
        ' "features": {"autoRecall": false, "roomMemoryCapture": true},'
        ' "memory": {"captureQuietMs": 60000, "tidyHour": 4}}'
    )
    config = load_config(home, environ={})
    assert (config.helper.instance_id, config.helper.model) == ("claude", "claude-haiku-4-5")
    assert (config.auto_recall, config.room_memory_capture, config.capture_quiet_ms, config.tidy_hour) == (
        False,
        True,
        60000,
        4,
    )
    assert load_config(home, environ={"OMB_HELPER_INSTANCE": "openai"}).helper.instance_id == "openai"
    assert load_config(home, environ={"OMB_HELPER_INSTANCE": ""}).helper is None


def test_config_defaults_and_broken(tmp_path):
    home = Home(tmp_path)
    config = load_config(home, environ={})
    assert config.auto_recall and not config.room_memory_capture and config.helper is None
    assert (config.capture_quiet_ms, config.tidy_hour) == (120_000, 3)
    home.config_path.write_text('{"memory": {"tidyHour": 25}}')
    with pytest.raises(BrokenFile, match="tidyHour"):
        load_config(home, environ={})


@pytest.mark.parametrize(
    "name",
    [
        "AK" + "IA" + "FAKEEXAMPLE01234.md",
        "gh" + "p_FAKE0example1NOT2real3token4FAKE0exa.md",
        "password is Tulip77x.md",
    ],
)
def test_a_topic_name_shaped_like_a_credential_is_refused_in_one_sentence(home, run_cli, name):
    from omb_tui.core.files.paths import CredentialName, validate_topic_name

    with pytest.raises(CredentialName):
        validate_topic_name(name)
    out = run_cli("write", "scout", f"memory/{name}", stdin=b"- a note\n")
    assert (out.code, out.err) == (
        2,
        "omb-tui: That topic name looks like it holds a credential; choose a name without one.\n",
    )
    secret = name[:-3].split()[-1]
    assert not any(secret in p.name or secret.encode() in p.read_bytes() for p in home.root.rglob("*") if p.is_file())


def test_a_file_made_outside_with_a_credential_as_its_name_is_never_listed_nor_journaled(home, run_cli):
    key = "AK" + "IA" + "FAKEEXAMPLE01234"
    home.workspace("scout").joinpath("memory", f"{key}.md").write_text("- made by hand\n")
    assert run_cli("journal", "scout").code == 0 and run_cli("remember", "scout", "a note").code == 0
    assert all(key.encode() not in p.read_bytes() for p in home.journal_dir.rglob("*") if p.is_file())
    assert all(key not in mp.rel for mp in home.memory_files("scout"))
