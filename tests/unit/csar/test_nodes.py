"""What a Heat template is computed from: a flavour's connection points,
storages, links and compute flavours, read from SOL001 and Tacker-style
node templates alike."""

from __future__ import annotations

import pytest

from vnfm.csar import nodes
from vnfm.csar import types

REGISTRY = types.TypeRegistry(
    [
        (
            'vendor.yaml',
            {
                'node_types': {
                    'acme.Cp': {'derived_from': types.VDU_CP},
                    types.VDU_CP: {'derived_from': 'tosca.nodes.Root'},
                }
            },
        )
    ]
)
NODES = {
    'VDU1': {'type': types.VDU_COMPUTE},
    'CP1': {
        'type': types.VDU_CP,
        'properties': {'order': 0},
        'requirements': [{'virtual_binding': 'VDU1'}, {'virtual_link': 'VL1'}],
    },
    'CP2': {
        'type': 'acme.Cp',
        'properties': {'order': 'first'},
        'requirements': [{'virtual_binding': {'node': 'VDU1'}}],
    },
    'VL1': {'type': types.VIRTUAL_LINK},
    'VL0': {'type': types.VIRTUAL_LINK},
    'Disk': {
        'type': types.VIRTUAL_STORAGE,
        'properties': {
            'virtual_block_storage_data': {'size_of_storage': '1536 MiB'},
            'sw_image_data': {'name': 'cirros'},
        },
    },
    'Scratch': {'type': types.VIRTUAL_STORAGE, 'properties': {}},
    'junk': 'not a node',
}


def test_connection_points_with_binding_link_and_order():
    found = nodes.cps(NODES, REGISTRY)

    assert set(found) == {'CP1', 'CP2'}
    assert (found['CP1'].vdu, found['CP1'].virtual_link) == ('VDU1', 'VL1')
    assert found['CP1'].order == 0
    assert (found['CP2'].vdu, found['CP2'].virtual_link) == ('VDU1', None)
    assert found['CP2'].order is None


def test_storages_with_size_rounded_up_to_gib_and_image():
    found = nodes.storages(NODES, REGISTRY)

    assert found['Disk'].size_gb == 2
    assert found['Disk'].sw_image == {'name': 'cirros'}
    assert (found['Scratch'].size_gb, found['Scratch'].sw_image) == (
        None,
        None,
    )


def test_virtual_links_sorted():
    assert nodes.virtual_links(NODES, REGISTRY) == ['VL0', 'VL1']


@pytest.mark.parametrize(
    'value,unit,size',
    [
        ('1 GB', 10**9, 1),
        ('1 GiB', 2**30, 1),
        ('1 GB', 2**30, 1),
        ('512 MiB', 2**30, 1),
        ('2.5 gib', 2**30, 3),
        ('1024', 1, 1024),
        (3 * 2**30, 2**30, 3),
        ('10 parsecs', 2**30, None),
        ('GB', 2**30, None),
        (True, 1, None),
        (None, 1, None),
    ],
)
def test_scalar_sizes(value, unit, size):
    assert nodes.scalar_size(value, unit) == size


@pytest.mark.parametrize(
    'capabilities',
    [
        # Tacker's sample packages
        {
            'requested_additional_capabilities': {
                'properties': {
                    'requested_additional_capability_name': 'm1.small'
                }
            }
        },
        # SOL001: keyed by a capability name
        {
            'requested_additional_capabilities': {
                'small': {'requested_additional_capability_name': 'm1.small'}
            }
        },
        # directly
        {
            'requested_additional_capabilities': {
                'requested_additional_capability_name': 'm1.small'
            }
        },
    ],
)
def test_compute_flavour_in_every_layout(capabilities):
    node = {'capabilities': {'virtual_compute': {'properties': capabilities}}}

    assert nodes.compute_flavour(node) == 'm1.small'


def test_no_compute_flavour():
    assert nodes.compute_flavour({}) is None
    assert (
        nodes.compute_flavour(
            {'capabilities': {'virtual_compute': {'properties': {}}}}
        )
        is None
    )


def test_requirement_targets_in_both_forms():
    node = {
        'requirements': [
            {'virtual_link': 'A'},
            {'virtual_link': {'node': 'B'}},
            {'virtual_binding': 'C'},
            'junk',
        ]
    }

    assert nodes.requirement_targets(node, 'virtual_link') == ['A', 'B']
