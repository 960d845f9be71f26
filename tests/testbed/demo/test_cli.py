"""vnfm-demo's noop scenario: the pieces that need no running service."""

import hashlib

from vnfm.csar import read_csar
from vnfm.csar.build import build_csar
from vnfm.objects import scale_level
from vnfm_testbed.demo import cli as demo


def test_sample_packages_build_and_their_script_is_allow_listed(tmp_path):
    csars, digests = demo._build_packages(tmp_path, demo._SAMPLES)

    vnfd_ids = {read_csar(p.read_bytes()).vnfd.vnfd_id for p in csars}
    assert len(vnfd_ids) == 2  # modify moves the instance to another VNFD
    script = demo._SAMPLES / 'noop_vnf' / 'Scripts' / 'record_hook.py'
    assert hashlib.sha256(script.read_bytes()).hexdigest() in digests


def test_the_level_asked_for_is_noop_vnfs_and_the_one_checked():
    vnfd = read_csar(
        build_csar(str(demo._SAMPLES / 'noop_vnf'))
    ).vnfd.to_dict()

    target = scale_level.target_levels(
        vnfd['flavours']['simple'], {}, demo._LEVEL_REQUEST
    )

    assert target == {'vdu1_aspect': demo._LEVEL}
