"""Unit tests for the local cloud's VM host (no namespaces needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vnfm_testbed.openstack import vmhost


@pytest.mark.parametrize(
    'cidr',
    [
        '10.0.0.0/24',
        '172.16.5.0/24',
        '192.168.1.0/24',
        '8.8.8.0/24',
        '198.17.255.0/24',
        '198.16.0.0/14',
    ],
)
def test_addresses_outside_the_test_range_are_refused(cidr: str) -> None:
    with pytest.raises(ValueError, match='outside the test range'):
        vmhost.check_in_test_range(cidr)


def test_the_test_range_is_accepted() -> None:
    assert str(vmhost.check_in_test_range('198.19.255.1/24')) == (
        '198.19.255.0/24'
    )


def test_init_script_makes_users_and_fresh_keys_then_becomes_sshd(
    tmp_path: Path,
) -> None:
    spec = {
        'hostname': 'vm-a',
        'ssh_pwauth': False,
        'users': [
            {
                'name': 'ops',
                'password': "it's",
                'sudo': True,
                'ssh_authorized_keys': ['ssh-ed25519 AAAA k'],
            },
        ],
    }

    script = vmhost._init_script(spec, tmp_path).splitlines()

    assert script[-1] == 'exec /usr/sbin/sshd -D -e'
    assert 'rm -f /etc/ssh/ssh_host_*' in script
    assert any(
        'PasswordAuthentication %s' in line
        and line.endswith('no > /etc/ssh/sshd_config.d/50-localcloud.conf')
        for line in script
    )
    assert "echo 'ops:it'\"'\"'s' | chpasswd" in script
    assert any(
        line.startswith('mount -t overlay') and '/etc' in line
        for line in script
    )


def test_the_address_lock_is_held_by_one_cloud_at_a_time(
    tmp_path: Path,
) -> None:
    # Two clouds picking a free block at once got the same one (a block
    # shows in the host's routes only once a bridge has its address).
    lock = tmp_path / 'addresses.lock'
    with (
        vmhost.address_lock(lock),
        pytest.raises(vmhost.AddressLockTimeout, match=str(lock)),
        vmhost.address_lock(lock, timeout=0.2),
    ):
        pass
    with vmhost.address_lock(lock, timeout=0.2):
        pass


@pytest.mark.parametrize(
    ('name', 'hostname'),
    [
        ('VDU1_a-001', 'vdu1-a-001'),
        ('my server.example', 'my-server.example'),
        ('-x!y_', 'xy'),
        ('__', 'server'),
        ('a' * 70, 'a' * 63),
    ],
)
def test_host_names_are_novas_of_the_server_name(
    name: str, hostname: str
) -> None:
    assert vmhost.hostname_of(name) == hostname
