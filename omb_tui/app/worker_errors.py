"""The one handler that turns a failed worker into a notification and a log line (HOUSE_STYLE 7).

A worker runs with `exit_on_error=False`, so its failure arrives as `Worker.StateChanged` at the node that
started it (the app, or a screen) and does not bubble: the app and every area's screen mix this in.
"""

from __future__ import annotations

import logging

from textual.worker import Worker, WorkerState

log = logging.getLogger("omb_tui.app")
SENTENCE_MAX = 300  # characters of an error shown in a notification


def failure_sentence(error: BaseException) -> str:
    """What a person reads about an error: its message (or its kind), cut to fit a notification."""
    text = str(error) or error.__class__.__name__
    return text if len(text) < SENTENCE_MAX else text[: SENTENCE_MAX - 3] + "…"


class NotifyWorkerErrors:
    """Mixed into the app and every area's screen; a screen that wants to say more where the failure
    happened overrides `worker_failed`."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker, error = event.worker, event.worker.error
        if event.state is not WorkerState.ERROR or error is None:
            return
        sentence = failure_sentence(error)
        # The traceback goes to the log (Textual's console while the app runs), never to the screen.
        log.error("background work %r (group %r) failed: %s", worker.name, worker.group, sentence, exc_info=error)
        # An error that knows what happened (a bot deleted while open) names it; any other is unexpected.
        self.notify(sentence, title=getattr(error, "title", "Something went wrong"), severity="error", markup=False)
        self.worker_failed(worker, sentence)

    def worker_failed(self, worker: Worker, error: str) -> None:
        """Hook: show the failure where it happened (the notification is already sent)."""
