"""kubernetes_cluster.script: the config file and the results format
(the runner itself is tested over real SSH in tests/integration/ssh)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.drivers.mgmt.kubernetes_cluster.instances import params
from vnfm.drivers.mgmt.kubernetes_cluster import script

SAMPLE = (
    Path(__file__).resolve().parents[5]
    / 'samples/kubernetes_cluster/Scripts/install_k8s_cluster.sh'
)


def test_node_config_carries_the_cluster_parameters() -> None:
    values = script.node_config(
        params(),
        '198.18.0.11',
        '198.18.0.100',
        join={'JOIN_TOKEN': 't', 'CA_CERT_HASH': 'sha256:x'},
    )
    assert values['NODE_IP'] == '198.18.0.11'
    assert values['CLUSTER_ENDPOINT'] == '198.18.0.100:6443'
    assert values['POD_CIDR'] == '192.168.0.0/16'
    assert values['SERVICE_CIDR'] == '10.199.187.0/24'
    assert values['HTTP_PROXY_URL'] == 'http://user1:pw@proxy.example:3128'
    assert values['K8S_NODE_CIDR'] == '198.51.100.0/24'
    assert values['JOIN_TOKEN'] == 't' and values['CERTIFICATE_KEY'] == ''
    # Every key is one the sample script reads.
    assert set(values) <= script.CONFIG_KEYS


def test_the_sample_script_reads_exactly_these_keys() -> None:
    text = SAMPLE.read_text()
    case = text.split('case $key in', 1)[1].split(')', 1)[0]
    read = {k.strip(' \\\n') for k in case.split('|')}
    assert read == script.CONFIG_KEYS


def test_render_config_lines_without_empty_values() -> None:
    text = script.render_config({'NODE_IP': '198.18.0.1', 'NODE_NAME': ''})
    assert text == 'NODE_IP=198.18.0.1\n'


@pytest.mark.parametrize(
    'values',
    [{'NODE_IP': '1\nJOIN_TOKEN=x'}, {'EVIL': 'x'}, {'POD_CIDR': 'a\x00'}],
)
def test_render_config_refuses_what_the_format_cannot_carry(values) -> None:  # noqa: ANN001
    with pytest.raises(ValueError):
        script.render_config(values)


def test_results_are_key_value_lines() -> None:
    out = 'noise\nJOIN_TOKEN=abc.def\nCA_CERT_HASH=sha256:00=\nlower=x\n'
    assert script.parse_results(out) == {
        'JOIN_TOKEN': 'abc.def',
        'CA_CERT_HASH': 'sha256:00=',
    }
