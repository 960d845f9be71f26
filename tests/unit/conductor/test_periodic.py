"""Leases, the reaper and the sweeps, with fake time."""

import datetime

from vnfm.common import crypto
from vnfm.common import timeutils
from vnfm.conductor import periodic
from vnfm.db import api as db
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver
from vnfm.lcm.driver import LcmDriver

from ..lcm.fixtures import instantiate_params
from ..lcm.fixtures import make_lcm
from ..lcm.fixtures import new_instance
from ..lcm.fixtures import new_op
from ..lcm.fixtures import onboarded_package
from ..lcm.fixtures import sample_csar

T0 = datetime.datetime(2030, 1, 1, 12, 0, 0)


def seconds(n):
    return datetime.timedelta(seconds=n)


def owned_op(owner, lease_expires_at, state='PROCESSING'):
    inst = new_instance(
        onboarded_package() if not db.package_list() else db.package_list()[0]
    )
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    return db.op_update(
        op['id'],
        {
            'operation_state': state,
            'owner': owner,
            'lease_expires_at': lease_expires_at,
        },
    )


def test_heartbeat_renews_only_the_ops_this_process_runs(db_url, conf):
    conf('lease_seconds', 30, 'conductor')
    running = owned_op('c1/p2', T0)
    # Left by an earlier process of c1, by another process named c1, and by
    # another conductor: none of them this process's to keep alive.
    orphan = owned_op('c1/p1', T0)
    twin = owned_op('c1/p3', T0)
    other = owned_op('c2/p1', T0)

    renewed = periodic.heartbeat(
        'c1/p2', [running['id'], orphan['id']], T0 + seconds(5)
    )

    assert renewed == 1
    assert db.op_get(running['id'])['lease_expires_at'] == T0 + seconds(35)
    for op in (orphan, twin, other):
        assert db.op_get(op['id'])['lease_expires_at'] == T0


def test_recover_fails_what_an_earlier_process_of_the_host_left(db_url):
    legacy = owned_op('c1', T0 + seconds(30))  # owner before process ids
    earlier = owned_op('c1/p1', T0 + seconds(30), state='ROLLING_BACK')
    mine = owned_op('c1/p2', T0 + seconds(30))
    others = [
        owned_op('c10/p1', T0 + seconds(30)),
        owned_op('c2/p1', T0 + seconds(30)),
    ]

    failed = periodic.recover('c1', 'c1/p2', T0)

    assert sorted(failed) == sorted([legacy['id'], earlier['id']])
    earlier = db.op_get(earlier['id'])
    assert earlier['operation_state'] == 'FAILED_TEMP'
    assert earlier['owner'] is None
    assert earlier['error']['detail'] == (
        'Conductor c1 restarted at 2030-01-01T12:00:00.000000Z while the '
        'operation was ROLLING_BACK (in its earlier process c1/p1); retry, '
        'rollback or fail it.'
    )
    assert db.op_get(legacy['id'])['operation_state'] == 'FAILED_TEMP'
    for op in (mine, *others):
        assert db.op_get(op['id'])['operation_state'] == 'PROCESSING'


def test_conductor_process_owner_names_its_host():
    owner = periodic.process_owner('c1')
    assert owner.startswith('c1/') and owner != periodic.process_owner('c1')
    assert periodic.host_of(owner) == 'c1'
    assert periodic.host_of('c1') == 'c1'


def test_reaper_fails_ops_of_dead_conductor_only(db_url):
    dead = owned_op('c2', T0)
    live = owned_op('c1', T0 + seconds(30))

    reaped = periodic.reap(T0 + seconds(1))

    assert reaped == [dead['id']]
    dead = db.op_get(dead['id'])
    assert dead['operation_state'] == 'FAILED_TEMP'
    assert dead['owner'] is None and dead['lease_expires_at'] is None
    assert dead['active_instance_id'] == dead['vnf_instance_id']
    assert dead['error']['status'] == 500
    assert dead['error']['detail'] == (
        'Conductor c2 stopped renewing its lease on this operation at '
        '2030-01-01T12:00:00.000000Z while it was PROCESSING; retry, '
        'rollback or fail it.'
    )
    live = db.op_get(live['id'])
    assert live['operation_state'] == 'PROCESSING' and live['owner'] == 'c1'


def test_reaper_fails_a_rollback_too(db_url):
    op = owned_op('c2', T0, state='ROLLING_BACK')
    periodic.reap(T0 + seconds(1))
    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    assert 'while it was ROLLING_BACK' in op['error']['detail']


def test_reaper_leaves_an_op_renewed_meanwhile(db_url):
    op = owned_op('c2', T0)
    stale = db.op_get(op['id'])
    periodic.heartbeat('c2', [op['id']], T0)  # c2 is alive after all

    assert periodic._fail_owned(stale, T0 + seconds(1), 'x') is False
    assert db.op_get(op['id'])['operation_state'] == 'PROCESSING'


def test_conductor_that_lost_its_op_does_not_overwrite_it(db_url, hook_record):
    """c1's lease expires while a hook runs; c2 reaps the op; c1 stops."""

    class ReapedDuringHook(ScriptMgmtDriver):
        def run_hook(self, ctx):
            periodic.reap(timeutils.utcnow() + seconds(3600))
            return super().run_hook(ctx)

    noop = NoopInfraDriver()
    lcm = LcmDriver(
        'c1',
        InfraDrivers({'noop': noop}),
        MgmtRunner({'script': ReapedDuringHook()}),
    )
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())

    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    assert op['error']['detail'].startswith('Conductor c1 stopped renewing')
    assert noop.calls == []  # c1 stopped before the VIM step
    assert db.instance_get(inst['id'])['instantiation_state'] == (
        'NOT_INSTANTIATED'
    )


def test_doorbell_sweep_runs_an_op_whose_cast_was_lost(
    db_url, conf, hook_record
):
    conf('unclaimed_grace_seconds', 10, 'conductor')
    lcm, _ = make_lcm()
    inst = new_instance(onboarded_package())
    now = timeutils.utcnow()
    lost = new_op(
        inst,
        'INSTANTIATE',
        instantiate_params(),
        state_entered_time=now - seconds(11),
    )

    queued = periodic.sweep_unclaimed(
        now, lambda op_id: (lcm.start(op_id), True)[1], free=8
    )

    assert queued == [lost['id']]
    assert db.op_get(lost['id'])['operation_state'] == 'COMPLETED'


def test_doorbell_sweep_waits_for_the_grace_period(db_url, conf):
    conf('unclaimed_grace_seconds', 10, 'conductor')
    inst = new_instance(onboarded_package())
    now = timeutils.utcnow()
    new_op(
        inst,
        'INSTANTIATE',
        instantiate_params(),
        state_entered_time=now - seconds(5),
    )
    seen = []

    assert periodic.sweep_unclaimed(now, seen.append, free=8) == []
    assert seen == []


def test_doorbell_sweep_queues_no_more_than_the_free_workers(db_url, conf):
    """Under a backlog the ops wait for busy workers, not for a lost cast:
    a conductor queues only what it can start, the longest waiting first."""
    conf('unclaimed_grace_seconds', 10, 'conductor')
    now = timeutils.utcnow()
    package = onboarded_package()
    waiting = [
        new_op(
            new_instance(package),
            'INSTANTIATE',
            instantiate_params(),
            state_entered_time=now - seconds(20 - i),
        )['id']
        for i in range(3)
    ]

    def queue(op_id: str) -> bool:
        return True

    assert periodic.sweep_unclaimed(now, queue, free=0) == []
    assert periodic.sweep_unclaimed(now, queue, free=2) == waiting[:2]
    assert periodic.sweep_unclaimed(now, queue, free=5) == waiting


def test_second_conductor_cannot_claim_a_claimed_op(db_url):
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    c1, _ = make_lcm('c1')
    c2, _ = make_lcm('c2')

    assert c1.claim(op)['owner'] == 'c1'
    assert c2.claim(op) is None
    claimed = db.op_get(op['id'])
    assert (claimed['owner'], claimed['operation_state']) == (
        'c1',
        'PROCESSING',
    )


def test_release_fails_ops_of_a_stopping_conductor(db_url):
    op = owned_op('c1', T0 + seconds(30))
    other = owned_op('c2', T0 + seconds(30))

    assert periodic.release('c1', T0) == [op['id']]

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    assert op['error']['detail'] == (
        'Conductor c1 was stopped at 2030-01-01T12:00:00.000000Z while the '
        'operation was PROCESSING; retry, rollback or fail it.'
    )
    assert db.op_get(other['id'])['owner'] == 'c2'


def _package(state, **values):
    row = db.package_create(
        dict(
            {
                'onboarding_state': state,
                'operational_state': 'DISABLED',
                'usage_state': 'NOT_IN_USE',
            },
            **values,
        )
    )
    return row


def test_package_sweep_reruns_stalled_onboarding(db_url, conf):
    conf('unclaimed_grace_seconds', 10, 'conductor')
    stalled = _package('PROCESSING')
    db.package_content_put(stalled['id'], sample_csar())
    from vnfm.conductor import packages

    later = timeutils.utcnow() + seconds(11)
    queued = periodic.sweep_packages(
        later, lambda pid: (packages.onboard(pid), True)[1]
    )

    assert queued == [stalled['id']]
    assert db.package_get(stalled['id'])['onboarding_state'] == 'ONBOARDED'


def test_package_sweep_fails_interrupted_uri_uploads(db_url, conf):
    conf('upload_from_uri_timeout', 60, 'vnf_package')
    source = {
        'addressInformation': 'http://example.com/p.zip',
        crypto.SEALED: crypto.encrypt({'password': 'pw'}),
    }
    cut = _package('UPLOADING', upload_source=source)
    direct = _package('UPLOADING')
    now = timeutils.utcnow()

    periodic.sweep_packages(now + seconds(119), lambda pid: True)
    assert db.package_get(cut['id'])['onboarding_state'] == 'UPLOADING'

    periodic.sweep_packages(now + seconds(121), lambda pid: True)

    cut = db.package_get(cut['id'])
    assert cut['onboarding_state'] == 'ERROR'
    assert cut['onboarding_failure_details']['detail'] == (
        'The upload was interrupted; upload again.'
    )
    assert cut['upload_source'] == {
        'addressInformation': 'http://example.com/p.zip'
    }
    assert db.package_get(direct['id'])['onboarding_state'] == 'UPLOADING'
