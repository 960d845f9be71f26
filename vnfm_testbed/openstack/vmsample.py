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


#: vm_simple's top template, which the layouts below rewrite.
TOP_HOT = 'BaseHOT/simple/vm_simple_hot.yaml'
_GROUP_CAPACITY = (
    'desired_capacity: { get_param: [ nfv, VDU, VDU1, desired_capacity ] }'
)
# Tacker's StandardUserData layout: VDU1 its own server in the top template
# (its port too), not a member of an AutoScalingGroup.
_SERVER_VDU1 = """  VDU1:
    type: OS::Nova::Server
    properties:
      flavor: { get_param: [ nfv, VDU, VDU1, computeFlavourId ] }
      image: { get_param: [ nfv, VDU, VDU1, vcImageId ] }
      networks:
        - port: { get_resource: VDU1_CP1 }

  VDU1_CP1:
    type: OS::Neutron::Port
    properties:
      network: { get_param: [ nfv, CP, VDU1_CP1, network ] }

"""
# Tacker's cluster package: a fixed desired_capacity, scaled by policies.
_POLICY = """
  VDU1_scale_out:
    type: OS::Heat::ScalingPolicy
    properties:
      scaling_adjustment: 1
      auto_scaling_group_id: { get_resource: VDU1 }
      adjustment_type: change_in_capacity
"""


def server_layout(top: str) -> str:
    """vm_simple's top template with VDU1 a server of its own."""
    start, end = top.index('  VDU1:\n'), top.index('  VDU2:\n')
    return top[:start] + _SERVER_VDU1 + top[end:]


def policy_layout(top: str) -> str:
    """vm_simple's top template with VDU1's group at a fixed
    desired_capacity and an OS::Heat::ScalingPolicy on it."""
    fixed = top.replace(_GROUP_CAPACITY, 'desired_capacity: 1')
    if fixed == top:
        raise ValueError('no desired_capacity of VDU1 in the template')
    return fixed.replace('\noutputs:', _POLICY + '\noutputs:')
