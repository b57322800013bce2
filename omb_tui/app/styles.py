"""Find the .tcss files: inside the wheel they are omb_tui/styles/, in a checkout they are ../styles/."""

from __future__ import annotations

from pathlib import Path

_PACKAGED = Path(__file__).resolve().parent.parent / "styles"
_CHECKOUT = Path(__file__).resolve().parent.parent.parent / "styles"


def style_path(name: str) -> Path:
    for folder in (_PACKAGED, _CHECKOUT):
        candidate = folder / name
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"style sheet {name} is missing from {_PACKAGED} and {_CHECKOUT}")
