"""vnfm.lcm.operation: each operation calls its infra driver method by a
typed call, the one its errors name."""

from __future__ import annotations

from unittest import mock

import pytest

from vnfm.drivers.infra import base as infra_base
from vnfm.lcm import driver as lcm_driver
from vnfm.lcm.operation import Operation

_WITH_INFRA = sorted(
    name for name, op in lcm_driver.OPERATIONS.items() if op.needs_infra
)
_WITH_INFRA_ROLLBACK = sorted(
    name
    for name, op in lcm_driver.OPERATIONS.items()
    if type(op).call_infra_rollback is not Operation.call_infra_rollback
)


def _driver() -> mock.Mock:
    return mock.create_autospec(infra_base.InfraDriver, instance=True)


@pytest.mark.parametrize('name', _WITH_INFRA)
def test_call_infra_calls_the_method_its_errors_name(name):
    operation = lcm_driver.OPERATIONS[name]
    driver, ctx = _driver(), mock.sentinel.ctx
    result = operation.call_infra(driver, ctx)
    method = getattr(driver, operation.infra_method)
    method.assert_called_once_with(ctx)
    assert result is method.return_value
    assert len(driver.method_calls) == 1


@pytest.mark.parametrize('name', _WITH_INFRA_ROLLBACK)
def test_call_infra_rollback_calls_the_rollback_of_that_method(name):
    operation = lcm_driver.OPERATIONS[name]
    driver, ctx = _driver(), mock.sentinel.ctx
    operation.call_infra_rollback(driver, ctx)
    method = getattr(driver, f'rollback_{operation.infra_method}')
    method.assert_called_once_with(ctx)
    assert len(driver.method_calls) == 1


def test_every_infra_operation_but_heal_and_terminate_rolls_back():
    # SOL003 defines no rollback of heal and terminate.
    assert set(_WITH_INFRA) - set(_WITH_INFRA_ROLLBACK) == {
        'HEAL',
        'TERMINATE',
    }


def test_an_operation_without_infra_has_no_infra_call():
    modify = lcm_driver.OPERATIONS['MODIFY_INFO']
    assert not modify.needs_infra
    with pytest.raises(NotImplementedError):
        modify.call_infra(_driver(), mock.sentinel.ctx)
