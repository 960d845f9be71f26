"""Faults: vnfm-api and two conductors on a private RabbitMQ and PostgreSQL
run 100 LCM operations (20 instances, each instantiate, scale, heal, modify,
terminate, with hooks that sleep) while conductors are killed (-9) and
restarted, under the same or a new host name, and RabbitMQ and PostgreSQL
are restarted for real (private servers: the machine-wide ones serve other
tests).

What must hold: every op comes to rest (COMPLETED, or FAILED_TEMP with a
detail) within lease + sweep interval of its conductor's death; a retry of
each FAILED_TEMP completes; no op stays PROCESSING; the notifications of
each op reach the subscriber complete and in order (copies of one
notification, at-least-once delivery, keep its place).

The figures (ops, kills, restarts, times) are printed at the end (-s).
"""

from __future__ import annotations

import itertools
import json
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.unit.conductor.receiver import Receiver
from vnfm.objects.states import OP_TRANSITIONS
from vnfm_testbed import brokers
from vnfm_testbed import procs

from .conftest import LOGGED_SERVICES
from .conftest import Api
from .conftest import Zip
from .conftest import wait_for
from .conftest import zip_scripts_sha256

pytestmark = pytest.mark.timeout(420)

INSTANCES = 20  # x 5 operations = 100
LEASE, SWEEP, HEARTBEAT = 3, 0.5, 0.5
# Slack over lease + sweep: a heartbeat just before the kill, DB latency on
# two loaded cores.
SLACK = HEARTBEAT + 2.5
LEGAL = {(a.value, b.value) for (a, _), b in OP_TRANSITIONS.items()}


@pytest.fixture(scope='module')
def servers(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[brokers.PrivatePostgres, brokers.PrivateRabbit]]:
    """A private PostgreSQL and RabbitMQ, started together."""
    root = tmp_path_factory.mktemp('faults-servers')
    pg = brokers.PrivatePostgres(root / 'postgres')
    rabbit = brokers.PrivateRabbit(root / 'rabbitmq')
    try:
        with futures.ThreadPoolExecutor(2) as pool:
            for started in [pool.submit(pg.start), pool.submit(rabbit.start)]:
                started.result()
        yield pg, rabbit
    finally:
        rabbit.stop()
        pg.remove()


@pytest.fixture(scope='module')
def vnfm(
    servers,
    tmp_path_factory: pytest.TempPathFactory,
    zips: dict[str, Zip],
    hook_record: Path,
) -> Iterator[procs.VnfmServices]:
    """vnfm-api and two conductors on the private servers, short leases."""
    pg, rabbit = servers
    allowed = sorted(zip_scripts_sha256(zips['v1'].path.read_bytes()))
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('faults-vnfm'),
        transport_url=rabbit.transport_url,
        postgres_url=pg.url,
        env={'VNFM_HOOK_RECORD': str(hook_record)},
        conf={
            'conductor': {
                'lease_seconds': LEASE,
                'heartbeat_interval': HEARTBEAT,
                'sweep_interval': SWEEP,
                'unclaimed_grace_seconds': 1,
                'graceful_shutdown_timeout': 1,
            },
            # A dead conductor's claimed notifications wait for their
            # lease (default 120 s) when it comes back under a new name.
            'notifications': {
                'interval': 0.2,
                'backoff_base': 0.2,
                'backoff_cap': 2,
                'max_attempts': 1000,
                'lease_seconds': 5,
                'timeout': 1,
            },
            'mgmt_driver': {'allowed_script_sha256': ','.join(allowed)},
            'oslo_messaging_rabbit': {
                'rabbit_retry_interval': 1,
                'rabbit_retry_backoff': 1,
                'kombu_reconnect_delay': 0.5,
            },
        },
    )
    LOGGED_SERVICES['vnfm'] = svc
    try:
        svc.start(conductors=2)
        yield svc
    finally:
        svc.stop()
        LOGGED_SERVICES.pop('vnfm', None)


class Figures:
    """What the run measured."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ops: dict[str, list[str]] = {}  # op id -> states seen
        self.failed_temp: list[tuple[str, str]] = []  # (op, detail)
        self.retries = 0
        self.kills: list[dict[str, Any]] = []
        self.restarts: list[tuple[str, float]] = []
        self.errors: list[str] = []

    def seen(self, op_id: str, state: str) -> None:
        with self.lock:
            states = self.ops.setdefault(op_id, [])
            if not states or states[-1] != state:
                states.append(state)


class Workload:
    """One thread per instance runs its five operations one after the
    other, retrying FAILED_TEMP, riding out API errors while a server
    restarts."""

    def __init__(self, api: Api, figures: Figures, seed: int) -> None:
        self.api = api
        self.figures = figures
        self.random = random.Random(seed)

    def _sleepy(self, hook: str) -> dict:
        return {'hook_sleep': {hook: round(self.random.uniform(0.2, 1.5), 2)}}

    def plan(self) -> list[tuple[str, str, dict, str]]:
        """(method, path suffix, body, operation) of the five ops."""
        inst = self.api.instantiate_request(
            **self._sleepy('instantiate_start')
        )
        return [
            ('POST', '/instantiate', inst, 'INSTANTIATE'),
            (
                'POST',
                '/scale',
                {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect'},
                'SCALE',
            ),
            ('POST', '/heal', {'cause': 'fault suite'}, 'HEAL'),
            (
                'PATCH',
                '',
                {'metadata': self._sleepy('modify_information_start')},
                'MODIFY_INFO',
            ),
            (
                'POST',
                '/terminate',
                {
                    'terminationType': 'FORCEFUL',
                    'additionalParams': self._sleepy('terminate_start'),
                },
                'TERMINATE',
            ),
        ]

    def _call(
        self, method: str, path: str, **kw: Any
    ) -> requests.Response | None:
        try:
            return self.api.lcm(method, path, timeout=10, **kw)
        except requests.RequestException:
            return None

    def _ops_of(self, inst_id: str, operation: str) -> set[str]:
        r = self._call(
            'GET',
            '/vnf_lcm_op_occs',
            params={'filter': f'(eq,vnfInstanceId,{inst_id})'},
        )
        if r is None or r.status_code != 200:
            return set()
        return {o['id'] for o in r.json() if o['operation'] == operation}

    def create(self, deadline: float) -> str:
        """Create an instance; an error answer may still have created
        it."""
        name = f'faults-{self.random.getrandbits(64):x}'
        body = {'vnfdId': self.api.V1_VNFD_ID, 'vnfInstanceName': name}
        while time.monotonic() < deadline:
            r = self._call('POST', '/vnf_instances', json=body)
            if r is not None and r.status_code == 201:
                return r.json()['id']
            r = self._call(
                'GET',
                '/vnf_instances',
                params={'filter': f'(eq,vnfInstanceName,{name})'},
            )
            if r is not None and r.status_code == 200 and r.json():
                return r.json()[0]['id']
            time.sleep(0.5)  # the API or its servers are restarting
        raise AssertionError(f'instance {name} not created')

    def submit(
        self,
        inst_id: str,
        step: tuple[str, str, dict, str],
        known: set[str],
        deadline: float,
    ) -> str:
        """Start one op; an error answer may still have created it."""
        method, suffix, body, operation = step
        while time.monotonic() < deadline:
            r = self._call(
                method, f'/vnf_instances/{inst_id}{suffix}', json=body
            )
            if r is not None and r.status_code == 202:
                return r.headers['Location'].rstrip('/').rsplit('/', 1)[1]
            if r is not None and r.status_code < 500 and r.status_code != 409:
                raise AssertionError(f'{operation}: {r.status_code} {r.text}')
            new = self._ops_of(inst_id, operation) - known
            if new:
                return new.pop()
            time.sleep(0.5)  # the API or its servers are restarting
        raise AssertionError(f'{operation} of {inst_id} not accepted')

    def settle(self, op_id: str, deadline: float) -> None:
        """Poll until COMPLETED; retry each FAILED_TEMP."""
        while time.monotonic() < deadline:
            r = self._call('GET', f'/vnf_lcm_op_occs/{op_id}')
            if r is None or r.status_code != 200:
                time.sleep(0.5)
                continue
            op = r.json()
            state = op['operationState']
            self.figures.seen(op_id, state)
            if state == 'COMPLETED':
                return
            if state in ('FAILED', 'ROLLED_BACK'):
                raise AssertionError(f'op {op_id} ended {state}: {op}')
            if state == 'FAILED_TEMP':
                detail = (op.get('error') or {}).get('detail')
                assert detail, f'FAILED_TEMP without a detail: {op}'
                with self.figures.lock:
                    self.figures.failed_temp.append((op_id, detail))
                    self.figures.retries += 1
                self._call('POST', f'/vnf_lcm_op_occs/{op_id}/retry')
            time.sleep(0.2)
        raise AssertionError(f'op {op_id} still not COMPLETED')

    def lifecycle(self, deadline: float, ready: Callable[[], None]) -> None:
        """Once ``ready()`` returns, create an instance and run its five
        ops."""
        ready()
        inst_id = self.create(deadline)
        known: set[str] = set()
        for step in self.plan():
            op_id = self.submit(inst_id, step, known, deadline)
            known.add(op_id)
            self.settle(op_id, deadline)


class Chaos:
    """Kills conductors and restarts the servers while the workload
    runs."""

    def __init__(
        self,
        svc: procs.VnfmServices,
        servers: tuple,
        api: Api,
        figures: Figures,
        seed: int,
    ) -> None:
        self.svc = svc
        self.pg, self.rabbit = servers
        self.api = api
        self.figures = figures
        self.random = random.Random(seed)
        self._pool = futures.ThreadPoolExecutor(1)
        # Faults begun so far: instances start in step with them, so the
        # load lasts as long as the faults.
        self.begun = 0
        self.progress = threading.Condition()

    def _held_by(self, host: str) -> list[str]:
        return [
            op_id
            for (op_id,) in self.svc.sql(
                'SELECT id FROM vnf_lcm_op_occs WHERE owner LIKE %s AND '
                "operation_state IN ('PROCESSING', 'ROLLING_BACK')",
                (host + '/%',),
            )
        ]

    def _in_hook(self) -> str | None:
        """A conductor running a hook now (a sleeping hook is recorded
        when it starts)."""
        lines = (
            self.api.hook_record.read_text().splitlines()[-10:]
            if (self.api.hook_record.exists())
            else []
        )
        ids = [json.loads(line)['vnf_instance_id'] for line in lines]
        rows = self.svc.sql(
            'SELECT owner FROM vnf_lcm_op_occs WHERE vnf_instance_id = '
            "ANY(%s) AND operation_state = 'PROCESSING'",
            (ids,),
        )
        owners = [o.split('/')[0] for (o,) in rows if o]
        return owners[0] if owners else None

    def _in_commit(self) -> Iterator[str]:
        """Hold the notification outbox locked until a conductor waits on
        it in the middle of a state change's transaction; yield that
        conductor, then let go (its transaction dies with it)."""
        conn = self.svc.db_connection()
        try:
            with conn.cursor() as cur:
                cur.execute(
                    'BEGIN; LOCK TABLE notifications IN SHARE ROW '
                    'EXCLUSIVE MODE'
                )

                def waiting() -> str | None:
                    rows = self.svc.sql(
                        'SELECT application_name FROM pg_stat_activity '
                        "WHERE wait_event_type = 'Lock' AND "
                        "application_name LIKE 'conductor-%%'"
                    )
                    return rows[0][0] if rows else None

                yield wait_for(waiting, 30, 'a conductor in a commit')
                cur.execute('ROLLBACK')
        finally:
            conn.close()

    def kill(self, where: str, same_name: bool) -> None:
        """SIGKILL a conductor (one in a hook for where='hook', one in
        a transaction for 'commit'), start it again; time how long until
        its ops are at rest."""
        if where == 'commit':
            committing = self._in_commit()
            host = next(committing)
            held = self._held_by(host)
            self.svc.kill(host, signal.SIGKILL)
            next(committing, None)
        else:
            host = None
            if where == 'hook':
                host = wait_for(self._in_hook, 30, 'a conductor in a hook')
            host = host or self.random.choice(self.svc.conductors())
            held = self._held_by(host)
            self.svc.kill(host, signal.SIGKILL)
        killed = time.monotonic()
        record = {
            'where': where,
            'host': host,
            'ops': len(held),
            'same_name': same_name,
        }
        self.figures.kills.append(record)
        # Measured while the replacement starts; done before the next fault.
        resting = self._pool.submit(self._time_to_rest, held, killed, record)
        self.svc.start_conductors(1, hosts=[host] if same_name else ())
        resting.result()

    def _time_to_rest(
        self, held: list[str], killed: float, record: dict
    ) -> None:
        def at_rest() -> bool:
            rows = self.svc.sql(
                'SELECT id FROM vnf_lcm_op_occs WHERE id = ANY(%s) AND '
                'owner LIKE %s',
                (held, record['host'] + '/%'),
            )
            return not rows

        wait_for(at_rest, 60, f'ops of killed {record["host"]} at rest')
        record['seconds_to_rest'] = round(time.monotonic() - killed, 2)

    def restart(self, name: str, fn: Callable[[], None]) -> None:
        """Restart a server; record how long it was away."""
        began = time.monotonic()
        fn()
        self.figures.restarts.append(
            (name, round(time.monotonic() - began, 1))
        )

    def steps(self) -> list[Callable[[], None]]:
        """The faults, in order."""
        return [
            lambda: self.kill('hook', same_name=True),
            lambda: self.kill('random', same_name=False),
            lambda: self.restart('rabbitmq', self.rabbit.restart),
            lambda: self.kill('commit', same_name=True),
            lambda: self.restart(
                'postgresql', lambda: self.pg.restart(signal.SIGQUIT)
            ),
            lambda: self.kill('random', same_name=True),
            # Last, one that waits for the load: it cannot end first.
            lambda: self.kill('hook', same_name=False),
        ]

    def run(self, done: threading.Event) -> int:
        """Run the faults, spread over the workload; how many began before
        the workload ended."""
        under_load = 0
        try:
            for step in self.steps():
                time.sleep(self.random.uniform(0.5, 1.5))  # spread them
                if done.is_set():
                    break
                self._begin(1)
                loaded = not done.is_set()
                step()
                under_load += loaded
        finally:
            self._begin(INSTANCES)  # let every instance go
            self._pool.shutdown()
        return under_load

    def _begin(self, n: int) -> None:
        with self.progress:
            self.begun += n
            self.progress.notify_all()

    def wait_begun(self, n: int) -> None:
        """Until ``n`` faults have begun (or all are over)."""
        with self.progress:
            self.progress.wait_for(lambda: self.begun >= n)


def test_faults_under_load(
    vnfm: procs.VnfmServices, servers, zips: dict[str, Zip], hook_record: Path
) -> None:
    began = time.monotonic()
    api = Api(vnfm.api_url, hook_record)
    api.onboard(zips['v1'].path)
    receiver = Receiver().start()
    figures = Figures()
    try:
        sub = api.ok(
            'POST', '/subscriptions', 201, json={'callbackUri': receiver.url}
        ).json()
        seed = int(time.time())
        chaos = Chaos(vnfm, servers, api, figures, seed)
        deadline = time.monotonic() + 300
        done = threading.Event()
        faults = len(chaos.steps())
        with futures.ThreadPoolExecutor(INSTANCES + 1) as pool:
            chaos_run = pool.submit(chaos.run, done)
            lifecycles = [
                pool.submit(
                    Workload(api, figures, seed + i).lifecycle,
                    deadline,
                    lambda i=i: chaos.wait_begun(1 + i * faults // INSTANCES),
                )
                for i in range(INSTANCES)
            ]
            for lifecycle in futures.as_completed(lifecycles):
                lifecycle.result()
            done.set()
            under_load = chaos_run.result()
        assert under_load == faults, (
            f'the load ended after {under_load} of the faults'
        )
        _assert_at_rest(vnfm)
        _wait_delivered(vnfm)
        _assert_notifications(receiver.bodies(), figures, sub['id'])
    finally:
        receiver.stop()
    _report(figures, time.monotonic() - began, seed)


def _assert_at_rest(vnfm: procs.VnfmServices) -> None:
    rows = vnfm.sql(
        'SELECT operation_state, count(*) FROM vnf_lcm_op_occs '
        'GROUP BY operation_state'
    )
    assert dict(rows) == {'COMPLETED': 5 * INSTANCES}, rows


def _wait_delivered(vnfm: procs.VnfmServices) -> None:
    def undelivered() -> list[tuple]:
        return vnfm.sql(
            'SELECT state, owner, count(*) FROM notifications '
            "WHERE state <> 'DELIVERED' GROUP BY state, owner"
        )

    if not procs.wait_for(lambda: not undelivered(), 60):
        pytest.fail(f'notifications not delivered after 60 s: {undelivered()}')


def _assert_notifications(
    bodies: list[dict], figures: Figures, sub_id: str
) -> None:
    """Per op: the states notified, in the order received (copies of one
    notification id count once), follow legal transitions from STARTING to
    COMPLETED and include every FAILED_TEMP the op went through."""
    by_op: dict[str, list[str]] = {}
    first_seen: set[str] = set()
    for body in bodies:
        if body.get('notificationType') != (
            'VnfLcmOperationOccurrenceNotification'
        ):
            continue
        assert body['subscriptionId'] == sub_id
        if body['id'] in first_seen:
            continue
        first_seen.add(body['id'])
        by_op.setdefault(body['vnfLcmOpOccId'], []).append(
            body['operationState']
        )
    assert set(by_op) == set(figures.ops), 'ops without notifications'
    failed_temp: dict[str, int] = {}
    for op_id, _detail in figures.failed_temp:
        failed_temp[op_id] = failed_temp.get(op_id, 0) + 1
    for op_id, states in by_op.items():
        assert states[0] == 'STARTING' and states[-1] == 'COMPLETED', (
            op_id,
            states,
        )
        for pair in itertools.pairwise(states):
            assert pair in LEGAL, (op_id, states)
        assert states.count('FAILED_TEMP') >= min(
            failed_temp.get(op_id, 0), 1
        ), (op_id, states)


def _report(figures: Figures, seconds: float, seed: int) -> None:
    kills = figures.kills
    print(
        '\nfault suite:',
        json.dumps(
            {
                'seed': seed,
                'ops': len(figures.ops),
                'failed_temp_then_retried': figures.retries,
                'kills': kills,
                'restarts': figures.restarts,
                'max_seconds_kill_to_rest': max(
                    (k.get('seconds_to_rest', 0) for k in kills), default=0
                ),
                'seconds': round(seconds, 1),
            },
            indent=1,
        ),
    )
    for kill in kills:
        if kill['ops']:
            assert kill['seconds_to_rest'] <= LEASE + SWEEP + SLACK, kill
