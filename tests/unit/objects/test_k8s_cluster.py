"""additionalParams.k8s_cluster_installation_param: schema and rules."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from vnfm.common import exceptions
from vnfm.objects import k8s_cluster
from vnfm.objects import request_checks
from vnfm.objects.states import LcmOperation

P = 'additionalParams/k8s_cluster_installation_param'


def valid() -> dict[str, Any]:
    """Parameters as a Tacker user writes them."""
    return {
        'k8s_cluster_installation_param': {
            'script_path': 'Scripts/install_k8s_cluster.sh',
            'vim_name': 'kubernetes_vim',
            'master_node': {
                'aspect_id': 'master_instance',
                'ssh_cp_name': 'masterNode_CP1',
                'nic_cp_name': 'masterNode_CP1',
                'username': 'ubuntu',
                'password': 'master-pw',
                'pod_cidr': '192.168.0.0/16',
                'cluster_cidr': '10.199.187.0/24',
                'cluster_cp_name': 'vip_CP',
                'cluster_fip_name': 'vip_CP_floating_ip',
            },
            'worker_node': {
                'aspect_id': 'worker_instance',
                'ssh_cp_name': 'workerNode_CP2',
                'nic_cp_name': 'workerNode_CP2',
                'username': 'ubuntu',
                'password': 'worker-pw',
            },
            'proxy': {
                'http_proxy': 'http://user1:pw@proxy.example:3128',
                'https_proxy': 'http://user1:pw@proxy.example:3128',
                'no_proxy': '.example,192.0.2.0/24',
                'k8s_node_cidr': '198.51.100.0/24',
            },
        }
    }


def inner(params: dict) -> dict:
    return params['k8s_cluster_installation_param']


def test_full_parameters_parse() -> None:
    params = k8s_cluster.parse(valid())
    assert params.master.cluster_cp_name == 'vip_CP'
    assert params.master.password == 'master-pw'
    assert params.worker.aspect_id == 'worker_instance'
    assert params.proxy is not None
    assert params.proxy.k8s_node_cidr == '198.51.100.0/24'
    assert params.vim_name_for('x') == 'kubernetes_vim'
    assert params.secrets() == {'master-pw', 'worker-pw'}
    assert 'master-pw' not in repr(params)


def test_minimal_parameters_get_defaults() -> None:
    params = valid()
    body = inner(params)
    for key in ('vim_name', 'proxy'):
        del body[key]
    for key in ('aspect_id', 'pod_cidr', 'cluster_cidr', 'cluster_fip_name'):
        del body['master_node'][key]
    parsed = k8s_cluster.parse(params)
    assert parsed.master.pod_cidr == k8s_cluster.DEFAULT_POD_CIDR
    assert parsed.master.cluster_cidr == k8s_cluster.DEFAULT_CLUSTER_CIDR
    assert parsed.proxy is None
    assert parsed.vim_name_for('abc') == 'kubernetes_vim_abc'


def test_private_key_instead_of_password() -> None:
    params = valid()
    del inner(params)['worker_node']['password']
    inner(params)['worker_node']['private_key'] = 'PEM'
    assert k8s_cluster.parse(params).worker.private_key == 'PEM'


def broken(change) -> dict:  # noqa: ANN001
    params = copy.deepcopy(valid())
    change(inner(params))
    return params


@pytest.mark.parametrize(
    ('change', 'named'),
    [
        (lambda p: p.pop('script_path'), f'{P}/script_path: is a required'),
        (lambda p: p.pop('worker_node'), f'{P}/worker_node: is a required'),
        (
            lambda p: p['master_node'].pop('cluster_cp_name'),
            f'{P}/master_node/cluster_cp_name: is a required',
        ),
        (
            lambda p: p['master_node'].pop('ssh_cp_name'),
            f'{P}/master_node/ssh_cp_name: is a required',
        ),
        (lambda p: p['worker_node'].pop('password'), f'{P}/worker_node'),
        (
            lambda p: p['worker_node'].update(username='Root; rm'),
            f'{P}/worker_node/username',
        ),
        (
            lambda p: p['master_node'].update(pod_cidr=16),
            f'{P}/master_node/pod_cidr',
        ),
        (lambda p: p.update(script_path='/etc/passwd'), f'{P}/script_path'),
        (
            lambda p: p.update(script_path='Scripts/../../x'),
            f'{P}/script_path',
        ),
        (
            lambda p: p['proxy'].update(http_proxy='proxy:3128'),
            f'{P}/proxy/http_proxy',
        ),
        (lambda p: p.update(master_nodes={}), P),
        (lambda p: p['worker_node'].update(pod_cidr='x'), f'{P}/worker_node'),
    ],
)
def test_schema_errors_name_the_parameter(change, named: str) -> None:  # noqa: ANN001
    with pytest.raises(exceptions.BadRequest) as caught:
        k8s_cluster.parse(broken(change))
    assert caught.value.detail.startswith(named), caught.value.detail


def test_missing_param_names_it() -> None:
    with pytest.raises(exceptions.BadRequest) as caught:
        k8s_cluster.parse({'other': 1})
    assert caught.value.detail.startswith(P + ':')


def test_bad_and_overlapping_cidrs() -> None:
    with pytest.raises(exceptions.BadRequest) as caught:
        k8s_cluster.parse(
            broken(lambda p: p['master_node'].update(pod_cidr='10.0.0.300/8'))
        )
    assert f'{P}/master_node/pod_cidr' in caught.value.detail
    with pytest.raises(exceptions.BadRequest) as caught:
        k8s_cluster.parse(
            broken(
                lambda p: p['master_node'].update(
                    pod_cidr='10.0.0.0/8', cluster_cidr='10.96.0.0/12'
                )
            )
        )
    assert 'pod_cidr' in caught.value.detail
    assert 'cluster_cidr' in caught.value.detail


def test_error_class_is_the_callers() -> None:
    with pytest.raises(exceptions.OperationFailed):
        k8s_cluster.parse({}, exceptions.OperationFailed)


@pytest.mark.parametrize('password', [7, 'long-secret-' * 100])
def test_a_wrong_password_is_never_quoted(password: Any) -> None:
    params = broken(lambda p: p['master_node'].update(password=password))
    with pytest.raises(exceptions.BadRequest) as caught:
        k8s_cluster.parse(params)
    detail = caught.value.detail
    assert detail.startswith(f'{P}/master_node/password: ')
    assert str(password)[:12] not in detail


def test_no_credential_says_what_is_needed() -> None:
    params = broken(lambda p: p['worker_node'].pop('password'))
    with pytest.raises(exceptions.BadRequest) as caught:
        k8s_cluster.parse(params)
    assert caught.value.detail == (
        f'{P}/worker_node: needs password (or private_key) to log into the '
        'VMs.'
    )


def test_aspect_must_be_in_the_flavour() -> None:
    params = k8s_cluster.parse(valid())
    flavour = {
        'flavour_id': 'cluster_install',
        'scaling_aspects': {'master_instance': {}, 'workers': {}},
    }
    with pytest.raises(exceptions.BadRequest) as caught:
        k8s_cluster.check_flavour(params, flavour)
    assert caught.value.detail.startswith(f'{P}/worker_node/aspect_id')
    assert 'workers' in caught.value.detail
    flavour['scaling_aspects']['worker_instance'] = {}
    k8s_cluster.check_flavour(params, flavour)


def test_names_driver() -> None:
    hook = {'name': 'instantiate_end', 'builtin': 'kubernetes_cluster'}
    assert k8s_cluster.names_driver({'interfaces': {'instantiate_end': hook}})
    script = {'name': 'instantiate_end', 'builtin': None, 'file': 'x.py'}
    assert not k8s_cluster.names_driver({'interfaces': {'x': script}})
    assert not k8s_cluster.names_driver({})


def _request(
    operation: LcmOperation, params: dict[str, Any], flavour: dict[str, Any]
) -> request_checks.LcmRequest:
    body = {'flavourId': 'f', 'additionalParams': params}
    return request_checks.LcmRequest(operation, body, flavour, 'i-1')


def test_check_request_checks_an_instantiate_against_its_flavour() -> None:
    aspects = {'worker_instance': {}, 'master_instance': {}}
    flavour = {'flavour_id': 'f', 'scaling_aspects': aspects}
    params = valid()
    params[k8s_cluster.PARAM]['worker_node']['aspect_id'] = 'workers'
    k8s_cluster.check_request(
        _request(LcmOperation.INSTANTIATE, valid(), flavour)
    )
    with pytest.raises(exceptions.BadRequest) as caught:
        k8s_cluster.check_request(
            _request(LcmOperation.INSTANTIATE, params, flavour)
        )
    assert caught.value.detail.startswith(f'{P}/worker_node/aspect_id')
    with pytest.raises(exceptions.BadRequest, match=f'^{P}: is required'):
        k8s_cluster.check_request(_request(LcmOperation.INSTANTIATE, {}, {}))


def test_check_request_leaves_other_operations_to_the_driver() -> None:
    # Heal and scale read the parameters the instantiate recorded.
    k8s_cluster.check_request(_request(LcmOperation.HEAL, {}, {}))
