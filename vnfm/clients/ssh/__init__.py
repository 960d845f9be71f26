"""SSH to the VMs of a VNF: only this package imports ``paramiko``.

``connect(target, policy, timeouts)`` opens one ``Session`` to a VM, reused
for every command and file of a hook. Host keys are pinned per VM: with no
``target.known_keys`` (first contact) the key the VM presents is accepted
and returned in ``Session.host_keys`` for the caller to store; with pinned
keys any other key is refused (``HostKeyChanged``, naming the host and both
fingerprints). While the VM boots (connection refused, timeouts, no banner
yet) the connection is retried with backoff until ``timeouts.boot``; a
refused login fails at once. Every step has a deadline, and a command that
outlives its own is killed on the VM (``timeout`` of coreutils) and fails
with ``CommandTimeout``. Errors name the host, the step and the exit code,
with a capped tail of stderr from which the session's secrets are scrubbed.
Secrets go to commands on stdin, never on a command line.
"""

from vnfm.clients.ssh.connection import connect
from vnfm.clients.ssh.connection import key_line
from vnfm.clients.ssh.model import OUTPUT_CAP
from vnfm.clients.ssh.model import STDERR_TAIL
from vnfm.clients.ssh.model import AuthenticationFailed
from vnfm.clients.ssh.model import CommandFailed
from vnfm.clients.ssh.model import CommandTimeout
from vnfm.clients.ssh.model import HostKeyChanged
from vnfm.clients.ssh.model import Result
from vnfm.clients.ssh.model import SshError
from vnfm.clients.ssh.model import Target
from vnfm.clients.ssh.model import Timeouts
from vnfm.clients.ssh.model import Unreachable
from vnfm.clients.ssh.model import configured_timeouts
from vnfm.clients.ssh.model import fingerprint
from vnfm.clients.ssh.session import Session

__all__ = [
    'OUTPUT_CAP',
    'STDERR_TAIL',
    'AuthenticationFailed',
    'CommandFailed',
    'CommandTimeout',
    'HostKeyChanged',
    'Result',
    'Session',
    'SshError',
    'Target',
    'Timeouts',
    'Unreachable',
    'configured_timeouts',
    'connect',
    'fingerprint',
    'key_line',
]
