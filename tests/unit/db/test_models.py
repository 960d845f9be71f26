"""What the schema itself guarantees, on SQLite as vnfm configures it:
one non-final op per instance, one package per vnfdId, no package deleted
under its instances, and what goes when its owner goes."""

from __future__ import annotations

import datetime

import pytest
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from vnfm.db import crud
from vnfm.db import models
from vnfm.db import session

PACKAGES = models.table(models.VnfPackage)
CHUNKS = models.table(models.VnfPackageChunk)
INSTANCES = models.table(models.VnfInstance)
OPS = models.table(models.VnfLcmOpOcc)
SUBSCRIPTIONS = models.table(models.Subscription)
NOTIFICATIONS = models.table(models.Notification)
NOW = datetime.datetime(2030, 1, 2, 3, 4, 5, 678901)

pytestmark = pytest.mark.usefixtures('db_url')


def package(**values: object) -> dict:
    row = {
        'onboarding_state': 'ONBOARDED',
        'operational_state': 'ENABLED',
        'usage_state': 'NOT_IN_USE',
    }
    return crud.create(PACKAGES, dict(row, **values))


def instance(pkg: dict | None = None) -> dict:
    return crud.create(
        INSTANCES,
        {
            'vnfd_id': 'vnfd-1',
            'vnf_pkg_id': pkg['id'] if pkg else None,
            'vnf_provider': 'p',
            'vnf_product_name': 'n',
            'vnf_software_version': '1.0',
            'vnfd_version': '1.0',
            'instantiation_state': 'NOT_INSTANTIATED',
        },
    )


def op(inst: dict, active: bool) -> dict:
    return crud.create(
        OPS,
        {
            'vnf_instance_id': inst['id'],
            'operation': 'HEAL',
            'operation_state': 'PROCESSING' if active else 'COMPLETED',
            'state_entered_time': NOW,
            'start_time': NOW,
            'active_instance_id': inst['id'] if active else None,
        },
    )


def count(table: sa.Table) -> int:
    with session.reader() as conn:
        return conn.execute(
            sa.select(sa.func.count()).select_from(table)
        ).scalar_one()


def test_one_non_final_op_per_instance():
    inst = instance()
    op(inst, active=False)
    op(inst, active=False)
    op(inst, active=True)

    with pytest.raises(sa_exc.IntegrityError):
        op(inst, active=True)

    op(instance(), active=True)


def test_a_vnfd_id_is_onboarded_by_one_package():
    package(vnfd_id='vnfd-1')
    package(vnfd_id=None)
    package(vnfd_id=None)

    with pytest.raises(sa_exc.IntegrityError):
        package(vnfd_id='vnfd-1')


def test_a_package_with_instances_cannot_be_deleted():
    pkg = package(vnfd_id='vnfd-1')
    instance(pkg)

    with pytest.raises(sa_exc.IntegrityError):
        crud.remove(PACKAGES, pkg['id'])


def test_a_deleted_package_takes_its_content_along():
    pkg = package()
    with session.transaction() as conn:
        conn.execute(
            CHUNKS.insert(),
            [
                {'package_id': pkg['id'], 'seq': n, 'data': b'z' * 10}
                for n in range(3)
            ],
        )

    crud.remove(PACKAGES, pkg['id'])

    assert count(CHUNKS) == 0


def test_a_deleted_instance_takes_its_ops_along():
    inst = instance()
    op(inst, active=False)
    op(instance(), active=False)

    crud.remove(INSTANCES, inst['id'])

    assert count(OPS) == 1


def test_a_deleted_subscription_takes_its_outbox_along():
    sub = crud.create(
        SUBSCRIPTIONS,
        {'callback_uri': 'https://198.18.0.1/cb', 'api_version': '2'},
    )
    with session.transaction() as conn:
        conn.execute(
            NOTIFICATIONS.insert().values(
                id='n1',
                subscription_id=sub['id'],
                notification_type='VnfLcmOperationOccurrenceNotification',
                payload={'a': 1},
                state='PENDING',
                next_attempt_at=NOW,
                created_at=NOW,
            )
        )

    crud.remove(SUBSCRIPTIONS, sub['id'])

    assert count(NOTIFICATIONS) == 0


def test_times_keep_their_microseconds_and_json_its_shape():
    inst = instance()
    row = op(inst, active=False)
    params = {'additionalParams': {'ü-日本語': [1, {'x': None}]}}
    crud.cas(OPS, row['id'], {'operation_params': params})

    stored = crud.one(OPS, row['id'])

    assert stored['state_entered_time'] == NOW
    assert stored['operation_params'] == params


def test_table_is_the_models_table():
    assert models.table(models.Vim).name == 'vims'
    assert models.table(models.VnfLcmOpOcc) is OPS
