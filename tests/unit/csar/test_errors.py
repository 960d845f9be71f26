"""InvalidPackage: what onboarding tells the user to fix."""

from __future__ import annotations

import pytest

from vnfm.csar import errors
from vnfm.csar import read_csar


def test_the_detail_is_what_the_user_reads() -> None:
    error = errors.InvalidPackage('TOSCA.meta: Entry-Definitions is missing.')
    assert error.detail == 'TOSCA.meta: Entry-Definitions is missing.'
    assert str(error) == error.detail


def test_a_package_that_is_not_a_zip_says_so() -> None:
    with pytest.raises(errors.InvalidPackage) as raised:
        read_csar(b'not a zip file')
    assert raised.value.detail
    assert str(raised.value) == raised.value.detail
