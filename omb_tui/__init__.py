"""omb-tui: keep and review an AI bot's long-term memory."""

__version__ = "0.1.0"
