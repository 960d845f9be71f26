"""Unit tests for vnfm_testbed.k8s.daemons and .clusterfiles."""

from __future__ import annotations

from pathlib import Path

from vnfm_testbed.k8s import clusterfiles
from vnfm_testbed.k8s import daemons
from vnfm_testbed.k8s.k8sbuild import K8sBinaries

BINS = K8sBinaries(Path('/b'), Path('/b/kubectl'), Path('/usr/bin/etcd'))
LAYOUT = daemons.Layout(Path('/s'), 2379, 2380, 6443)


def test_apiserver_enforces_rbac_with_tokens_and_tls() -> None:
    argv = daemons.apiserver(BINS, LAYOUT)
    assert argv[0] == '/b/kube-apiserver'
    assert '--authorization-mode=Node,RBAC' in argv
    assert '--token-auth-file=/s/tokens.csv' in argv
    assert '--secure-port=6443' in argv
    assert '--insecure-port=0' in argv
    assert '--etcd-servers=http://127.0.0.1:2379' in argv
    assert '--tls-cert-file=/s/pki/apiserver.crt' in argv


def test_controller_manager_skips_node_lifecycle_and_signs_tokens() -> None:
    argv = daemons.controller_manager(BINS, LAYOUT)
    assert '--controllers=*,-nodelifecycle' in argv
    assert '--service-account-private-key-file=/s/pki/sa.key' in argv
    assert '--secure-port=0' in argv and '--port=0' in argv


def test_kubelet_runs_this_python_module() -> None:
    argv = daemons.kubelet(LAYOUT, 3, 'demo', 0.5, 'bad')
    assert argv[1:3] == ['-m', 'vnfm_testbed.k8s.kubelet']
    assert '--nodes=3' in argv and '--failing-images=bad' in argv


def test_token_lines_quote_groups() -> None:
    users = {'a': ['g1', 'g2'], 'b': []}
    lines = clusterfiles.token_lines(users, {'a': 'ta', 'b': 'tb'})
    assert lines == ['ta,a,a,"g1,g2"', 'tb,b,b']
