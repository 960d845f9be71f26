"""The periodic sync: idle instances follow what their VIM replaced; an
instance with an operation in progress is never changed."""

from __future__ import annotations

import copy

import pytest

from vnfm.common import exceptions
from vnfm.conductor import sync
from vnfm.db import api as db
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers

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

    with pytest.raises(exceptions.Conflict) as e:
        db.instance_update_if_idle(
            inst['id'], {'metadata': {'a': 1}}, expected={'updated_at': stale}
        )
    assert 'changed meanwhile' in e.value.detail

    current = db.instance_get(inst['id'])
    op = new_op(current, 'HEAL', {})
    with pytest.raises(exceptions.Conflict) as e:
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
