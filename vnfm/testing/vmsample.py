"""The vm_simple sample package (Tacker v2 OpenStack layout) on the local
cloud: its path and an InstantiateVnfRequest, for the tests and the bench."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SAMPLE = (
    Path(__file__).resolve().parents[2] / 'samples' / 'packages' / 'vm_simple'
)
SAMPLE_V2 = SAMPLE.with_name('vm_simple_v2')
VIM_TYPE = 'ETSINFV.OPENSTACK_KEYSTONE.V_3'


def instantiate_request(vim_id: str) -> dict[str, Any]:
    """A v2 InstantiateVnfRequest of vm_simple on registered VIM
    ``vim_id``: its external CPs on the catalogue's mgmt-net, its internal
    VL on data-net-1."""
    return {
        'flavourId': 'simple',
        'vimConnectionInfo': {'vim1': {'vimId': vim_id, 'vimType': VIM_TYPE}},
        'extVirtualLinks': [
            {
                'id': 'ext1',
                'resourceId': 'mgmt-net',
                'extCps': [
                    {'cpdId': 'VDU1_CP1', 'cpConfig': {'a': {}}},
                    {'cpdId': 'VDU2_CP1', 'cpConfig': {'a': {}}},
                ],
            }
        ],
        'extManagedVirtualLinks': [
            {
                'id': 'int1',
                'vnfVirtualLinkDescId': 'internalVL1',
                'resourceId': 'data-net-1',
            }
        ],
    }


def as_v1(request: dict[str, Any]) -> dict[str, Any]:
    """A v2 InstantiateVnfRequest of this module's shape in v1 form: its
    vimConnectionInfo a list with vimType ``openstack``, cpConfig lists."""
    v1 = dict(request)
    v1['vimConnectionInfo'] = [
        {'id': key, 'vimId': entry['vimId'], 'vimType': 'openstack'}
        for key, entry in request['vimConnectionInfo'].items()
    ]
    v1['extVirtualLinks'] = [
        dict(
            link,
            extCps=[
                dict(cp, cpConfig=[{'cpProtocolData': []}])
                for cp in link['extCps']
            ],
        )
        for link in request['extVirtualLinks']
    ]
    return v1
