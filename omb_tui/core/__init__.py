"""The memory engine: pure Python, never imports textual or rich (see tests/project/test_architecture.py)."""
