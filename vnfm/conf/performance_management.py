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
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [performance_management] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
