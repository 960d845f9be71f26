"""vnfm-demo's seed 003 step: the pieces that need no cluster."""

import io
import zipfile

import pytest
import yaml

from vnfm.csar import read_csar
from vnfm_testbed.demo import cli as demo
from vnfm_testbed.demo import cnf as demo_cnf
from vnfm_testbed.demo import cnf_update as demo_cnf_update
from vnfm_testbed.demo.runner import StepFailed

_BEFORE = {
    w: {f'{w}-uid1'} for w in demo_cnf_update.RESTARTED + demo_cnf_update.KEPT
}


def _after(restarted):
    return {
        w: {f'{w}-uid2'} if w in restarted else uids
        for w, uids in _BEFORE.items()
    }


def test_update_packages_hold_what_the_requests_name(tmp_path):
    v1, v2 = demo_cnf.build_packages(tmp_path, demo._SAMPLES)[2:4]
    vnfd_v2 = read_csar(v2.read_bytes()).vnfd.vnfd_id

    body = demo_cnf_update.update_request(vnfd_v2)

    assert body['vnfdId'] != read_csar(v1.read_bytes()).vnfd.vnfd_id
    paths = body['metadata']['configmap_secret_paths']
    for path in (v1, v2):
        names = set(zipfile.ZipFile(io.BytesIO(path.read_bytes())).namelist())
        assert set(demo_cnf_update.DEF_FILES) | set(paths) <= names
    # The workloads the check names are the ones the manifests create.
    with zipfile.ZipFile(v1) as z:
        docs = [
            d
            for f in demo_cnf_update.DEF_FILES
            for d in yaml.safe_load_all(z.read(f))
            if d
        ]
    assert {
        d['metadata']['name']
        for d in docs
        if d['kind'] in ('Pod', 'Deployment', 'ReplicaSet', 'DaemonSet')
    } == set(_BEFORE)


def test_instantiate_request_puts_v1_in_its_own_namespace():
    body = demo_cnf_update.instantiate_request('vim-1')

    assert body['additionalParams']['namespace'] == 'vnfm-demo-update'
    assert body['additionalParams']['namespace'] != demo_cnf.NAMESPACE
    assert body['vimConnectionInfo']['vim1']['vimId'] == 'vim-1'


def test_the_expected_restarts_pass():
    restarted, kept = demo_cnf_update.restarted_and_kept(
        _BEFORE, _after(demo_cnf_update.RESTARTED)
    )

    assert restarted == sorted(demo_cnf_update.RESTARTED)
    assert kept == sorted(demo_cnf_update.KEPT)


@pytest.mark.parametrize(
    'restarted',
    [
        demo_cnf_update.RESTARTED
        + ('env-test2',),  # an unchanged Pod restarted
        demo_cnf_update.RESTARTED[1:],  # the DaemonSet's Pods kept running
        (),  # nothing happened
    ],
)
def test_any_other_restarts_fail(restarted):
    with pytest.raises(StepFailed, match='expected restarted'):
        demo_cnf_update.restarted_and_kept(_BEFORE, _after(restarted))


def test_a_workload_with_only_some_pods_replaced_is_neither():
    after = _after(demo_cnf_update.RESTARTED)
    after['deployment2-vdu6'] = {'deployment2-vdu6-uid1', 'extra'}

    with pytest.raises(StepFailed, match="kept \\['env-test2'"):
        demo_cnf_update.restarted_and_kept(_BEFORE, after)
