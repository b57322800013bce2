"""Run a benchmark with the project's virtual environment, whatever Python started it.

`python3 benchmarks/locomo.py` (or `recall.py`) on a clean clone: when the running Python is not the project's
`.venv`, the venv is made from requirements.lock as `scripts/dev.py` makes it (first use only, pinned hashes) and the
script starts again with its Python and the same arguments.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_in_venv() -> None:
    venv = ROOT / ".venv"
    if Path(sys.prefix).resolve() == venv.resolve():
        return
    sys.path.insert(0, str(ROOT / "scripts"))
    import dev  # scripts/dev.py

    dev.ensure_venv()
    python = str(venv / ("Scripts" if os.name == "nt" else "bin") / "python")
    os.execv(python, [python, *sys.argv])
