"""vnfm-conductor: the RPC server, the worker pool and the periodic tasks,
all in threads of one process (no eventlet).

``ConductorService(host=..., transport=...)`` with ``start()`` / ``stop()``
is what ``vnfm-conductor``, the all-in-one process and the tests run.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable

import oslo_messaging

from vnfm.common import rpc
from vnfm.common import timeutils
from vnfm.conductor import manager
from vnfm.conductor import packages
from vnfm.conductor import periodic
from vnfm.conductor import pm_rules
from vnfm.conductor import sync
from vnfm.conductor.notifier import Notifier
from vnfm.conductor.workers import WorkPool
from vnfm.conf import CONF
from vnfm.db import outbox
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.lcm import cancel
from vnfm.lcm.driver import LcmDriver
from vnfm.objects import autoheal

LOG = logging.getLogger(__name__)


class ConductorService:
    """One conductor: consumes the topic, runs ops, keeps leases alive."""

    def __init__(
        self,
        host: str | None = None,
        transport: oslo_messaging.Transport | None = None,
        infra: InfraDrivers | None = None,
        mgmt: MgmtRunner | None = None,
    ) -> None:
        self.host = host or CONF.host
        # What this process writes as the owner of the ops it runs.
        self.owner = periodic.process_owner(self.host)
        infra = infra or InfraDrivers.load(CONF.infra.enabled_infra_drivers)
        mgmt = mgmt or MgmtRunner.load(
            CONF.mgmt_driver.enabled_builtin_drivers
        )
        self.lcm = LcmDriver(self.owner, infra, mgmt)
        self.pool = WorkPool(CONF.conductor.workers)
        self.manager = manager.ConductorManager(self.lcm, self.pool)
        self.notifier = Notifier(self.owner)
        self.syncer = sync.Syncer(infra, CONF.conductor.sync_workers)
        target = oslo_messaging.Target(
            topic=CONF.conductor.topic,
            server=self.host,
            version=manager.ConductorManager.RPC_API_VERSION,
        )
        self._server = rpc.get_server(target, [self.manager], transport)
        self.rules = pm_rules.RuleSync()
        self._reap_after = 0.0  # time.monotonic() when reaping may resume
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Fail what an earlier process of this conductor left running,
        then start consuming and the periodic tasks."""
        self.recover()
        self._server.start()
        tasks: list[tuple[str, float, Callable[[], object]]] = [
            ('heartbeat', CONF.conductor.heartbeat_interval, self.heartbeat),
            ('sweep', CONF.conductor.sweep_interval, self.sweep),
            ('notify', CONF.notifications.interval, self.notify),
            (
                'autoheal',
                CONF.fault_management.autoheal_interval,
                self.autoheal,
            ),
            (
                'cancel',
                CONF.conductor.cancel_poll_interval,
                functools.partial(cancel.kill_forceful, self.owner),
            ),
        ]
        if CONF.kubernetes.sync_interval > 0:
            tasks.append(('sync', CONF.kubernetes.sync_interval, self.sync))
        if CONF.performance_management.rule_dir:
            tasks.append(
                (
                    'pm-rules',
                    CONF.performance_management.rule_sync_interval,
                    self.rules.round,
                )
            )
        for name, interval, task in tasks:
            thread = threading.Thread(
                target=self._every,
                args=(interval, task),
                name=f'vnfm-{name}',
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)
        LOG.info(
            'Conductor %s started as %s (topic %s, %d workers)',
            self.host,
            self.owner,
            CONF.conductor.topic,
            CONF.conductor.workers,
        )

    def stop(self, timeout: float | None = None) -> bool:
        """Stop taking work, let running ops finish for up to ``timeout``
        seconds (default ``graceful_shutdown_timeout``), then mark the ops
        still running FAILED_TEMP. True if everything finished."""
        if timeout is None:
            timeout = CONF.conductor.graceful_shutdown_timeout
        self._server.stop()
        finished = self.pool.stop(timeout)
        self._stopping.set()
        for thread in self._threads:
            thread.join()
        self.syncer.stop(0)  # its calls end at their deadlines
        self.notifier.stop()
        # Returns when oslo.messaging's idle dispatch threads notice (~1 s).
        self._server.wait()
        if not finished:
            released = periodic.release(self.owner, timeutils.utcnow())
            LOG.warning(
                'Conductor %s stopped with %d operations still running: %s',
                self.host,
                len(released),
                ', '.join(released),
            )
        self._stopped.set()
        LOG.info('Conductor %s stopped', self.host)
        return finished

    def wait(self) -> None:
        """Block until ``stop()`` has finished."""
        self._stopped.wait()

    def _every(self, interval: float, task: Callable[[], object]) -> None:
        # Until stop(): running ops keep their leases while the pool drains.
        while not self._stopping.wait(interval):
            try:
                task()
            except Exception:  # thread boundary: log, try again next time
                LOG.exception('Periodic task %s failed', task.__name__)

    def recover(self) -> list[str]:
        """FAILED_TEMP the ops an earlier process of this host was running
        (a restart) and release its notification claims; if the database
        cannot be reached now, their leases expire and the reaper fails
        them instead."""
        try:
            recovered = periodic.recover(
                self.host, self.owner, timeutils.utcnow()
            )
            # Its notifications in flight are due again now, not when the
            # claims of the dead process run out.
            outbox.release_of_host(self.host, self.owner)
        except Exception:  # start-up goes on: the reaper is the fallback
            LOG.exception(
                'Conductor %s could not look for the operations '
                'of its earlier process',
                self.host,
            )
            return []
        if recovered:
            LOG.warning(
                'Conductor %s restarted: failed the %d operations '
                'its earlier process was running: %s (if another '
                'live conductor uses host name %s, give each its '
                'own)',
                self.host,
                len(recovered),
                ', '.join(recovered),
                self.host,
            )
        return recovered

    def heartbeat(self) -> int:
        """Renew the leases of the ops this process's workers run."""
        return periodic.heartbeat(
            self.owner, self.lcm.running(), timeutils.utcnow()
        )

    def sweep(self) -> None:
        """Reap dead conductors' ops; pick up lost casts."""
        now = timeutils.utcnow()
        try:
            # Not within a lease of a failed sweep (the database was away):
            # live conductors could not renew either and must catch up first.
            if time.monotonic() >= self._reap_after:
                periodic.reap(now)
            periodic.sweep_unclaimed(now, self._submit_op, self.pool.free())
            periodic.sweep_packages(now, self._submit_onboard)
            self.notifier.purge(now)
        except Exception:
            self._reap_after = time.monotonic() + CONF.conductor.lease_seconds
            raise

    def notify(self) -> int:
        """Send the notifications due (the outbox)."""
        return self.notifier.drain(self._stopping)

    def autoheal(self) -> int:
        """Judge again the alarms auto-heal left waiting; how many."""
        return autoheal.rejudge(self._submit_op, timeutils.utcnow())

    def sync(self) -> list[str]:
        """Follow resources the VIMs replaced by themselves (idle
        instances only): queue each VIM's sync; the VIMs queued."""
        return self.syncer.round()

    def _submit_op(self, op_id: str) -> bool:
        return manager.submit_op(self.pool, self.lcm, op_id)

    def _submit_onboard(self, package_id: str) -> bool:
        return self.pool.submit(
            ('package', package_id), packages.onboard, package_id
        )
