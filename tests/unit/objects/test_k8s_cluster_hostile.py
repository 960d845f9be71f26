"""Hostile values in every parameter of k8s_cluster_installation_param
that reaches a shell, a file vnfm writes on a VM, a path or a URL: a 400
naming the parameter (the package paths, looked up literally, are in
tests/unit/drivers/mgmt/kubernetes_cluster/test_pvs.py; the scripts
shown to keep values literal in a real shell, in test_nfs.py there)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.unit import hostile_values
from tests.unit.objects.test_k8s_cluster import P
from tests.unit.objects.test_k8s_cluster import inner
from tests.unit.objects.test_k8s_storage import with_storage
from vnfm.common import exceptions
from vnfm.objects import k8s_cluster

_STORAGE = 'storage_server'
_VOLUME = f'{_STORAGE}/cinder_volume_setup_params/0'
_EXPORT = f'{_STORAGE}/nfs_server_setup_params/0'
#: Parameter path -> a valid value the payload is appended to. Each of
#: these reaches a root shell on a VM (mount_to, export_dir), a file vnfm
#: writes there (export_to in /etc/exports and ganesha.conf; CIDRs and
#: proxies through the install script into apt.conf and systemd units)
#: or the SSH login (usernames).
PARAMETERS = {
    f'{_VOLUME}/mount_to': '/volume',
    f'{_EXPORT}/export_dir': '/volume/nfs/pv1',
    f'{_EXPORT}/export_to': '10.10.0.0/24',
    'master_node/pod_cidr': '192.168.0.0/16',
    'master_node/cluster_cidr': '10.199.187.0/24',
    'proxy/k8s_node_cidr': '198.51.100.0/24',
    'proxy/http_proxy': 'http://proxy.example:3128/',
    'proxy/https_proxy': 'http://proxy.example:3128/',
    'proxy/no_proxy': '.example,192.0.2.0/24',
    'master_node/username': 'ubuntu',
    'worker_node/username': 'ubuntu',
    f'{_STORAGE}/username': 'ubuntu',
    'script_path': 'Scripts/install_k8s_cluster.sh',
    'pv_registration_params/0/pv_manifest_file_path': 'Files/a.yaml',
}
#: Package paths are looked up, never opened: only these payloads are
#: refused (the others are a file the package does not have).
_PATH_REFUSED = ('dot-dot', 'nul', 'huge')


def _set(params: dict[str, Any], path: str, value: str) -> None:
    here: Any = inner(params)
    *parents, last = path.split('/')
    for part in parents:
        here = here[int(part) if part.isdigit() else part]
    here[last] = value


def _cases() -> list[Any]:
    cases = []
    for path, base in PARAMETERS.items():
        for name, payload in hostile_values.PAYLOADS.items():
            if path.endswith(('script_path', 'file_path')) and (
                name not in _PATH_REFUSED
            ):
                continue
            cases.append(
                pytest.param(path, base + payload, id=f'{path}-{name}')
            )
    return cases


@pytest.mark.parametrize('path, value', _cases())
def test_a_hostile_value_is_a_400_naming_the_parameter(path: str, value: str):
    params = copy.deepcopy(with_storage())
    _set(params, path, value)
    with pytest.raises(exceptions.BadRequest) as e:
        k8s_cluster.parse(params)
    assert e.value.detail.startswith(f'{P}/{path}: '), e.value.detail
    assert len(e.value.detail) < 1000
