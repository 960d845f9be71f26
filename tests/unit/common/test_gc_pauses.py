"""The garbage-collector settings and the pause watcher."""

import gc
import logging

import pytest
from oslo_config import cfg

from vnfm.common import gc_pauses
from vnfm.conf import default


@pytest.fixture
def conf():
    conf = cfg.ConfigOpts()
    default.register_opts(conf)
    conf([])
    return conf


@pytest.fixture(autouse=True)
def restore_gc():
    thresholds = gc.get_threshold()
    callbacks = list(gc.callbacks)
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    gc.callbacks[:] = callbacks


def collection(monkeypatch, caplog, seconds: float, generation: int):
    """A PauseWatcher (threshold 10 ms) that saw one collection of
    ``seconds``."""
    clock = iter([100.0, 100.0 + seconds])
    monkeypatch.setattr(gc_pauses.time, 'perf_counter', lambda: next(clock))
    watcher = gc_pauses.PauseWatcher(threshold_ms=10)
    with caplog.at_level(logging.WARNING, logger=gc_pauses.__name__):
        watcher('start', {'generation': generation})
        watcher('stop', {'generation': generation, 'collected': 7})
    return watcher


def test_a_pause_over_the_threshold_is_logged(monkeypatch, caplog):
    watcher = collection(monkeypatch, caplog, 0.0125, 2)
    assert len(caplog.records) == 1
    message = caplog.records[0].getMessage()
    assert 'paused process' in message
    assert 'for 12.5 ms (CPU ' in message
    assert 'generation 2, 7 objects collected)' in message
    assert watcher.max_ms == pytest.approx(12.5)


def test_a_pause_under_the_threshold_is_not_logged(monkeypatch, caplog):
    watcher = collection(monkeypatch, caplog, 0.004, 0)
    assert caplog.records == []
    assert watcher.collections == 1


def test_the_option_watches_real_collections(conf, caplog):
    conf.set_override('gc_log_threshold_ms', 1e-6)
    watcher = gc_pauses.watch(conf)
    assert watcher in gc.callbacks
    with caplog.at_level(logging.WARNING, logger=gc_pauses.__name__):
        gc.collect()
    assert watcher.collections >= 1
    assert any('paused process' in r.getMessage() for r in caplog.records)


def test_zero_watches_nothing_and_removes_an_earlier_watcher(conf):
    conf.set_override('gc_log_threshold_ms', 5)
    gc_pauses.watch(conf)
    conf.set_override('gc_log_threshold_ms', 0)
    assert gc_pauses.watch(conf) is None
    assert not any(isinstance(c, gc_pauses.PauseWatcher) for c in gc.callbacks)


def test_settle_freezes_what_start_up_made(conf):
    made_at_start_up = [{'n': i} for i in range(1000)]
    gc_pauses.settle(conf)
    assert gc.get_freeze_count() >= len(made_at_start_up)
    assert gc.get_threshold() == gc_pauses.THRESHOLDS
    # A full collection no longer walks them.
    assert not any(o is made_at_start_up for o in gc.get_objects())
