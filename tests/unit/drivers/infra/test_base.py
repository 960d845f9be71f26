"""heal_targets: VNFCs named by vnfcInfo id (v2) or vnfcResourceInfo id
(v1)."""

import pytest

from vnfm.common import exceptions
from vnfm.drivers.infra import base

INFO = {
    'vnfcResourceInfo': [
        {'id': 'r1', 'vduId': 'VDU1'},
        {'id': 'r2', 'vduId': 'VDU1'},
    ],
    'vnfcInfo': [
        {'id': 'VDU1-r1', 'vnfcResourceInfoId': 'r1'},
        {'id': 'VDU1-r2', 'vnfcResourceInfoId': 'r2'},
    ],
}


def test_no_ids_means_every_vnfc():
    assert [e['id'] for e in base.heal_targets(INFO, [])] == ['r1', 'r2']


def test_vnfc_info_and_resource_ids_both_name_a_vnfc_once():
    chosen = base.heal_targets(INFO, ['VDU1-r2', 'r2'])
    assert [e['id'] for e in chosen] == ['r2']


def test_unknown_id_is_refused_by_name():
    with pytest.raises(exceptions.OperationFailed, match='nope'):
        base.heal_targets(INFO, ['r1', 'nope'])
