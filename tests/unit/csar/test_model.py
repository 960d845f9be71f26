"""The VNFD model as the database keeps it: every sample package's VNFD
survives JSON and comes back equal, so a conductor reading it runs the
package as onboarded."""

from __future__ import annotations

import json

import pytest

from vnfm.csar import model
from vnfm.csar.build import build_csar
from vnfm.csar.package import read_csar

from .utils import SAMPLES

PACKAGES = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir())


@pytest.mark.parametrize('name', PACKAGES)
def test_a_stored_vnfd_reads_back_equal(name):
    vnfd = read_csar(build_csar(str(SAMPLES / name))).vnfd

    stored = json.loads(json.dumps(vnfd.to_dict()))
    back = model.Vnfd.from_dict(stored)

    assert back == vnfd
    assert back.to_dict() == stored


def test_a_flavour_is_found_by_id():
    vnfd = read_csar(build_csar(str(SAMPLES / 'vm_simple'))).vnfd

    assert vnfd.flavour('simple') is vnfd.flavours['simple']
    assert vnfd.flavour('huge') is None


def test_a_minimal_vnfd_gets_empty_collections():
    vnfd = model.Vnfd.from_dict(
        {
            'vnfd_id': 'v',
            'provider': 'p',
            'product_name': 'n',
            'software_version': '1',
            'vnfd_version': '1',
            'flavours': {'f': {'flavour_id': 'f'}},
        }
    )

    flavour = vnfd.flavours['f']
    assert (flavour.vdus, flavour.cps, flavour.virtual_links) == ({}, {}, [])
    assert vnfd.interfaces == {} and vnfd.vnfm_info == []
