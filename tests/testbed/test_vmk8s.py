"""The test cluster package's actions (vnfm_testbed.vmk8s) and the package
itself: what needs no VM (the VMs: tests/integration/openstack)."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from vnfm.csar import read_csar
from vnfm.csar.build import build_csar
from vnfm.drivers import scaling
from vnfm.drivers.mgmt.kubernetes_cluster import storage
from vnfm.drivers.package_files import PackageFiles
from vnfm.objects import k8s_cluster
from vnfm_testbed import vmk8s
from vnfm_testbed import vmk8s_master
from vnfm_testbed.k8s import certs
from vnfm_testbed.k8s import kubelet
from vnfm_testbed.openstack import k8s_cluster_sample


def test_the_config_file_is_read_as_the_driver_writes_it(tmp_path):
    path = tmp_path / 'join-worker.conf'
    path.write_text('NODE_IP=198.18.4.11\nJOIN_TOKEN=a=b\n')

    config = vmk8s.read_config(path)

    assert config['NODE_IP'] == '198.18.4.11'
    assert config['JOIN_TOKEN'] == 'a=b'  # only the first '=' splits
    assert config['NODE_NAME']  # the host name when not given
    path.write_text('EVIL=1\n')
    with pytest.raises(vmk8s.ActionFailed, match='EVIL'):
        vmk8s.read_config(path)


def test_missing_keys_are_named():
    with pytest.raises(vmk8s.ActionFailed, match='CA_CERT_HASH'):
        vmk8s.require({'JOIN_TOKEN': 't'}, 'join-worker', 'CA_CERT_HASH')


def test_the_ca_hash_is_kubeadms():
    ca = certs.make_ca().cert_pem
    der = (
        x509.load_pem_x509_certificate(ca)
        .public_key()
        .public_bytes(
            serialization.Encoding.DER,
            serialization.PublicFormat.SubjectPublicKeyInfo,
        )
    )
    expected = 'sha256:' + hashlib.sha256(der).hexdigest()

    assert vmk8s.ca_cert_hash(ca) == expected
    assert vmk8s.ca_cert_hash(certs.make_ca().cert_pem) != expected


def test_unknown_actions_and_ha_masters_are_refused(tmp_path, capsys):
    config = tmp_path / 'c.conf'
    config.write_text('NODE_IP=198.18.4.12\n')

    assert vmk8s.main(['nope', str(config)]) == 2
    assert vmk8s.main(['join-master', str(config)]) == 1
    assert 'one master' in capsys.readouterr().err


def test_a_kubelet_names_its_node_after_the_host_in_lower_case():
    assert kubelet.node_name_of('vnf-abc-workerNode-x1\n') == (
        'vnf-abc-workernode-x1'
    )


@pytest.fixture(scope='module')
def package(tmp_path_factory) -> Path:
    return k8s_cluster_sample.package_source(
        tmp_path_factory.mktemp('pkg') / 'vm_k8s_cluster'
    )


def test_the_package_script_runs_this_python(package):
    script = (package / k8s_cluster_sample.SCRIPT).read_text()

    assert '@VNFM_' not in script
    assert f"VNFM_PYTHON='{__import__('sys').executable}'" in script
    syntax = subprocess.run(
        ['bash', '-n', str(package / k8s_cluster_sample.SCRIPT)],
        check=False,
    )
    assert syntax.returncode == 0


def test_the_request_fits_the_vnfd(package):
    vnfd = read_csar(build_csar(str(package))).vnfd.to_dict()
    flavour = scaling.flavour_of(vnfd, 'simple')
    request = k8s_cluster_sample.instantiate_request('vim', 'k8s')

    params = k8s_cluster.parse(request['additionalParams'])
    k8s_cluster.check_flavour(params, flavour)

    assert k8s_cluster.names_driver(flavour)
    assert scaling.initial_counts(flavour, None) == {
        'masterNode': 1,
        'workerNode': 1,
    }
    assert params.script_path == k8s_cluster_sample.SCRIPT


def test_a_test_makes_an_action_fail_once(tmp_path, monkeypatch, capsys):
    config = tmp_path / 'c.conf'
    config.write_text('NODE_IP=198.18.4.12\n')
    monkeypatch.setenv(vmk8s.FAIL_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(vmk8s, 'ACTIONS', {'prepare': lambda c: None})
    (tmp_path / 'prepare').touch()

    assert vmk8s.main(['prepare', str(config)]) == 1
    assert 'failed as the test asked' in capsys.readouterr().err
    assert vmk8s.main(['prepare', str(config)]) == 0


def test_the_storage_flavour_fits_its_request_and_its_pvs(package):
    csar = read_csar(build_csar(str(package)))
    vnfd = csar.vnfd.to_dict()
    flavour = scaling.flavour_of(vnfd, 'storage')
    request = k8s_cluster_sample.instantiate_request(
        'vim', 'k8s', storage_export_to='198.18.0.0/24'
    )
    files = {
        str(p.relative_to(package)): p.read_bytes()
        for p in package.rglob('*')
        if p.is_file()
    }

    assert request['flavourId'] == 'storage'
    params = k8s_cluster.parse(request['additionalParams'])
    manifests = storage.check(
        params, vnfd, 'storage', PackageFiles('p', files)
    )

    assert [n for m in manifests for n in m.names()] == list(
        k8s_cluster_sample.PVS
    )
    assert scaling.initial_counts(flavour, None) == {
        'masterNode': 1,
        'workerNode': 1,
        k8s_cluster_sample.STORAGE_VDU: 1,
    }
    assert (
        storage.storage_vdu_aspect(
            params, vnfd, 'storage', k8s_cluster_sample.WORKER_ASPECT
        )
        is None
    )


def test_init_master_leaves_the_admin_kubeconfig_root_only(
    tmp_path, monkeypatch
):
    conf = tmp_path / 'etc' / 'kubernetes' / 'admin.conf'
    monkeypatch.setattr(vmk8s_master, 'ADMIN_CONF', conf)
    kubeconfig = tmp_path / 'admin.kubeconfig'
    kubeconfig.write_text('kind: Config\n')

    class Plane:
        kubeconfig_path = kubeconfig

    vmk8s_master._write_admin_conf(Plane())  # type: ignore[arg-type]

    assert conf.read_text() == 'kind: Config\n'
    assert conf.stat().st_mode & 0o777 == 0o600
