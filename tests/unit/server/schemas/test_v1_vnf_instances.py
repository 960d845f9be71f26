"""The request bodies of /vnflcm/v1 (SOL003 v2.6.1) where they differ from
v2's: vimConnectionInfo a list of entries with an id, cpConfig a list,
Modify VNF Information by vnfPkgId."""

from __future__ import annotations

import pytest

from vnfm.common import schemacheck
from vnfm.server.schemas import v1_vnf_instances as v1
from vnfm.server.schemas import vnf_instances as v2

VIM_LIST = [{'id': 'vim1', 'vimType': 'kubernetes', 'vimId': 'v-1'}]
EXT_VL = {
    'id': 'ext1',
    'resourceId': 'net-1',
    'extCps': [{'cpdId': 'CP1', 'cpConfig': [{'cpInstanceId': 'c1'}]}],
}


def test_vim_connection_info_is_a_list_with_ids_in_v1_only():
    body = {'flavourId': 'simple', 'vimConnectionInfo': VIM_LIST}

    assert schemacheck.first_error(v1.INSTANTIATE, body) is None
    assert schemacheck.first_error(v2.INSTANTIATE, body) is not None
    no_id = {'flavourId': 'simple', 'vimConnectionInfo': [{'vimType': 'x'}]}
    assert schemacheck.first_error(v1.INSTANTIATE, no_id) == (
        'vimConnectionInfo/0/id: is a required property'
    )


def test_cp_config_is_a_non_empty_list():
    body = {'flavourId': 'simple', 'extVirtualLinks': [EXT_VL]}
    empty = {
        'flavourId': 'simple',
        'extVirtualLinks': [
            dict(EXT_VL, extCps=[{'cpdId': 'CP1', 'cpConfig': []}])
        ],
    }

    assert schemacheck.first_error(v1.INSTANTIATE, body) is None
    assert schemacheck.first_error(v1.INSTANTIATE, empty).startswith(
        'extVirtualLinks/0/extCps/0/cpConfig: '
    )


def test_modify_takes_a_package_id_and_entries_to_delete():
    body = {
        'vnfPkgId': 'pkg-2',
        'vimConnectionInfo': VIM_LIST,
        'vimConnectionInfoDeleteIds': ['vim0'],
    }

    assert schemacheck.first_error(v1.MODIFY, body) is None
    assert schemacheck.first_error(v1.MODIFY, {'vnfPkgId': ''}) is not None


def test_create_and_change_flavour_take_the_v1_list():
    assert (
        schemacheck.first_error(
            v1.CREATE, {'vnfdId': 'vnfd-1', 'vimConnectionInfo': VIM_LIST}
        )
        is None
    )
    assert (
        schemacheck.first_error(
            v1.CHANGE_FLAVOUR,
            {'newFlavourId': 'large', 'vimConnectionInfo': VIM_LIST},
        )
        is None
    )


@pytest.mark.parametrize(
    'name', ['TERMINATE', 'SCALE', 'SCALE_TO_LEVEL', 'OPERATE', 'HEAL']
)
def test_the_other_tasks_are_v2s(name):
    assert getattr(v1, name) is getattr(v2, name)


def test_change_ext_conn_needs_a_link():
    assert schemacheck.first_error(v1.CHANGE_EXT_CONN, {}) == (
        'extVirtualLinks: is a required property'
    )
    assert (
        schemacheck.first_error(
            v1.CHANGE_EXT_CONN, {'extVirtualLinks': [EXT_VL]}
        )
        is None
    )
