"""Options of the [vnf_package] group: onboarding limits."""

from oslo_config import cfg

group = cfg.OptGroup('vnf_package', title='VNF package options')

opts = [
    cfg.IntOpt(
        'max_size',
        default=200 * 1024 * 1024,
        min=1024,
        help='Largest package (zip) accepted, in bytes.',
    ),
    cfg.IntOpt(
        'max_uncompressed',
        default=1024 * 1024 * 1024,
        min=1024,
        help='Largest total uncompressed size, in bytes.',
    ),
    cfg.IntOpt(
        'max_ratio',
        default=100,
        min=1,
        help='Largest compression ratio of any file and of the '
        'whole package (zip-bomb guard).',
    ),
    cfg.IntOpt(
        'max_files',
        default=10000,
        min=1,
        help='Most files a package may hold.',
    ),
    cfg.IntOpt(
        'upload_from_uri_timeout',
        default=60,
        min=1,
        help='Seconds allowed for fetching a package from a URI.',
    ),
    cfg.ListOpt(
        'allowed_uri_schemes',
        default=['http', 'https'],
        help='URI schemes accepted by upload_from_uri.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [vnf_package] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
