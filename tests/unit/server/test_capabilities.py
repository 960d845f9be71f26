"""vnfm.server.controllers.capabilities: what no enabled infra driver
serves or runs is refused by a named error before anything is written."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.objects import infra
from vnfm.objects import states
from vnfm.server.controllers import capabilities

_K8S = {'v': {'vimType': 'ETSINFV.KUBERNETES.V_1'}}


@pytest.fixture(autouse=True)
def noop_and_kubernetes() -> Iterator[None]:
    CONF.set_override(
        'enabled_infra_drivers', ['noop', 'kubernetes'], group='infra'
    )
    infra.enabled.cache_clear()
    yield
    CONF.clear_override('enabled_infra_drivers', group='infra')
    infra.enabled.cache_clear()


def test_a_served_vim_type_passes_in_v2_and_v1_names():
    capabilities.check_vim_types({'vimConnectionInfo': _K8S}, '2')
    v1 = {'vimConnectionInfo': {'v': {'vimType': 'kubernetes'}}}
    capabilities.check_vim_types(v1, '1')


def test_a_vim_type_no_driver_serves_is_vim_type_not_served():
    body = {'vimConnectionInfo': {'v': {'vimType': 'kubernetes'}}}
    # Tacker's v1 name is not a vimType of /vnflcm/v2.
    with pytest.raises(exceptions.VimTypeNotServed):
        capabilities.check_vim_types(body, '2')


def test_an_operation_no_driver_runs_is_operation_not_supported():
    row = {'id': 'i-1', 'vim_connection_info': _K8S}
    capabilities.require_operation(row, states.LcmOperation.OPERATE)
    with pytest.raises(exceptions.OperationNotSupported):
        capabilities.require_operation(
            row, states.LcmOperation.CHANGE_EXT_CONN
        )
