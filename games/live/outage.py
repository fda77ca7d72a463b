"""What a process knows of an outage of a server it only needs on the side (Redis,
as the cache or for live updates): is it down, when to try it again, and one
warning when the outage starts and one when it ends, never one per request."""

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Outage:
    """One server's state in this process. `failed(exc)` after an error, `succeeded()`
    after a call that worked; while `is_down()` callers skip the server for
    `retry_seconds()` (so an outage costs one failed connection every few seconds,
    not one per request)."""

    def __init__(self, what: str, consequence: str, retry_seconds: Callable[[], float]) -> None:
        self.what = what  # "the cache"
        self.consequence = consequence  # what callers do meanwhile, for the warning
        self.retry_seconds = retry_seconds
        self._lock = threading.Lock()
        self._down = False
        self._retry_at = 0.0  # time.monotonic(): leave the server alone until then

    def is_down(self) -> bool:
        return self._down and time.monotonic() < self._retry_at

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            first, self._down = not self._down, True
            self._retry_at = time.monotonic() + self.retry_seconds()
        if first:
            log.warning(
                "%s is unreachable (%s: %s): %s, until it answers again",
                self.what,
                type(exc).__name__,
                exc,
                self.consequence,
            )

    def succeeded(self) -> None:
        if not self._down:
            return
        with self._lock:
            was_down, self._down = self._down, False
        if was_down:
            log.warning("%s answers again", self.what)

    def reset(self) -> None:
        """Forget an outage (tests start each one clean)."""
        with self._lock:
            self._down, self._retry_at = False, 0.0
