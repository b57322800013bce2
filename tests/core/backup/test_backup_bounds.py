"""A backup or team package is bounded before it is read (docs/backup.md, "Bounds"): a sparse member, a member
whose header claims more than a member may hold, and an archive whose total is over the bound are each refused in
one sentence, under a 1 GiB address-space limit, and the refusing process stays small whatever the file claims.

Spec: memory.md, "Where it lives" (a bad input is one sentence and leaves every file as it was). A team package is
a file people receive from others, so `team import` is held to the same bounds as `restore`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from test_backup import manifest_listing

from omb_tui.core.backup import archive

resource = pytest.importorskip("resource")  # RLIMIT_AS and a child's rusage: POSIX only

ADDRESS_SPACE = 1 << 30  # the child's limit: the old code asked for 8 GiB under it and died with MemoryError
GIB = 1 << 30
# The refusing process, interpreter and imports included (docs/performance.md, "Reliability").
REFUSAL_PEAK = 160 * 2**20
# The child says its own peak (VmHWM, this program's since exec): the rusage of a child forked from a pytest worker
# also counts the worker's memory at the fork, which after a heavy test read as 579 MiB.
CHILD = """\
import atexit, os, resource, sys
def peak():
    with open("/proc/self/status") as status, open(os.environ["OMB_PEAK_FILE"], "w") as out:
        out.write(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
if os.path.exists("/proc/self/status"):
    atexit.register(peak)
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from omb_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def header(info: tarfile.TarInfo, **patches: bytes) -> bytes:
    """The 512-byte GNU header of `info`, with bytes patched in at offsets (`at_386=...`) and the checksum redone."""
    block = bytearray(info.tobuf(format=tarfile.GNU_FORMAT))
    for where, value in patches.items():
        offset = int(where.removeprefix("at_"))
        block[offset : offset + len(value)] = value
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block[:512])
    return bytes(block)


def octal(number: int, width: int = 12) -> bytes:
    return b"%0*o\0" % (width - 1, number)


def manifest_member(paths: dict[str, bytes], **fields: object) -> bytes:
    data = manifest_listing(paths, **fields)
    raw = json.dumps(data).encode()
    info = tarfile.TarInfo("manifest.json")
    info.size = len(raw)
    return info.tobuf(format=tarfile.GNU_FORMAT) + raw + b"\0" * (-len(raw) % 512)


END = b"\0" * 1024


def sparse_archive(**manifest_fields: object) -> bytes:
    """A 512-byte chunk of data that a GNU sparse header says is 8 GiB once its holes are filled."""
    chunk = b"- planted\n".ljust(512, b"\0")
    info = tarfile.TarInfo("workspaces/scout/MEMORY.md")
    info.type, info.size = tarfile.GNUTYPE_SPARSE, len(chunk)
    block = header(info, at_386=octal(0) + octal(len(chunk)), at_482=b"\0", at_483=octal(8 * GIB))
    return manifest_member({"workspaces/scout/MEMORY.md": b""}, **manifest_fields) + block + chunk + END


def claims_huge_size(**manifest_fields: object) -> bytes:
    """A header that says 8 GiB follow, and the little that does."""
    info = tarfile.TarInfo("workspaces/scout/MEMORY.md")
    info.size = 8 * GIB - 1  # the largest a 12-byte octal field holds
    return manifest_member({"workspaces/scout/MEMORY.md": b""}, **manifest_fields) + header(info) + b"x" * 512 + END


def write_over_total(path: Path) -> None:
    """A real tar whose members each fit a member's bound but add up to more than an archive may hold: written
    with holes in the file on disk, so it takes no disk space however large it is."""
    member = archive.MAX_MEMBER_BYTES
    count = archive.MAX_ARCHIVE_BYTES // member + 1
    with open(path, "wb") as handle:
        handle.write(manifest_member({}))
        for number in range(count):
            info = tarfile.TarInfo(f"workspaces/scout/memory/t{number}.md")
            info.size = member
            handle.write(info.tobuf(format=tarfile.GNU_FORMAT))
            handle.seek(member, os.SEEK_CUR)
        handle.write(END)


def hostile(kind: str, path: Path, *, package: bool) -> Path:
    fields = {"kind": "team-package", "team": "team-00000000"} if package else {}
    if kind == "sparse":
        path.write_bytes(sparse_archive(**fields))
    elif kind == "huge member":
        path.write_bytes(claims_huge_size(**fields))
    else:
        write_over_total(path)
    return path


def run_limited(home: Path, *argv: str) -> tuple[int, str, int]:
    """`omb-tui --home HOME ARGV…` in a child under RLIMIT_AS: its exit status, stderr and peak RSS in bytes."""
    peak_file = home.parent / f"peak-{os.getpid()}-{len(argv)}-{abs(hash(argv))}"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(limit=ADDRESS_SPACE), "--home", str(home), *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "OMB_PEAK_FILE": str(peak_file)},
    )
    err = child.stderr.read().decode()
    child.stderr.close()
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if peak_file.exists():  # Linux: VmHWM in KiB
        return child.returncode, err, int(peak_file.read_text()) * 1024
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return child.returncode, err, usage.ru_maxrss * scale


@pytest.mark.parametrize("kind", ["sparse", "huge member", "over the total"])
@pytest.mark.parametrize("command", ["restore", "team import"])
def test_a_hostile_archive_is_refused_in_one_sentence_before_it_is_read(tmp_path, kind, command):
    target = tmp_path / "target"
    target.mkdir()
    package = command == "team import"
    file = hostile(kind, tmp_path / "hostile.tar", package=package)
    code, err, peak = run_limited(target, *command.split(), str(file))
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "MemoryError" not in err, err
    expected = {
        "sparse": "a sparse file",
        "huge member": "more than a backup's file may hold",
        "over the total": "more than a backup may hold",
    }[kind]
    assert expected in err, err
    assert list(target.iterdir()) == []
    assert peak < REFUSAL_PEAK, f"the refusal took {peak / 2**20:.0f} MiB"
    print(f"\n{command}, {kind}: refused with a peak RSS of {peak / 2**20:.1f} MiB")


def test_a_backup_too_large_to_restore_is_refused_when_it_is_taken(home, tmp_path, run_cli, monkeypatch):
    monkeypatch.setattr(archive, "MAX_MEMBER_BYTES", 64)
    (home.workspace("scout") / "memory" / "long.md").write_text("- a line of a long topic\n" * 10)
    result = run_cli("backup", "--to", str(tmp_path / "x.tar"))
    assert result.code == 2 and "a restore would refuse it" in result.err, result.err
    assert not (tmp_path / "x.tar").exists()


def test_a_plain_archive_is_read_from_the_file_not_whole(home, tmp_path, run_cli, monkeypatch):
    """A plain backup is streamed member by member from its file: nothing reads the whole file into memory."""
    backup = tmp_path / "x.tar"
    assert run_cli("backup", "--to", str(backup)).code == 0

    def whole(self):  # noqa: ARG001 - Path.read_bytes, which the old code called on the backup file
        raise AssertionError("the backup file was read whole")

    monkeypatch.setattr(Path, "read_bytes", whole)
    opened = archive.read_backup(backup)
    assert "workspaces/scout/MEMORY.md" in opened.files
