"""Options of the [mgmt_driver] group: MgmtDriver hooks."""

from oslo_config import cfg

group = cfg.OptGroup('mgmt_driver', title='MgmtDriver hook options')

opts = [
    cfg.ListOpt(
        'enabled_builtin_drivers',
        default=['script', 'container_update', 'kubernetes_cluster'],
        help='Built-in MgmtDrivers (entry points in the '
        'vnfm.mgmt_drivers namespace) a VNFD may name.',
    ),
    cfg.ListOpt(
        'allowed_script_sha256',
        default=[],
        help='SHA-256 digests (hex) of the package files allowed to '
        'run: hook scripts, user-data classes and every module of the '
        'package they import (Python source only: bytecode and '
        'extension modules of a package never load). A script, or a '
        'module it imports, whose digest is not listed fails the '
        'operation with the file and its digest, unless '
        'allow_any_script is set.',
    ),
    cfg.BoolOpt(
        'allow_any_script',
        default=False,
        help='Run any hook script a package carries. For test and '
        'demo set-ups only.',
    ),
    cfg.IntOpt(
        'script_timeout',
        default=600,
        min=1,
        help='Seconds a hook script may run before it is killed '
        'and the operation fails.',
    ),
    cfg.IntOpt(
        'container_update_timeout',
        default=900,
        min=1,
        help='Seconds the container_update MgmtDriver may take to '
        'replace ConfigMaps/Secrets and restart Pods (evictions '
        'refused by a PodDisruptionBudget are retried until '
        "then); the operation's own deadline applies when it "
        'is sooner. Each readiness wait is also bounded by '
        '[kubernetes] ready_timeout.',
    ),
    cfg.StrOpt(
        'sandbox_user',
        help='User that hook scripts and user-data classes run as when '
        "vnfm runs as root, with that user's primary group and no "
        'other groups, so they cannot read or change what only root '
        'can (nobody, say). python_executable must be an interpreter '
        'that user can run (vnfm installed outside /root). Unset: they '
        "run as vnfm's own user, root included (a warning is logged). "
        "When vnfm does not run as root, leave it unset or give vnfm's "
        'own user.',
    ),
    cfg.StrOpt(
        'python_executable',
        help='Interpreter for hook scripts. Default: the one running vnfm.',
    ),
    cfg.IntOpt(
        'max_output_bytes',
        default=1024 * 1024,
        min=1024,
        help='Largest stdout/stderr kept from a hook script.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [mgmt_driver] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
