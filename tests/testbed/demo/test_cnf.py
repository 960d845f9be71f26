"""vnfm-demo --vim kubernetes: the pieces that need no cluster."""

import io
import json
import zipfile

import pytest
import yaml

from vnfm.csar import read_csar
from vnfm.csar.build import build_csar
from vnfm.drivers import scaling
from vnfm.objects import scale_level
from vnfm_testbed.demo import cli as demo
from vnfm_testbed.demo import cnf as demo_cnf
from vnfm_testbed.demo import k8s as demo_k8s
from vnfm_testbed.demo import runner as demo_runner


def test_cnf_samples_build_with_the_ids_the_requests_name(tmp_path):
    csars = demo_cnf.build_packages(tmp_path, demo._SAMPLES)

    ids = [read_csar(p.read_bytes()).vnfd.vnfd_id for p in csars]
    assert ids[:2] == [demo_k8s.CNF_VNFD_ID, demo_k8s.CNF_V2_VNFD_ID]
    assert len(set(ids)) == 5  # the update and flavour ones, distinct
    assert demo_k8s.cnf_change_vnfpkg_request()['vnfdId'] == ids[1]
    for path in csars[:2]:  # every manifest the requests name is in both
        names = set(zipfile.ZipFile(io.BytesIO(path.read_bytes())).namelist())
        assert set(demo_k8s.CNF_DEF_FILES) <= names


@pytest.mark.parametrize('title, body, level, pods', demo_cnf.SCALE_TO_LEVEL)
def test_scale_to_level_requests_reach_the_levels_the_demo_checks(
    title, body, level, pods
):
    vnfd = read_csar(
        build_csar(str(demo._SAMPLES / 'cnf_simple'))
    ).vnfd.to_dict()
    flavour = scaling.flavour_of(vnfd, 'simple')

    # From the scale out's level 1, as in the demo.
    target = scale_level.target_levels(flavour, {'vdu1_aspect': 1}, body)

    assert target == {'vdu1_aspect': level}
    assert (
        sum(
            scaling.counts_at(flavour, vdu, target) for vdu in ('VDU1', 'VDU2')
        )
        == pods
    )


class _Server:
    def __init__(self, vnf_state):
        self.info = {'vnfState': vnf_state, 'vnfcResourceInfo': []}

    def get(self, path):
        return {'instantiatedVnfInfo': self.info}


class _Demo:
    def __init__(self, vnf_state):
        self.server = _Server(vnf_state)
        self.ops = []

    def run_http_op(self, inst_id, operation, task, body):
        self.ops.append((operation, task, body))


class _K8s:
    def __init__(self, pods):
        self.pods = pods

    def kubectl(self, *args):
        if '-o' in args and args[args.index('-o') + 1] == 'json':
            return json.dumps({'items': self.pods})
        return '0'


def test_operate_fails_when_vnf_state_does_not_follow():
    fake = _Demo('STARTED')  # vnfm did not record the stop

    with pytest.raises(demo_runner.StepFailed, match='vnfState is STARTED'):
        demo_cnf._operate(
            fake, _K8s([]), 'i1', {'changeStateTo': 'STOPPED'}, 0
        )
    assert fake.ops == [('OPERATE', 'operate', {'changeStateTo': 'STOPPED'})]


def test_operate_fails_when_pods_still_run_after_stop():
    pod = {'metadata': {'name': 'vdu1-abc'}}

    with pytest.raises(demo_runner.StepFailed, match=r"\['vdu1-abc'\]"):
        demo_cnf._operate(
            _Demo('STOPPED'),
            _K8s([pod]),
            'i1',
            {'changeStateTo': 'STOPPED'},
            0,
        )


def test_operate_passes_when_state_and_pods_follow(capsys):
    demo_cnf._operate(
        _Demo('STOPPED'), _K8s([]), 'i1', {'changeStateTo': 'STOPPED'}, 0
    )

    assert '--> ok: no Pod of the CNF runs' in capsys.readouterr().out


def test_instantiate_request_names_the_registered_vim_or_none():
    body = demo_k8s.cnf_instantiate_request('ns1', 'vim-1')
    assert body['additionalParams']['namespace'] == 'ns1'
    assert body['vimConnectionInfo'] == {
        'vim1': {'vimId': 'vim-1', 'vimType': 'ETSINFV.KUBERNETES.V_1'}
    }
    # Without a VIM id the project's default VIM is used.
    assert 'vimConnectionInfo' not in demo_k8s.cnf_instantiate_request('ns1')


def test_vim_yaml_is_tackers_kubernetes_config_and_private(tmp_path):
    cluster = demo_k8s.DemoCluster(tmp_path / 'k8s')
    cluster.cluster.ports = {'apiserver': 6443}
    cluster.cluster.tokens = {'vnfm-admin': 'tok'}
    (tmp_path / 'k8s' / 'pki').mkdir(parents=True)
    cluster.cluster.ca_cert_path.write_text('PEM')

    path = cluster.write_vim_yaml(tmp_path / 'vim.yaml')

    assert yaml.safe_load(path.read_text()) == {
        'auth_url': 'https://127.0.0.1:6443',
        'bearer_token': 'tok',
        'ssl_ca_cert': 'PEM',
        'project_name': 'default',
        'type': 'kubernetes',
    }
    assert path.stat().st_mode & 0o077 == 0


def test_kubernetes_is_the_default_vim_and_noop_stays():
    assert demo._parse_args([]).vim == 'kubernetes'
    assert demo._parse_args(['--vim', 'noop']).vim == 'noop'


def test_vnfm_all_loads_the_kubernetes_driver_when_asked(tmp_path):
    server = demo_runner.VnfmAll(tmp_path, 1, [], 'noop,kubernetes')
    assert 'enabled_infra_drivers = noop,kubernetes' in (
        server.config.read_text()
    )
    noop = demo_runner.VnfmAll(tmp_path, 1, [])
    assert 'enabled_infra_drivers = noop\n' in noop.config.read_text()
