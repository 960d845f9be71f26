"""The garbage collector in the vnfm services: what start-up imported is
frozen out of its sight, and pauses longer than
``[DEFAULT] gc_log_threshold_ms`` are logged.

CPython stops every thread of a process while it collects. A full
collection walks every tracked object; after the imports of a conductor
that is about 150,000 objects and 60-100 ms, every few seconds, even idle.
Objects made by the imports live as long as the process: ``gc.freeze()``
moves them to the permanent generation, which no collection walks, so a
full collection only walks what the process made since.
"""

from __future__ import annotations

import gc
import logging
import os
import time
from typing import Any

from oslo_config import cfg

LOG = logging.getLogger(__name__)

#: Collect the youngest generation after 10,000 net allocations instead of
#: CPython's 700: a request of the API makes several thousand objects, most
#: freed when it ends, and a young generation of that size takes well under
#: a millisecond to collect. The older generations keep CPython's ratios.
THRESHOLDS = (10_000, 10, 10)


def freeze_start_up() -> int:
    """Collect, then freeze every object the process has now (what
    start-up made); the number frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


class PauseWatcher:
    """A ``gc.callbacks`` entry that times each collection and logs those
    that pause the process for more than ``threshold_ms``."""

    def __init__(self, threshold_ms: float) -> None:
        self.threshold_ms = threshold_ms
        self.collections = 0
        self.max_ms = 0.0
        self._started = (0.0, 0.0)

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        # Collections do not nest and run with the GIL held: one start
        # time serves every thread. The CPU time of the collecting thread
        # tells the collector's own work from time the host gave to other
        # processes meanwhile.
        if phase == 'start':
            self._started = (time.perf_counter(), time.thread_time())
            return
        ms = (time.perf_counter() - self._started[0]) * 1000
        self.collections += 1
        self.max_ms = max(self.max_ms, ms)
        if ms > self.threshold_ms:
            LOG.warning(
                'Garbage collection paused process %d for %.1f ms (CPU '
                '%.1f ms; generation %d, %d objects collected)',
                os.getpid(),
                ms,
                (time.thread_time() - self._started[1]) * 1000,
                info['generation'],
                info['collected'],
            )

    def install(self) -> None:
        """Start watching (once)."""
        if self not in gc.callbacks:
            gc.callbacks.append(self)

    def remove(self) -> None:
        """Stop watching."""
        if self in gc.callbacks:
            gc.callbacks.remove(self)


def watch(conf: cfg.ConfigOpts) -> PauseWatcher | None:
    """Install a PauseWatcher when ``[DEFAULT] gc_log_threshold_ms`` is
    set; the watcher, or None."""
    for callback in gc.callbacks:
        if isinstance(callback, PauseWatcher):
            callback.remove()
    if not conf.gc_log_threshold_ms:
        return None
    watcher = PauseWatcher(conf.gc_log_threshold_ms)
    watcher.install()
    return watcher


def settle(conf: cfg.ConfigOpts) -> None:
    """At the end of a service's start-up: freeze what start-up made, set
    the thresholds, watch pauses as configured."""
    gc.set_threshold(*THRESHOLDS)
    frozen = freeze_start_up()
    LOG.info(
        'Froze the %d objects made by start-up: garbage collections no '
        'longer walk them',
        frozen,
    )
    watch(conf)
