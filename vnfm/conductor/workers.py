"""A bounded pool of worker threads, one job per op or package at a time."""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

LOG = logging.getLogger(__name__)


class WorkPool:
    """Runs jobs in at most ``size`` threads; a key already queued or
    running is not queued again (a doorbell rung twice runs once)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=size, thread_name_prefix='vnfm-worker'
        )
        self._lock = threading.Lock()
        self._jobs: dict[Hashable, concurrent.futures.Future] = {}
        self._accepting = True

    def submit(
        self,
        key: Hashable,
        fn: Callable[..., Any],
        *args: Any,
        on_crash: Callable[[BaseException], None] | None = None,
    ) -> bool:
        """Queue ``fn(*args)`` unless ``key`` is queued or running or the
        pool is stopping. True if queued."""
        with self._lock:
            if not self._accepting or key in self._jobs:
                return False
            self._jobs[key] = self._executor.submit(
                self._run, key, fn, args, on_crash
            )
            return True

    def _run(
        self,
        key: Hashable,
        fn: Callable[..., Any],
        args: tuple,
        on_crash: Callable[[BaseException], None] | None,
    ) -> None:
        try:
            fn(*args)
        except Exception as e:  # thread boundary: log and record
            LOG.exception('Job %s failed unexpectedly', key)
            if on_crash is not None:
                try:
                    on_crash(e)
                except Exception:  # thread boundary: the DB may be down
                    LOG.exception('Recording the failure of %s failed', key)
        finally:
            with self._lock:
                self._jobs.pop(key, None)

    def busy(self) -> list[Hashable]:
        """Keys of the jobs queued or running."""
        with self._lock:
            return list(self._jobs)

    def free(self) -> int:
        """Threads with no job: how many jobs would start at once."""
        with self._lock:
            return max(0, self.size - len(self._jobs))

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no job runs; False if some still run at the timeout."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                futures = list(self._jobs.values())
            if not futures:
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            concurrent.futures.wait(futures, timeout=left)

    def stop(self, timeout: float) -> bool:
        """Take no more jobs, drop queued ones, let running ones finish for
        up to ``timeout`` seconds. False if some still run."""
        with self._lock:
            self._accepting = False
            for key, future in list(self._jobs.items()):
                if future.cancel():
                    self._jobs.pop(key, None)
        idle = self.wait_idle(timeout)
        self._executor.shutdown(wait=False, cancel_futures=True)
        return idle
