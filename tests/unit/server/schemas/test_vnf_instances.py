"""The request bodies of /vnflcm/v2 (SOL003 5.5.2): what each task takes,
and the first problem of what it does not, naming the attribute."""

from __future__ import annotations

import pytest

from vnfm.common import schemacheck
from vnfm.server.schemas import vnf_instances as schema

VIMS = {'vim1': {'vimType': 'ETSINFV.KUBERNETES.V_1', 'vimId': 'v-1'}}


@pytest.mark.parametrize(
    'name,body',
    [
        ('CREATE', {'vnfdId': 'vnfd-1', 'vimConnectionInfo': VIMS}),
        ('INSTANTIATE', {'flavourId': 'simple', 'vimConnectionInfo': VIMS}),
        ('SCALE', {'type': 'SCALE_OUT', 'aspectId': 'a', 'numberOfSteps': 2}),
        ('SCALE_TO_LEVEL', {'instantiationLevelId': 'l2'}),
        (
            'SCALE_TO_LEVEL',
            {'scaleInfo': [{'aspectId': 'a', 'scaleLevel': 0}]},
        ),
        ('TERMINATE', {'terminationType': 'GRACEFUL'}),
        ('HEAL', {}),
        ('OPERATE', {'changeStateTo': 'STOPPED', 'stopType': 'GRACEFUL'}),
        ('CHANGE_VNFPKG', {'vnfdId': 'vnfd-2'}),
        ('CHANGE_FLAVOUR', {'newFlavourId': 'large'}),
        ('MODIFY', {'vimConnectionInfo': {'vim1': None}}),
        ('CANCEL', {'cancelMode': 'FORCEFUL'}),
    ],
)
def test_valid_requests(name, body):
    assert schemacheck.first_error(getattr(schema, name), body) is None


@pytest.mark.parametrize(
    'name,body,starts',
    [
        ('CREATE', {}, 'vnfdId: is a required property'),
        ('CREATE', {'vnfdId': ''}, 'vnfdId: '),
        ('INSTANTIATE', {}, 'flavourId: is a required property'),
        (
            'SCALE',
            {'type': 'SCALE_UP', 'aspectId': 'a'},
            'type: ',
        ),
        (
            'SCALE',
            {'type': 'SCALE_OUT', 'aspectId': 'a', 'numberOfSteps': 0},
            'numberOfSteps: ',
        ),
        ('SCALE_TO_LEVEL', {}, 'request body: '),
        (
            'SCALE_TO_LEVEL',
            {
                'instantiationLevelId': 'l2',
                'scaleInfo': [{'aspectId': 'a', 'scaleLevel': 0}],
            },
            'request body: ',
        ),
        (
            'TERMINATE',
            {'terminationType': 'GRACEFUL', 'gracefulTerminationTimeout': -1},
            'gracefulTerminationTimeout: ',
        ),
        ('OPERATE', {'changeStateTo': 'PAUSED'}, 'changeStateTo: '),
        ('CHANGE_EXT_CONN', {'extVirtualLinks': []}, 'extVirtualLinks: '),
        ('CHANGE_FLAVOUR', {'vnfdId': 'x'}, 'newFlavourId: is a required'),
        (
            'MODIFY',
            {'vnfcInfoModifications': [{'id': 'c1'}]},
            'vnfcInfoModifications/0/vnfcConfigurableProperties: is a '
            'required',
        ),
        ('CANCEL', {'cancelMode': 'NOW'}, 'cancelMode: '),
    ],
)
def test_invalid_requests_name_the_attribute(name, body, starts):
    error = schemacheck.first_error(getattr(schema, name), body)

    assert error is not None and error.startswith(starts), error


def test_change_flavour_takes_what_change_vnfpkg_takes_but_the_vnfd_id():
    flavour = set(schema.CHANGE_FLAVOUR['properties'])
    vnfpkg = set(schema.CHANGE_VNFPKG['properties'])

    assert flavour - vnfpkg == {'newFlavourId', 'instantiationLevelId'}
    assert vnfpkg - flavour == {'vnfdId'}
