"""[ssh] defaults: a login has time for connection, banner and
authentication; a VM gets time to boot; a command longer still."""

from __future__ import annotations

from vnfm.conf import CONF


def test_a_vm_gets_longer_to_boot_than_one_login_takes():
    ssh = CONF.ssh

    assert ssh.boot_timeout > (
        ssh.connect_timeout + ssh.banner_timeout + ssh.auth_timeout
    )


def test_an_install_step_may_run_longer_than_a_boot():
    assert CONF.ssh.command_timeout > CONF.ssh.boot_timeout
