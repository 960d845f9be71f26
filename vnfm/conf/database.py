"""Options of the [database] group."""

from oslo_config import cfg

group = cfg.OptGroup('database', title='Database options')

opts = [
    cfg.StrOpt(
        'connection',
        secret=True,
        help='SQLAlchemy URL of the database, e.g. '
        'postgresql+psycopg2://vnfm:pw@db/vnfm or '
        'mysql+pymysql://vnfm:pw@db/vnfm. Default: SQLite in '
        '$state_path/vnfm.sqlite.',
    ),
    cfg.IntOpt(
        'pool_size',
        default=10,
        min=1,
        help='Connections kept open per process.',
    ),
    cfg.IntOpt(
        'max_overflow',
        default=20,
        min=0,
        help='Connections opened beyond pool_size under load.',
    ),
    cfg.IntOpt(
        'pool_timeout',
        default=30,
        min=1,
        help='Seconds to wait for a free pooled connection.',
    ),
    cfg.IntOpt(
        'connect_timeout',
        default=10,
        min=1,
        help='Seconds to wait when opening a connection.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [database] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
