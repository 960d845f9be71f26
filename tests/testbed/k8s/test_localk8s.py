"""Unit tests for vnfm-localk8s and the cluster's set-up files."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest
import yaml

from vnfm_testbed.k8s import cluster as cluster_mod
from vnfm_testbed.k8s import k8sbuild
from vnfm_testbed.k8s import localk8s


def test_default_state_dir_by_name() -> None:
    args = localk8s.parse_args(['up', '--name', 'demo'])
    assert args.state_dir == Path.home() / '.cache/vnfm/localk8s/demo'
    assert args.nodes == 2


def test_skip_env_makes_build_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv('VNFM_SKIP_K8S', '1')
    with pytest.raises(k8sbuild.BuildUnavailable, match='VNFM_SKIP_K8S'):
        k8sbuild.ensure_built()


def test_prepare_writes_tokens_kubeconfigs_and_pki(tmp_path: Path) -> None:
    cluster = cluster_mod.LocalCluster(
        tmp_path / 'c', extra_users={'alice': ['devs', 'ops']}
    )
    cluster._prepare()
    lines = cluster.token_file.read_text().splitlines()
    users = {line.split(',')[1]: line for line in lines}
    assert users['vnfm-admin'].endswith(',"system:masters"')
    assert users['alice'].endswith(',"devs,ops"')
    assert users['vnfm-noaccess'].count(',') == 2  # no groups
    config = yaml.safe_load(cluster.kubeconfig_path.read_text())
    assert config['users'][0]['user']['token'] == cluster.admin_token
    server = config['clusters'][0]['cluster']['server']
    assert server == cluster.endpoint
    assert cluster.ca_cert_path.exists()
    assert len(set(cluster.ports.values())) == 3


def test_failing_image_default_pattern() -> None:
    pattern = re.compile(cluster_mod.DEFAULT_FAILING_IMAGES)
    assert pattern.search('registry.example.invalid/vnf/app:1.0')
    assert pattern.search('no-such-image:2')
    assert pattern.search('quay.io/x/no-such-image@sha256:00')
    assert not pattern.search('nginx')
    assert not pattern.search('docker.io/library/nginx:1.19')


def test_signals_during_up_raise_and_are_restored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with (
        pytest.raises(localk8s.Interrupted, match='SIGTERM'),
        localk8s._signals_raise(),
    ):
        signal.raise_signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) == before


def test_ignored_signals_stay_ignored() -> None:
    # `nohup` ignores SIGHUP: up must not turn it into a failure.
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with localk8s._signals_raise():
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)
