"""A vnfm-api and a vnfm-conductor whose ``[crypto] keys`` differ: the
operation fails, saying that the keys must be the same everywhere, and the
credential never shows."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration import conftest
from vnfm_testbed import procs

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def mismatched(
    tmp_path: Path, zips: dict[str, conftest.Zip], hook_record: Path
) -> Iterator[conftest.Api]:
    """vnfm-api with one key, a conductor with another."""
    allowed = conftest.zip_scripts_sha256(zips['v1'].path.read_bytes())
    svc = procs.VnfmServices(
        tmp_path,
        conf={'mgmt_driver': {'allowed_script_sha256': ','.join(allowed)}},
    )
    with conftest.running('mismatched', svc, conductors=0):
        svc.crypto_key = base64.urlsafe_b64encode(os.urandom(32)).decode()
        svc.start_conductors(1)
        api = conftest.Api(svc.api_url, hook_record)
        api.onboard(zips['v1'].path)
        yield api


def test_conductor_with_another_key_fails_the_op_saying_why(mismatched):
    api = mismatched
    inst_id = api.create_instance(api.V1_VNFD_ID, 'keys')
    op_id = api.start(inst_id, 'instantiate', api.instantiate_request())

    op = api.wait_op(op_id, 'ROLLED_BACK', timeout=30)

    detail = op['error']['detail']
    assert detail.startswith(
        'Stored credentials cannot be decrypted on host conductor-1 with its '
        '[crypto] keys: they were encrypted with another key.'
    ), op['error']
    assert (
        '[crypto] keys must be the same on every vnfm-api and vnfm-conductor'
        in detail
    )
    assert api.SECRET not in str(op)
    assert api.instance(inst_id)['instantiationState'] == 'NOT_INSTANTIATED'
