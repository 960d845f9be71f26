"""Shared fixtures of the lcm, conductor and drivers tests: a temp SQLite
database, onboarded sample packages, instances and op occurrences.

Use from a conftest.py: ``from ..lcm.fixtures import conf, db_url, ...``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator

import pytest

from vnfm.conductor import packages
from vnfm.conf import CONF
from vnfm.csar.build import build_csar
from vnfm.db import api as db
from vnfm.db import models
from vnfm.db import session
from vnfm.drivers.infra.noop.driver import VIM_TYPE
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver
from vnfm.lcm.driver import LcmDriver
from vnfm.lcm.run import OpRun

ROOT = os.path.dirname(
    os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    )
)
SAMPLES = os.path.join(ROOT, 'samples', 'packages')
NOOP_VIM = {
    'vim1': {
        'vimId': 'vim-noop',
        'vimType': VIM_TYPE,
        'accessInfo': {'password': 'secret-pw'},
    }
}


@functools.cache
def sample_csar(name: str = 'noop_vnf') -> bytes:
    """The CSAR of a sample package."""
    return build_csar(os.path.join(SAMPLES, name))


@pytest.fixture
def conf() -> Iterator:
    """CONF, with every override made in the test undone afterwards."""
    made: list[tuple[str, str | None]] = []

    def override(name: str, value: object, group: str | None = None) -> None:
        CONF.set_override(name, value, group=group)
        made.append((name, group))

    yield override
    for name, group in made:
        CONF.clear_override(name, group=group)


@pytest.fixture
def db_url(tmp_path, conf) -> Iterator[str]:
    """A fresh SQLite database (tables created) as vnfm's database."""
    url = f'sqlite:///{tmp_path / "vnfm.sqlite"}'
    conf('connection', url, 'database')
    conf('state_path', str(tmp_path))  # the crypto key goes there
    session.set_engine(None)
    models.Base.metadata.create_all(session.get_engine())
    yield url
    session.set_engine(None)


@pytest.fixture
def hook_record(tmp_path, monkeypatch) -> str:
    """Path where the sample hook script records its calls; scripts allowed."""
    path = str(tmp_path / 'hooks.jsonl')
    monkeypatch.setenv('VNFM_HOOK_RECORD', path)
    CONF.set_override('allow_any_script', True, group='mgmt_driver')
    yield path
    CONF.clear_override('allow_any_script', group='mgmt_driver')


def recorded_hooks(path: str) -> list[str]:
    """Hook names the sample script recorded, in order."""
    import json

    if not os.path.exists(path):
        return []
    with open(path, encoding='utf-8') as f:
        return [json.loads(line)['hook'] for line in f if line.strip()]


def onboarded_package(name: str = 'noop_vnf') -> dict:
    """An ONBOARDED package row of a sample package."""
    return onboarded_csar(sample_csar(name))


def onboarded_csar(data: bytes) -> dict:
    """An ONBOARDED package row of the CSAR ``data``."""
    row = db.package_create(
        {
            'onboarding_state': 'CREATED',
            'operational_state': 'DISABLED',
            'usage_state': 'NOT_IN_USE',
        }
    )
    db.package_content_put(row['id'], data)
    db.package_update(row['id'], {'onboarding_state': 'PROCESSING'})
    packages.onboard(row['id'])
    row = db.package_get(row['id'])
    assert row['onboarding_state'] == 'ONBOARDED', row
    return row


def new_instance(
    package: dict, vim_connection_info: dict | None = None, **values: object
) -> dict:
    """A NOT_INSTANTIATED instance of ``package``."""
    row = {
        'vnfd_id': package['vnfd_id'],
        'vnf_pkg_id': package['id'],
        'vnf_provider': package['vnf_provider'],
        'vnf_product_name': package['vnf_product_name'],
        'vnf_software_version': package['vnf_software_version'],
        'vnfd_version': package['vnfd_version'],
        'instantiation_state': 'NOT_INSTANTIATED',
        'vim_connection_info': vim_connection_info,
        'vnf_instance_name': 'vnf1',
    }
    row.update(values)
    return db.instance_create(row)


def new_op(
    instance: dict,
    operation: str,
    params: dict | None = None,
    **values: object,
) -> dict:
    """An op occurrence in STARTING (as the API inserts it)."""
    row = {
        'vnf_instance_id': instance['id'],
        'operation': operation,
        'operation_state': 'STARTING',
        'operation_params': params or {},
    }
    row.update(values)
    return db.op_create(row)


def instantiate_params(**extra: object) -> dict:
    """An InstantiateVnfRequest for the noop sample."""
    params = {'flavourId': 'simple', 'vimConnectionInfo': NOOP_VIM}
    params.update(extra)
    return params


def make_lcm(host: str = 'c1') -> tuple[LcmDriver, NoopInfraDriver]:
    """An LcmDriver with the noop infra driver and the script runner."""
    noop = NoopInfraDriver()
    return (
        LcmDriver(
            host,
            InfraDrivers({'noop': noop}),
            MgmtRunner({'script': ScriptMgmtDriver()}),
        ),
        noop,
    )


def user_retries(op_id: str) -> dict:
    """What the API does on POST .../retry: FAILED_TEMP -> PROCESSING."""
    return _user_moves(op_id, 'retry')


def user_rolls_back(op_id: str) -> dict:
    """What the API does on POST .../rollback: -> ROLLING_BACK."""
    return _user_moves(op_id, 'rollback')


def _user_moves(op_id: str, event: str) -> dict:
    from vnfm.common import timeutils
    from vnfm.objects.states import next_state

    op = db.op_get(op_id)
    return db.op_update(
        op_id,
        {
            'operation_state': next_state(op['operation_state'], event).value,
            'state_entered_time': timeutils.utcnow(),
        },
        expected={'operation_state': op['operation_state'], 'owner': None},
    )


class FlakyScripts(ScriptMgmtDriver):
    """The script driver, failing the hooks named in ``fail`` once each."""

    def __init__(self, *fail: str) -> None:
        self.fail = set(fail)

    def run_hook(self, ctx):
        from vnfm.common import exceptions

        if ctx.hook in self.fail:
            self.fail.discard(ctx.hook)
            raise exceptions.OperationFailed(f'{ctx.hook} hook: flaky')
        return super().run_hook(ctx)


def make_flaky_lcm(
    *fail: str, host: str = 'c1'
) -> tuple[LcmDriver, NoopInfraDriver]:
    """An LcmDriver whose hooks in ``fail`` fail once."""
    noop = NoopInfraDriver()
    return (
        LcmDriver(
            host,
            InfraDrivers({'noop': noop}),
            MgmtRunner({'script': FlakyScripts(*fail)}),
        ),
        noop,
    )


def instantiated(
    package: dict, lcm: LcmDriver | None = None, **params: object
) -> dict:
    """A VNF instance of ``package`` instantiated on the noop VIM."""
    inst = new_instance(package)
    op = new_op(inst, 'INSTANTIATE', instantiate_params(**params))
    (lcm or make_lcm()[0]).start(op['id'])
    assert db.op_get(op['id'])['operation_state'] == 'COMPLETED'
    return db.instance_get(inst['id'])


def run_op(
    lcm: LcmDriver, instance: dict, operation: str, params: dict | None = None
) -> dict:
    """Insert an op, run it; the op row afterwards."""
    op = new_op(instance, operation, params)
    lcm.start(op['id'])
    return db.op_get(op['id'])


def op_run(
    package: dict | None = None, host: str = 'c1/1', **op_values: object
) -> OpRun:
    """An OpRun of a PROCESSING INSTANTIATE op that ``host`` holds (on an
    instance of ``package``, default: the noop sample onboarded), for
    testing the run's bookkeeping (no package files, drivers or hooks)."""
    import time

    package = package or onboarded_package()
    inst = new_instance(package)
    op = new_op(
        inst,
        'INSTANTIATE',
        instantiate_params(),
        operation_state='PROCESSING',
        owner=host,
        **op_values,
    )
    return OpRun(
        host=host,
        op=op,
        instance=inst,
        package=package,
        files=None,  # type: ignore[arg-type]
        vnfd=package['vnfd'],
        vim_connection_info={},
        infra=None,
        mgmt=None,  # type: ignore[arg-type]
        deadline=time.monotonic() + 60,
    )
