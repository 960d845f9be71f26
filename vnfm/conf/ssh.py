"""Options of the [ssh] group: how vnfm logs into the VMs of a VNF (the
kubernetes_cluster MgmtDriver)."""

from oslo_config import cfg

group = cfg.OptGroup(
    'ssh',
    title='SSH to VNF VMs',
    help='Deadlines of the SSH connections MgmtDrivers open to the VMs of '
    'a VNF. Connections obey the [outbound] policy: allow the VM '
    'networks there (allowed_networks) when they are private ranges.',
)

opts = [
    cfg.FloatOpt(
        'connect_timeout',
        default=10.0,
        min=0.1,
        help='Seconds one TCP connection attempt to a VM may take.',
    ),
    cfg.FloatOpt(
        'banner_timeout',
        default=15.0,
        min=0.1,
        help="Seconds to wait for the VM's SSH banner.",
    ),
    cfg.FloatOpt(
        'auth_timeout',
        default=20.0,
        min=0.1,
        help='Seconds the login (password or key) may take.',
    ),
    cfg.FloatOpt(
        'boot_timeout',
        default=300.0,
        min=0.0,
        help='Seconds to keep retrying, with backoff, while a VM does not '
        'accept SSH yet (it boots). A refused login or a changed host '
        'key is not retried.',
    ),
    cfg.FloatOpt(
        'command_timeout',
        default=1800.0,
        min=1.0,
        help='Seconds one remote command (an install script step) may '
        'run before it is killed on the VM and the operation fails; '
        "the operation's own deadline applies when it is sooner.",
    ),
    cfg.FloatOpt(
        'transfer_timeout',
        default=120.0,
        min=1.0,
        help='Seconds one SFTP transfer may take in all.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [ssh] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
