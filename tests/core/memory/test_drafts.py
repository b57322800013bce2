"""Recovery drafts and the private copy $EDITOR edits: outside the workspace, 0600, redacted, atomic."""

from __future__ import annotations

import json
import os
import stat

import pytest

from omb_tui.core.files.disk import text_hash
from omb_tui.core.files.paths import InvalidName, OutsideWorkspace
from omb_tui.core.memory import store as store_module
from omb_tui.core.memory.drafts import Drafts, private_copy

PASSWORD_LINE = "- wifi password: hunter2-Quokka-77\n"


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_draft_is_kept_outside_the_workspace_private_and_redacted(home):
    drafts = Drafts(home, "scout")
    based_on = text_hash("- old\n")
    drafts.keep("MEMORY.md", "- old\n" + PASSWORD_LINE, based_on)
    path = drafts.path("MEMORY.md")
    assert path.is_file()
    workspace = home.workspace("scout").resolve()
    assert workspace not in path.resolve().parents  # the bot can neither read nor edit it
    assert mode(path) == 0o600 and mode(path.parent) == 0o700
    assert "hunter2" not in path.read_text()
    found = drafts.find("MEMORY.md")
    assert found.text.startswith("- old\n- wifi password: «redacted")
    assert found.based_on == based_on and found.rel == "MEMORY.md"


def test_drafts_are_per_file_and_per_bot_and_removed_when_discarded(home):
    scout, quill = Drafts(home, "scout"), Drafts(home, "quill")
    scout.keep("MEMORY.md", "- scout's draft\n", None)
    scout.keep("memory/travel.md", "- a travel draft\n", None)
    assert quill.find("MEMORY.md") is None
    assert scout.find("memory/travel.md").text == "- a travel draft\n"
    scout.keep("MEMORY.md", "- typed on\n", None)  # a later draft replaces the earlier one
    assert scout.find("MEMORY.md").text == "- typed on\n"
    scout.discard("MEMORY.md")
    assert scout.find("MEMORY.md") is None and not scout.path("MEMORY.md").exists()
    assert scout.find("memory/travel.md") is not None
    scout.discard("MEMORY.md")  # discarding twice is fine


def test_a_draft_is_written_whole_or_not_at_all(home, monkeypatch):
    drafts = Drafts(home, "scout")
    drafts.keep("MEMORY.md", "- first draft\n", None)

    def torn_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(store_module.os, "replace", torn_replace)
    with pytest.raises(OSError):
        drafts.keep("MEMORY.md", "- second draft\n", None)
    monkeypatch.undo()
    assert drafts.find("MEMORY.md").text == "- first draft\n"
    assert [p.name for p in drafts.path("MEMORY.md").parent.iterdir()] == [drafts.path("MEMORY.md").name]


def test_draft_names_cannot_lead_anywhere_else(home):
    drafts = Drafts(home, "scout")
    with pytest.raises(OutsideWorkspace):
        drafts.keep("../MEMORY.md", "- x\n", None)
    with pytest.raises(InvalidName):
        drafts.keep("notes.txt", "- x\n", None)
    with pytest.raises(InvalidName):
        Drafts(home, "../scout")


def test_a_damaged_draft_is_skipped_not_fatal(home):
    drafts = Drafts(home, "scout")
    drafts.keep("MEMORY.md", "- draft\n", None)
    drafts.path("MEMORY.md").write_text("{ not json")
    assert drafts.find("MEMORY.md") is None
    drafts.path("MEMORY.md").write_text(
        json.dumps({"file": "memory/travel.md", "text": "x", "basedOn": None, "savedAt": "2026-01-01T00:00:00+00:00"})
    )
    assert drafts.find("MEMORY.md") is None  # a draft of another file is never offered for this one


def test_the_private_copy_is_0600_in_a_0700_folder_and_gone_afterwards(home):
    with private_copy("memory/travel.md", b"- a\n") as path:
        assert path.name == "travel.md"  # the editor sees a .md file
        assert path.read_text() == "- a\n"
        assert mode(path) == 0o600 and mode(path.parent) == 0o700
        assert home.root.resolve() not in path.resolve().parents
        (path.parent / ".travel.md.swp").write_text("an editor's swap file")
        folder = path.parent
    assert not folder.exists()


def test_the_private_copy_is_removed_even_when_the_edit_fails(home):
    with pytest.raises(RuntimeError):
        with private_copy("MEMORY.md", b"- a\n") as path:
            raise RuntimeError("the editor could not start")
    assert not path.parent.exists()
