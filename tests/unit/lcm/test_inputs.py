"""What an operation loads before it runs: its package and VNFD, and the
vimConnectionInfo it runs with, merged and sealed."""

from __future__ import annotations

import json

import pytest

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.db import api as db
from vnfm.db import registry
from vnfm.lcm import inputs

from .fixtures import new_instance
from .fixtures import onboarded_package


def test_the_instances_package_is_found_by_id_then_by_vnfd_id(db_url):
    package = onboarded_package()
    inst = new_instance(package)

    assert inputs.package_of(inst)['id'] == package['id']
    assert (
        inputs.package_of(dict(inst, vnf_pkg_id=None))['id'] == (package['id'])
    )


def test_an_instance_whose_package_is_gone_fails_naming_it(db_url):
    inst = {'id': 'inst-1', 'vnfd_id': 'vnfd-gone', 'vnf_pkg_id': None}

    with pytest.raises(exceptions.OperationFailed) as e:
        inputs.package_of(inst)

    assert str(e.value) == (
        'No onboarded package has vnfdId vnfd-gone of VNF instance inst-1.'
    )


def test_a_vnfd_id_names_only_an_onboarded_package(db_url):
    package = onboarded_package()

    assert (
        inputs.package_by_vnfd_id(package['vnfd_id'])['id'] == (package['id'])
    )
    with pytest.raises(exceptions.OperationFailed, match='vnfdId nope'):
        inputs.package_by_vnfd_id('nope')


def test_the_vnfd_of_a_package_not_onboarded_is_refused(db_url):
    package = onboarded_package()

    assert inputs.vnfd_of(package) == package['vnfd']
    with pytest.raises(exceptions.OperationFailed) as e:
        inputs.vnfd_of({'id': 'p1', 'onboarding_state': 'UPLOADING'})
    assert str(e.value) == 'VNF package p1 is UPLOADING, not onboarded.'


def test_a_stored_package_that_cannot_be_read_fails_the_op(db_url):
    row = db.package_create(
        {
            'onboarding_state': 'CREATED',
            'operational_state': 'DISABLED',
            'usage_state': 'NOT_IN_USE',
        }
    )
    db.package_content_put(row['id'], b'not a zip')

    with pytest.raises(exceptions.OperationFailed) as e:
        inputs.package_files(row)

    assert str(e.value).startswith(f'VNF package {row["id"]} cannot be read')


def test_package_files_reads_the_stored_csar(db_url):
    package = onboarded_package()

    files = inputs.package_files(package)

    assert files.package_id == package['id']


def test_v1_lists_become_maps_by_id():
    assert inputs.as_map([{'id': 'a', 'x': 1}, {'x': 2}]) == {
        'a': {'id': 'a', 'x': 1},
        '1': {'x': 2},
    }
    assert inputs.as_map({'a': {'x': 1}}) == {'a': {'x': 1}}
    assert inputs.as_map(None) == {}


def sealed(vci: dict) -> dict:
    return crypto.seal_vim_connection_info(vci)


def test_the_requests_vims_merge_over_the_instances_and_stay_sealed(db_url):
    instance = {
        'vim_connection_info': sealed(
            {
                'vim1': {
                    'vimType': 'X',
                    'accessInfo': {'username': 'u', 'password': 'old-pw'},
                },
                'vim2': {'vimType': 'Y', 'accessInfo': {'token': 'tok'}},
            }
        )
    }
    request = {
        'vimConnectionInfo': {
            'vim1': {'accessInfo': {'password': 'new-pw'}},
            'vim2': None,
        }
    }

    stored = inputs.vim_connection_info(instance, request)

    assert 'new-pw' not in json.dumps(stored)
    assert crypto.unseal_vim_connection_info(stored) == {
        'vim1': {
            'vimType': 'X',
            'accessInfo': {'username': 'u', 'password': 'new-pw'},
        }
    }


def test_without_vims_in_the_request_the_instances_are_kept(db_url):
    instance = {'vim_connection_info': sealed({'v': {'vimType': 'X'}})}

    assert (
        inputs.vim_connection_info(instance, {'flavourId': 'a'})
        == (instance['vim_connection_info'])
    )
    assert (
        inputs.vim_connection_info(instance)
        == (instance['vim_connection_info'])
    )


def test_no_vims_given_means_the_projects_default_vim(db_url):
    vim = registry.vim_create(
        {
            'name': 'k8s',
            'type': 'kubernetes',
            'status': 'ACTIVE',
            'is_default': True,
            'project_id': 'p1',
            'auth_url': 'https://198.18.0.10:6443',
            'auth_cred': 'sealed',
        }
    )

    assert inputs.with_default_vim({}, 'p1') == {
        'default': {'vimId': vim['id'], 'vimType': 'ETSINFV.KUBERNETES.V_1'}
    }
    assert inputs.with_default_vim({}, 'p2') == {}
    given = {'v': {'vimType': 'X'}}
    assert inputs.with_default_vim(given, 'p1') is given


def test_a_vim_id_not_registered_in_the_project_fails_the_op(db_url):
    stored = {'v': {'vimId': '9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f'}}

    with pytest.raises(exceptions.OperationFailed) as e:
        inputs.resolved(stored, 'p1')

    assert str(e.value).startswith(
        'vimConnectionInfo names a VIM that is not registered: '
    )
