"""The memory engine: pure Python, never imports textual or rich (see tests/test_architecture.py)."""
