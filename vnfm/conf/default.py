"""Options of the [DEFAULT] group."""

import os
import socket

from oslo_config import cfg

opts = [
    cfg.StrOpt(
        'host',
        default=socket.gethostname(),
        sample_default='<hostname>',
        help='Name of this service instance. Each conductor must '
        'have a unique value; it owns the operations it runs '
        'under this name.',
    ),
    cfg.StrOpt(
        'state_path',
        default=os.path.join(
            os.path.expanduser('~'), '.local', 'share', 'vnfm'
        ),
        sample_default='~/.local/share/vnfm',
        help='Directory for local state (the SQLite database of the '
        'all-in-one mode, scratch space for hook scripts).',
    ),
    cfg.FloatOpt(
        'gc_log_threshold_ms',
        default=0,
        min=0,
        help='Log a warning for each garbage collection that pauses a '
        'vnfm process for longer than this many milliseconds (CPython '
        'stops every thread of the process while it collects). 0: do not '
        'time collections.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [DEFAULT] options."""
    conf.register_opts(opts)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(None, opts)]
