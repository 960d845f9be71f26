"""TOSCA types of a package: derivation followed to the SOL001 base type,
the package's own definition winning, property defaults a VNFD may leave
out (its flavour_id, provider, ...)."""

from __future__ import annotations

from vnfm.csar import types

SOL001 = {
    'node_types': {
        types.VNF: {
            'derived_from': 'tosca.nodes.Root',
            'properties': {'flavour_id': {'type': 'string'}},
        },
        types.VDU_COMPUTE: {'derived_from': 'tosca.nodes.Root'},
    },
    'policy_types': {
        'tosca.policies.nfv.ScalingAspects': {
            'derived_from': 'tosca.policies.Root'
        }
    },
}
VENDOR = {
    'node_types': {
        'acme.Router': {
            'derived_from': types.VNF,
            'properties': {
                'provider': {
                    'type': 'string',
                    'constraints': [{'valid_values': ['Acme']}],
                },
                'product_name': {
                    'type': 'string',
                    'constraints': [{'equal': 'Router'}],
                },
                'flavour_id': {'type': 'string', 'default': 'simple'},
            },
        },
        'acme.BigRouter': {'derived_from': 'acme.Router'},
        'acme.Loop': {'derived_from': 'acme.Loop2'},
        'acme.Loop2': {'derived_from': 'acme.Loop'},
        'acme.Broken': 'not a map',
    },
    'policy_types': {
        'acme.Aspects': {'derived_from': 'tosca.policies.nfv.ScalingAspects'}
    },
}


def registry() -> types.TypeRegistry:
    return types.TypeRegistry([('vendor.yaml', VENDOR), ('sol001', SOL001)])


def test_a_chain_runs_from_the_type_to_its_root():
    assert registry().chain('acme.BigRouter') == [
        'acme.BigRouter',
        'acme.Router',
        types.VNF,
        'tosca.nodes.Root',
    ]


def test_a_derivation_loop_ends():
    assert registry().chain('acme.Loop') == ['acme.Loop', 'acme.Loop2']


def test_base_of_finds_the_sol001_base():
    reg = registry()

    assert reg.base_of('acme.BigRouter', (types.VDU_COMPUTE, types.VNF)) == (
        types.VNF
    )
    assert reg.base_of('acme.Loop', (types.VNF,)) is None
    assert reg.base_of(None, (types.VNF,)) is None
    assert (
        reg.base_of(
            'acme.Aspects', ('tosca.policies.nfv.ScalingAspects',), policy=True
        )
        == 'tosca.policies.nfv.ScalingAspects'
    )


def test_the_first_document_defining_a_type_wins():
    other = {'node_types': {'acme.Router': {'derived_from': 'x.Other'}}}
    reg = types.TypeRegistry([('vendor.yaml', VENDOR), ('other', other)])

    assert reg.chain('acme.Router')[1] == types.VNF


def test_a_type_that_is_not_a_map_has_no_ancestors():
    assert registry().chain('acme.Broken') == ['acme.Broken']


def test_property_defaults_from_default_valid_values_or_equal():
    reg = registry()

    assert reg.property_default('acme.BigRouter', 'flavour_id') == 'simple'
    assert reg.property_default('acme.BigRouter', 'provider') == 'Acme'
    assert reg.property_default('acme.BigRouter', 'product_name') == 'Router'


def test_property_defaults_stop_at_the_sol001_vnf_type():
    assert registry().property_default(types.VNF, 'flavour_id') is None
    assert registry().property_default('acme.Router', 'unknown') is None
