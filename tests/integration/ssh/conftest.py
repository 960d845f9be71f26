"""A real OpenSSH server on loopback for the SSH client tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from vnfm_testbed import prereqs
from vnfm_testbed.k8s.fixtures import local_k8s  # noqa: F401
from vnfm_testbed.sshd import SSHD
from vnfm_testbed.sshd import LoopbackSshd


def _sshd(root: Path, sudo: bool = False) -> Iterator[LoopbackSshd]:
    if not os.path.exists(SSHD):
        prereqs.missing(f'{SSHD} is missing (apt-get install openssh-server)')
    if os.geteuid() != 0:
        prereqs.missing('a loopback sshd for another user needs root')
    with LoopbackSshd(root, sudo=sudo) as server:
        server.start()
        yield server


@pytest.fixture(scope='module')
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackSshd]:
    """One sshd shared by a module's tests that do not restart it."""
    yield from _sshd(tmp_path_factory.mktemp('sshd'))


@pytest.fixture
def own_sshd(tmp_path: Path) -> Iterator[LoopbackSshd]:
    """An sshd of the test's own, to stop, restart or re-key."""
    yield from _sshd(tmp_path)


@pytest.fixture(scope='module')
def sudo_sshd(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LoopbackSshd]:
    """An sshd whose user may become root with its password."""
    if not os.path.exists('/usr/bin/sudo'):
        prereqs.missing('sudo is missing (apt-get install sudo)')
    yield from _sshd(tmp_path_factory.mktemp('sshd'), sudo=True)
