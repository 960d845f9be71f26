"""Fixtures for the csar tests."""

import pytest

from .utils import sample_files


@pytest.fixture
def sample() -> dict[str, bytes]:
    """The files of the noop_vnf sample package."""
    return sample_files()
