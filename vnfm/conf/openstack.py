"""Options of the [openstack] group: Keystone and Heat of OpenStack VIMs."""

from oslo_config import cfg

group = cfg.OptGroup('openstack', title='OpenStack VIM options')

opts = [
    cfg.FloatOpt(
        'connect_timeout',
        default=10.0,
        min=0.1,
        help='Seconds to wait for a TCP/TLS connection to Keystone or Heat.',
    ),
    cfg.FloatOpt(
        'request_timeout',
        default=60.0,
        min=0.1,
        help='Seconds one Keystone or Heat request may take in all '
        '(connecting, the answer and its body): a peer that answers slowly '
        'is cut off then and the step fails.',
    ),
    cfg.IntOpt(
        'stack_timeout',
        default=1800,
        min=1,
        help='Seconds a Heat stack create, update or delete may take before '
        'the operation fails (never beyond the operation deadline).',
    ),
    cfg.FloatOpt(
        'poll_max_interval',
        default=1.0,
        min=0.05,
        help="Longest pause between two reads of a stack's events while "
        'waiting for it: the pause is short after new events and grows to '
        'this while none come.',
    ),
    cfg.IntOpt(
        'graceful_termination_timeout',
        default=0,
        min=0,
        help='Seconds a GRACEFUL terminate waits before deleting the stack '
        'when the request gives no gracefulTerminationTimeout.',
    ),
    cfg.IntOpt(
        'image_timeout',
        default=1800,
        min=1,
        help="Seconds the upload of a package's software images to the "
        "VIM's image service may take in all (create, data, until active; "
        'never beyond the operation deadline).',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [openstack] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
