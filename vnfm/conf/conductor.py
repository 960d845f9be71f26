"""Options of the [conductor] group."""

from oslo_config import cfg

group = cfg.OptGroup('conductor', title='vnfm-conductor options')

opts = [
    cfg.StrOpt(
        'topic',
        default='vnfm-conductor',
        help='RPC topic the conductors consume (competing consumers).',
    ),
    cfg.IntOpt(
        'workers',
        default=8,
        min=1,
        help='Operations one conductor runs at the same time.',
    ),
    cfg.IntOpt(
        'lease_seconds',
        default=30,
        min=3,
        help='An operation whose owner has not renewed its lease '
        'for this long is marked FAILED_TEMP by another '
        'conductor.',
    ),
    cfg.FloatOpt(
        'heartbeat_interval',
        default=5.0,
        min=0.1,
        help='Seconds between lease renewals; must be well below '
        'lease_seconds.',
    ),
    cfg.FloatOpt(
        'sweep_interval',
        default=5.0,
        min=0.1,
        help='Seconds between looks for expired leases and for '
        'operations whose RPC cast was lost.',
    ),
    cfg.FloatOpt(
        'cancel_poll_interval',
        default=0.25,
        min=0.05,
        help='Seconds between looks for a FORCEFUL cancel of an '
        'operation this conductor runs (its running hook is '
        'then killed). A GRACEFUL cancel is seen at the next '
        'step without polling.',
    ),
    cfg.IntOpt(
        'cast_retries',
        default=2,
        min=0,
        help='Reconnection attempts of an RPC cast before vnfm-api '
        'gives up on it (the operation is already recorded; a '
        'conductor finds it with its sweep).',
    ),
    cfg.IntOpt(
        'unclaimed_grace_seconds',
        default=10,
        min=1,
        help='An operation nobody claimed for this long (its cast '
        'was lost) is picked up from the database.',
    ),
    cfg.IntOpt(
        'graceful_shutdown_timeout',
        default=60,
        min=0,
        help='On SIGTERM, seconds running operations may take to '
        'finish; those still running then are marked '
        'FAILED_TEMP (retry, rollback or fail them).',
    ),
    cfg.IntOpt(
        'sync_workers',
        default=4,
        min=1,
        help='Threads of the periodic sync ([kubernetes] sync_interval): '
        "each VIM's instances are synced in a job of their own, so a slow "
        'VIM does not hold up the others.',
    ),
    cfg.FloatOpt(
        'sync_vim_timeout',
        default=120.0,
        min=1.0,
        help='Seconds the periodic sync may spend on the instances of one '
        'VIM in one round; those not synced by then wait for a later '
        'round, and a VIM still being synced is not queued again.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [conductor] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
