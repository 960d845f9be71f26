"""vnfm-demo --vim kubernetes, Change VNF Flavour: the pieces that need no
cluster."""

import hashlib
import io
import zipfile

from vnfm.csar import read_csar
from vnfm.drivers import scaling
from vnfm_testbed.demo import cli as demo
from vnfm_testbed.demo import cnf as demo_cnf
from vnfm_testbed.demo import cnf_flavour as demo_cnf_flavour


def test_requests_name_the_package_manifests_and_the_counts_checked(
    tmp_path,
):
    csar = demo_cnf.build_packages(tmp_path, demo._SAMPLES)[4]
    data = csar.read_bytes()
    vnfd = read_csar(data).vnfd.to_dict()
    names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())

    request = demo_cnf_flavour.instantiate_request('vim-1')
    assert set(request['additionalParams']['lcm-kubernetes-def-files']) <= (
        names
    )
    change = demo_cnf_flavour.change_flavour_request()
    assert set(change['additionalParams']['lcm-kubernetes-def-files']) <= (
        names
    )
    for flavour_id, wanted in (
        (request['flavourId'], demo_cnf_flavour.SMALL_VNFCS),
        (change['newFlavourId'], demo_cnf_flavour.LARGE_VNFCS),
    ):
        flavour = scaling.flavour_of(vnfd, flavour_id)
        assert scaling.initial_counts(flavour, None) == wanted


def test_its_hook_script_is_one_the_demo_allows(tmp_path):
    csar = demo_cnf.build_packages(tmp_path, demo._SAMPLES)[4]
    _, allowed = demo._build_packages(tmp_path, demo._SAMPLES)
    with zipfile.ZipFile(io.BytesIO(csar.read_bytes())) as zf:
        script = zf.read('Scripts/record_hook.py')
    assert hashlib.sha256(script).hexdigest() in allowed
