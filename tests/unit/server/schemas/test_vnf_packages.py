"""The request bodies of /vnfpkgm/v1 (SOL005 9.5.2)."""

from __future__ import annotations

import pytest

from vnfm.common import schemacheck
from vnfm.server.schemas import vnf_packages


@pytest.mark.parametrize(
    'body', [{}, {'userDefinedData': {'team': 'a'}}, {'other': 1}]
)
def test_create_takes_user_data_or_nothing(body):
    assert schemacheck.first_error(vnf_packages.CREATE, body) is None


def test_create_user_data_is_an_object():
    assert schemacheck.first_error(
        vnf_packages.CREATE, {'userDefinedData': ['a']}
    ) == ("userDefinedData: ['a'] is not of type 'object'")


def test_modify_needs_at_least_one_attribute():
    assert schemacheck.first_error(vnf_packages.MODIFY, {}) is not None
    assert (
        schemacheck.first_error(
            vnf_packages.MODIFY, {'operationalState': 'DISABLED'}
        )
        is None
    )


def test_modify_takes_only_the_two_operational_states():
    error = schemacheck.first_error(
        vnf_packages.MODIFY, {'operationalState': 'BROKEN'}
    )

    assert error is not None and error.startswith('operationalState: ')


def test_upload_from_uri_needs_an_address():
    assert schemacheck.first_error(vnf_packages.UPLOAD_FROM_URI, {}) == (
        'addressInformation: is a required property'
    )
    assert (
        schemacheck.first_error(
            vnf_packages.UPLOAD_FROM_URI,
            {
                'addressInformation': 'https://198.18.0.7/pkg.zip',
                'userName': 'u',
                'password': 'p',
            },
        )
        is None
    )
