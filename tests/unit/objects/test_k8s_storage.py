"""storage_server and pv_registration_params: schema, rules, VNFD checks."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.unit.objects.test_k8s_cluster import P
from tests.unit.objects.test_k8s_cluster import inner
from tests.unit.objects.test_k8s_cluster import valid
from vnfm.common import exceptions
from vnfm.objects import k8s_cluster


def with_storage() -> dict[str, Any]:
    """The seed's example parameters."""
    params = valid()
    inner(params)['storage_server'] = {
        'ssh_cp_name': 'storage_server_CP',
        'username': 'ubuntu',
        'password': 'storage-pw',
        'cinder_volume_setup_params': [
            {
                'volume_resource_id': 'storage_server_volume',
                'mount_to': '/volume',
            }
        ],
        'nfs_server_setup_params': [
            {'export_dir': f'/volume/nfs/pv{i}', 'export_to': '10.10.0.0/24'}
            for i in (1, 2, 3)
        ],
    }
    inner(params)['pv_registration_params'] = [
        {
            'pv_manifest_file_path': f'Files/kubernetes/nfs-pv{i}.yaml',
            'nfs_server_cp': 'storage_server_CP',
        }
        for i in (1, 2, 3)
    ]
    return params


def flavour() -> dict[str, Any]:
    return {
        'flavour_id': 'simple',
        'cps': {
            'storage_server_CP': {
                'name': 'storage_server_CP',
                'vdu': 'storage_server',
            },
            'masterNode_CP1': {'name': 'masterNode_CP1', 'vdu': 'masterNode'},
        },
        'vdus': {
            'storage_server': {'storages': ['storage_server_volume']},
            'masterNode': {'storages': []},
        },
        'storages': {'storage_server_volume': {}, 'other_volume': {}},
    }


def test_the_seeds_parameters_parse() -> None:
    params = k8s_cluster.parse(with_storage())
    assert params.storage is not None
    assert params.storage.nfs_server == 'kernel'
    assert params.storage.volumes[0].mount_to == '/volume'
    assert [e.export_dir for e in params.storage.exports] == [
        '/volume/nfs/pv1',
        '/volume/nfs/pv2',
        '/volume/nfs/pv3',
    ]
    assert len(params.pvs) == 3
    assert 'storage-pw' in params.secrets()
    assert 'storage-pw' not in repr(params)


def _edit(path: list[Any], value: Any) -> dict[str, Any]:
    params = copy.deepcopy(with_storage())
    here: Any = inner(params)
    for key in path[:-1]:
        here = here[key]
    if value is None:
        del here[path[-1]]
    else:
        here[path[-1]] = value
    return params


@pytest.mark.parametrize(
    ('path', 'value', 'message'),
    [
        (
            ['storage_server', 'nfs_server'],
            'nfsd',
            'storage_server/nfs_server: must be kernel',
        ),
        (
            ['storage_server', 'password'],
            None,
            'storage_server: needs password',
        ),
        (
            ['storage_server', 'cinder_volume_setup_params'],
            [],
            'cinder_volume_setup_params',
        ),
        (
            ['storage_server', 'cinder_volume_setup_params', 0, 'mount_to'],
            'volume',
            'cinder_volume_setup_params/0/mount_to: must be an absolute',
        ),
        (
            ['storage_server', 'nfs_server_setup_params', 1, 'export_dir'],
            '/volume/../etc',
            'nfs_server_setup_params/1/export_dir: must be an absolute',
        ),
        (
            ['storage_server', 'nfs_server_setup_params', 1, 'export_dir'],
            '/srv/pv2',
            'nfs_server_setup_params/1/export_dir: /srv/pv2 is on no '
            'Cinder volume',
        ),
        (
            ['storage_server', 'nfs_server_setup_params', 2, 'export_to'],
            'everyone',
            'nfs_server_setup_params/2/export_to: .everyone. is not an IP',
        ),
        (
            ['pv_registration_params', 0, 'pv_manifest_file_path'],
            '../pv.yaml',
            'pv_registration_params/0/pv_manifest_file_path: must be a '
            "file's path",
        ),
        (
            ['storage_server'],
            None,
            'pv_registration_params: needs storage_server',
        ),
    ],
)
def test_bad_parameters_are_a_400_naming_them(
    path: list[Any], value: Any, message: str
) -> None:
    with pytest.raises(exceptions.BadRequest, match=message) as caught:
        k8s_cluster.parse(_edit(path, value))
    assert caught.value.detail.startswith(P)
    assert 'storage-pw' not in caught.value.detail


def test_overlapping_mounts_are_refused() -> None:
    params = with_storage()
    inner(params)['storage_server']['cinder_volume_setup_params'].append(
        {'volume_resource_id': 'v2', 'mount_to': '/volume/two'}
    )
    with pytest.raises(
        exceptions.BadRequest, match='/volume/two and /volume overlap'
    ):
        k8s_cluster.parse(params)


def test_no_storage_server_is_as_before() -> None:
    params = k8s_cluster.parse(valid())
    assert params.storage is None and params.pvs == ()


@pytest.mark.parametrize(
    ('path', 'value', 'message'),
    [
        (
            ['storage_server', 'ssh_cp_name'],
            'nope_CP',
            'storage_server/ssh_cp_name: nope_CP is not a VduCp',
        ),
        (
            ['pv_registration_params', 1, 'nfs_server_cp'],
            'nope_CP',
            'pv_registration_params/1/nfs_server_cp: nope_CP is not a VduCp',
        ),
        (
            [
                'storage_server',
                'cinder_volume_setup_params',
                0,
                'volume_resource_id',
            ],
            'missing',
            'volume_resource_id: missing is not a VirtualBlockStorage',
        ),
        (
            [
                'storage_server',
                'cinder_volume_setup_params',
                0,
                'volume_resource_id',
            ],
            'other_volume',
            'other_volume is not a storage of VDU storage_server',
        ),
    ],
)
def test_what_the_vnfd_lacks_is_named(
    path: list[Any], value: Any, message: str
) -> None:
    params = k8s_cluster.parse(_edit(path, value))
    with pytest.raises(exceptions.BadRequest, match=message):
        k8s_cluster.check_flavour(params, flavour())
    with pytest.raises(exceptions.OperationFailed, match=message):
        k8s_cluster.check_flavour(
            params, flavour(), exceptions.OperationFailed
        )


def test_nic_cp_name_is_accepted_and_names_the_pvs_nfs_cp() -> None:
    given = _edit(['storage_server', 'nic_cp_name'], 'storage_server_CP2')
    for pv in inner(given)['pv_registration_params']:
        del pv['nfs_server_cp']
    f = flavour()
    f['cps']['storage_server_CP2'] = {'vdu': 'storage_server'}

    params = k8s_cluster.parse(given)
    k8s_cluster.check_flavour(params, f)

    assert params.storage is not None
    assert params.storage.nfs_cp_name == 'storage_server_CP2'
    assert {p.nfs_server_cp for p in params.pvs} == {'storage_server_CP2'}


def test_nic_cp_name_of_another_vdu_is_refused() -> None:
    params = k8s_cluster.parse(
        _edit(['storage_server', 'nic_cp_name'], 'masterNode_CP1')
    )
    with pytest.raises(
        exceptions.BadRequest,
        match='storage_server/nic_cp_name: masterNode_CP1 is a CP of VDU '
        'masterNode, not of the storage server VDU storage_server',
    ):
        k8s_cluster.check_flavour(params, flavour())


def test_a_pv_without_nfs_server_cp_needs_nic_cp_name() -> None:
    given = with_storage()
    del inner(given)['pv_registration_params'][0]['nfs_server_cp']
    with pytest.raises(
        exceptions.BadRequest,
        match='pv_registration_params/0/nfs_server_cp: needed',
    ):
        k8s_cluster.parse(given)


def test_a_matching_vnfd_passes() -> None:
    k8s_cluster.check_flavour(k8s_cluster.parse(with_storage()), flavour())
