"""The periodic sync: idle instances follow what their VIM replaced; an
instance with an operation in progress is never changed."""

from __future__ import annotations

import copy
import threading
import time

import pytest
import requests

from vnfm.clients import bounded
from vnfm.common import exceptions
from vnfm.conductor import sync
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers

from ..lcm.fixtures import NOOP_VIM
from ..lcm.fixtures import instantiate_params
from ..lcm.fixtures import instantiated
from ..lcm.fixtures import new_instance
from ..lcm.fixtures import new_op
from ..lcm.fixtures import onboarded_package
from ..lcm.fixtures import user_retries


class ReplacingDriver(NoopInfraDriver):
    """The noop driver whose VIM 'replaced' the first VNFC's resource;
    ``during`` runs inside sync, between the conductor's read and write."""

    def __init__(self) -> None:
        super().__init__()
        self.synced: list[str] = []
        self.during = None
        self.fail_for: set[str] = set()
        self.unchanged = False

    def sync(self, ctx):
        instance_id = ctx.vnf_instance['id']
        self.synced.append(instance_id)
        assert ctx.vim_connection_info['vim1']['accessInfo'] == {
            'password': 'secret-pw'
        }  # in clear for the driver
        if instance_id in self.fail_for:
            raise exceptions.OperationFailed('VIM unreachable')
        if self.during:
            self.during(instance_id)
        if self.unchanged:
            return None
        info = copy.deepcopy(ctx.vnf_instance['instantiatedVnfInfo'])
        info['vnfcResourceInfo'][0]['computeResource']['resourceId'] = (
            'replaced-by-vim'
        )
        return info


@pytest.fixture
def driver():
    return ReplacingDriver()


@pytest.fixture
def infra(driver):
    return InfraDrivers({'noop': driver})


@pytest.fixture
def package(db_url, hook_record):
    return onboarded_package()


def _vnfcs(instance_id):
    info = db.instance_get(instance_id)['instantiated_vnf_info']
    return [
        (e['id'], e['computeResource']['resourceId'])
        for e in info['vnfcResourceInfo']
    ]


def test_idle_instance_follows_the_replaced_resource(package, infra):
    inst = instantiated(package)
    before = _vnfcs(inst['id'])

    assert sync.sync_instances(infra) == [inst['id']]

    after = _vnfcs(inst['id'])
    assert after[0] == (before[0][0], 'replaced-by-vim')  # same VNFC id
    assert after[1:] == before[1:]
    # Nothing else of the instance changed.
    row = db.instance_get(inst['id'])
    assert row['instantiation_state'] == 'INSTANTIATED'
    assert row['vim_connection_info'] == inst['vim_connection_info']


def test_instance_with_an_op_in_progress_is_not_looked_at(
    package, infra, driver
):
    inst = instantiated(package)
    new_op(inst, 'HEAL', {})
    before = db.instance_get(inst['id'])

    assert sync.sync_instances(infra) == []

    assert driver.synced == []
    assert db.instance_get(inst['id']) == before


def test_failed_temp_op_still_blocks_the_sync(package, infra, driver):
    inst = instantiated(package)
    op = new_op(inst, 'HEAL', {})
    db.op_update(op['id'], {'operation_state': 'FAILED_TEMP'})

    assert sync.sync_instances(infra) == []
    assert driver.synced == []


def test_op_started_during_the_sync_wins(package, infra, driver):
    inst = instantiated(package)
    before = _vnfcs(inst['id'])
    driver.during = lambda iid: new_op(db.instance_get(iid), 'HEAL', {})

    assert sync.sync_instances(infra) == []

    assert driver.synced == [inst['id']]
    assert _vnfcs(inst['id']) == before


def test_op_started_and_finished_during_the_sync_wins(package, infra, driver):
    inst = instantiated(package)
    before = _vnfcs(inst['id'])

    def op_runs_and_finishes(iid):
        op = new_op(db.instance_get(iid), 'HEAL', {})
        db.op_update(
            op['id'],
            {'operation_state': 'COMPLETED', 'active_instance_id': None},
            instance_values={},
        )

    driver.during = op_runs_and_finishes

    assert sync.sync_instances(infra) == []
    assert _vnfcs(inst['id']) == before


def test_nothing_changed_writes_nothing(package, infra, driver):
    inst = instantiated(package)
    driver.unchanged = True

    assert sync.sync_instances(infra) == []

    assert driver.synced == [inst['id']]
    assert db.instance_get(inst['id'])['updated_at'] == inst['updated_at']


def test_a_failing_vim_does_not_stop_the_others(package, infra, driver):
    bad = instantiated(package)
    good = instantiated(package)
    driver.fail_for = {bad['id']}

    assert sync.sync_instances(infra) == [good['id']]
    assert sorted(driver.synced) == sorted([bad['id'], good['id']])


def test_not_instantiated_and_unserved_instances_are_skipped(
    package, infra, driver
):
    new_instance(package)  # NOT_INSTANTIATED
    other = instantiated(package)
    db.instance_update(
        other['id'],
        {
            'vim_connection_info': {
                'k8s': {
                    'vimId': 'x',
                    'vimType': 'ETSINFV.KUBERNETES.V_1',
                    'accessInfo': {'bearer_token': 't'},
                }
            }
        },
    )

    assert sync.sync_instances(infra) == []
    assert driver.synced == []


def test_update_if_idle_is_a_compare_and_set(package):
    inst = instantiated(package)
    stale = inst['updated_at']
    db.instance_update(inst['id'], {'vnf_instance_name': 'renamed'})

    with pytest.raises(exceptions.ConcurrentUpdate):
        db.instance_update_if_idle(
            inst['id'], {'metadata': {'a': 1}}, expected={'updated_at': stale}
        )

    current = db.instance_get(inst['id'])
    op = new_op(current, 'HEAL', {})
    with pytest.raises(exceptions.OpInProgress) as e:
        db.instance_update_if_idle(
            inst['id'],
            {'metadata': {'a': 1}},
            expected={'updated_at': db.instance_get(inst['id'])['updated_at']},
        )
    assert op['id'] in e.value.detail
    assert db.instance_get(inst['id'])['metadata'] is None


def test_retry_of_a_failed_op_keeps_blocking(package, infra, driver):
    inst = instantiated(package)
    op = new_op(inst, 'HEAL', {})
    db.op_update(op['id'], {'operation_state': 'FAILED_TEMP'})
    user_retries(op['id'])

    assert sync.sync_instances(infra) == []


def test_instance_being_instantiated_is_not_looked_at(package, infra, driver):
    inst = new_instance(package)
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    assert op['operation_state'] == 'STARTING'
    # Instantiating (op active): not synced.
    assert sync.sync_instances(infra) == []
    assert driver.synced == []


class AskingDriver(NoopInfraDriver):
    """Syncs by asking each instance's VIM (a real HTTP call, bounded as
    every client's is), then reports its first VNFC replaced."""

    def sync(self, ctx):
        _, vim = ctx.vim_connection()
        with bounded.bound(
            requests.Session(), CONF.openstack.request_timeout, 'VIM'
        ) as http:
            http.get(vim['interfaceInfo']['endpoint'])
        info = copy.deepcopy(ctx.vnf_instance['instantiatedVnfInfo'])
        info['vnfcResourceInfo'][0]['computeResource']['resourceId'] = (
            'replaced-by-vim'
        )
        return info


def _on_vim(package, name: str, endpoint: str) -> dict:
    """An instance instantiated on its own VIM at ``endpoint``."""
    vim = {
        'vim1': {
            'vimId': f'vim-{name}',
            'vimType': NOOP_VIM['vim1']['vimType'],
            'interfaceInfo': {'endpoint': endpoint},
            'accessInfo': {'password': 'secret-pw'},
        }
    }
    return instantiated(package, vimConnectionInfo=vim)


def _replaced(instance_id: str) -> bool:
    return _vnfcs(instance_id)[0][1] == 'replaced-by-vim'


@pytest.fixture
def two_vims(package, trickling_http, web, conf):
    """A VIM that trickles its answers, then one that answers at once."""
    conf('request_timeout', 30.0, group='openstack')
    web.routes['/'] = (200, {}, b'{}')
    slow = _on_vim(package, 'slow', trickling_http.url + '/')
    fast = _on_vim(package, 'fast', web.base + '/')
    return slow, fast, InfraDrivers({'noop': AskingDriver()})


def test_a_slow_vim_does_not_hold_up_the_sync_of_another(
    two_vims, trickling_http
):
    slow, fast, infra = two_vims
    round_ = threading.Thread(
        target=sync.sync_instances, args=(infra,), daemon=True
    )
    round_.start()

    _until(lambda: _replaced(fast['id']))

    assert trickling_http.accepted == 1  # the slow VIM is still answering
    assert not _replaced(slow['id'])


def test_a_slow_vim_is_given_up_at_its_deadline(two_vims, conf):
    slow, fast, infra = two_vims
    conf('sync_vim_timeout', 1.0, group='conductor')
    started = time.monotonic()

    assert sync.sync_instances(infra) == [fast['id']]

    assert time.monotonic() - started < 1.0 + 2.0
    assert not _replaced(slow['id'])


def _until(done, seconds: float = 5.0) -> None:
    """Poll ``done()`` until true; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, 'not in time'
        time.sleep(0.02)


def test_a_vim_still_being_synced_is_not_queued_again(
    two_vims, trickling_http, conf
):
    slow, fast, infra = two_vims
    syncer = sync.Syncer(infra, workers=4)

    first = syncer.round()  # returns at once: the jobs run meanwhile
    _until(lambda: fast['id'] in syncer.updated)
    second = syncer.round()

    assert sorted(first) == ['vim-fast', 'vim-slow']
    assert second == ['vim-fast']  # vim-slow is still answering
    assert trickling_http.accepted == 1
    trickling_http.stop()  # the slow VIM's call ends
    assert syncer.wait(5)
    syncer.stop(0)


class EverChangingDriver(ReplacingDriver):
    """A VIM that replaced the first VNFC's resource again at each look."""

    def sync(self, ctx):
        info = super().sync(ctx)
        info['vnfcResourceInfo'][0]['computeResource']['resourceId'] = (
            f'replaced-{len(self.synced)}'
        )
        return info


def test_a_conductors_syncer_keeps_a_bounded_record(package):
    # A conductor's Syncer lives as long as the conductor: what it
    # remembers of past rounds must not grow with them.
    inst = instantiated(package)
    infra = InfraDrivers({'noop': EverChangingDriver()})
    syncer = sync.Syncer(infra, workers=2, keep=3)

    for _ in range(5):
        assert syncer.round()
        assert syncer.wait(5)
    syncer.stop(0)

    assert list(syncer.updated) == [inst['id']] * 3  # 5 updates, 3 kept
    default = sync.Syncer(infra, workers=1)
    assert default.updated.maxlen is not None
    default.stop(0)
