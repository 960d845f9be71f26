"""Options of the [performance_management] group: PM jobs, their reports
and the Prometheus rules made of them."""

from oslo_config import cfg

group = cfg.OptGroup(
    'performance_management', title='VNF performance management options'
)

opts = [
    cfg.IntOpt(
        'pm_job_page_size',
        default=100,
        min=0,
        help='PM jobs per page of GET /vnfpm/v2/pm_jobs (0: no paging).',
    ),
    cfg.IntOpt(
        'max_reports_per_job',
        default=100,
        min=1,
        help='Reports a PM job keeps; the oldest goes when a new one '
        'arrives beyond it.',
    ),
    cfg.StrOpt(
        'rule_dir',
        help='Directory of Prometheus rule files where the conductors '
        'write one file per PM job (vnfm-pm-<job id>.yaml) and remove '
        'those of deleted jobs; Prometheus loads them when a glob of its '
        'rule_files matches them (the directory with the name pattern '
        'vnfm-pm- and any suffix). Unset: no rules are written.',
    ),
    cfg.StrOpt(
        'prometheus_url',
        help='Base URL of Prometheus (run with --web.enable-lifecycle): '
        'after the rule files changed, vnfm POSTs <url>/-/reload. '
        'Unset: Prometheus is not told (it reloads on SIGHUP).',
    ),
    cfg.FloatOpt(
        'reload_timeout',
        default=10.0,
        min=0.1,
        help='Seconds a reload of Prometheus, or a check of a rule file '
        'by promtool, may take in total.',
    ),
    cfg.StrOpt(
        'promtool',
        default='promtool',
        help='The promtool that checks each rule file before it replaces '
        'the one in rule_dir (a file promtool refuses is not written, and '
        'the conductor logs why). Checks are skipped, with a warning, '
        'when it is not found.',
    ),
    cfg.IntOpt(
        'threshold_interval',
        default=30,
        min=1,
        max=86400,
        help="Seconds between two evaluations of a threshold's rules by "
        'Prometheus, and the window of its rates.',
    ),
    cfg.IntOpt(
        'autoscale_cooldown',
        default=300,
        min=0,
        help='Seconds after an automatic scale of a VNF instance ended in '
        'which no other automatic scale of that instance starts.',
    ),
    cfg.FloatOpt(
        'rule_sync_interval',
        default=5.0,
        min=0.1,
        help='Seconds between two rounds in which each conductor makes '
        'rule_dir match the PM jobs.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [performance_management] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
