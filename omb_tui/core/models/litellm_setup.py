"""The one place litellm is imported: lazily, at the first call, and set up once.

Spec: docs/models.md, "litellm, set up once". Importing litellm costs seconds, so nothing imports it at start-up or for a
command that makes no call. Before the import, every catalogue litellm would otherwise fetch on its own (the
model price list, Anthropic's beta headers, blog posts, tokenizers) is switched to the copy it ships with, so
the only host a call reaches is the configured instance. No telemetry, no "Give Feedback" banners and no
debug prints reach the terminal: litellm's log lines go to our log ("omb_tui.models.litellm"), redacted.
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from types import ModuleType
from typing import Any

log = logging.getLogger("omb_tui.models.litellm")

# Set before the import: litellm reads them when it loads (the price list) or at first use (the others).
OFFLINE_ENVIRONMENT = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_OFFLINE_MODE": "true",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_LOCAL_BLOG_POSTS": "True",
    # The retries are ours (call.py): litellm's embedding path reads `max_retries=0` as unset and would try twice
    # more behind a query's 300 ms deadline (embeddings.py), so its default is none too.
    "DEFAULT_MAX_RETRIES": "0",
}
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")

_litellm: ModuleType | None = None
_setup_lock = threading.Lock()


class _ToOurLog(logging.Handler):
    """Hands each litellm record to our logger, its text redacted (a provider's error may echo a key)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            from ..redaction.redact import redact

            log.log(record.levelno, "litellm: %s", redact(record.getMessage()).text)
        except Exception:  # a log line never breaks a call
            pass


def litellm_module() -> ModuleType:
    """litellm, imported and set up on the first call; the same module afterwards."""
    global _litellm
    with _setup_lock:
        if _litellm is None:
            os.environ.update(OFFLINE_ENVIRONMENT)
            import litellm

            _quiet(litellm)
            from .bounded_http import install

            install(litellm)
            _litellm = litellm
        # litellm's models warn through pydantic on stderr: once a process about their own types, and about any value
        # of a server's answer not of the declared type (a base64 vector, text where numbers belong), which our own
        # checks read and name. At each call: the filter is the process's, and a test runner resets the filters.
        warnings.filterwarnings("ignore", category=UserWarning, module="pydantic")
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="litellm")  # pydantic's, on its use
        return _litellm


def _quiet(litellm: Any) -> None:  # Any: its switches are module globals, some only in some releases
    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banner on an error
    litellm.set_verbose = False
    litellm.turn_off_message_logging = True  # callbacks, if any were ever added, never see the messages
    if hasattr(litellm, "telemetry"):  # older releases sent usage telemetry unless told not to
        litellm.telemetry = False
    for name in LITELLM_LOGGERS:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.addHandler(_ToOurLog())
        logger.setLevel(logging.WARNING)
        logger.propagate = False
    for name in ("httpx", "httpcore", "openai"):  # request lines (with addresses) only at debug level
        logging.getLogger(name).setLevel(logging.WARNING)
