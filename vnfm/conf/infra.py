"""Options of the [infra] group: infrastructure drivers."""

from oslo_config import cfg

group = cfg.OptGroup('infra', title='Infrastructure driver options')

opts = [
    cfg.ListOpt(
        'enabled_infra_drivers',
        default=['kubernetes', 'openstack'],
        help='Infrastructure drivers to load (entry points in the '
        'vnfm.infra_drivers namespace): by default every '
        'built-in driver of a real VIM. ``noop`` (a VIM that '
        'creates nothing, vimType VNFM.NOOP.V_1) is for tests '
        'and demos. A name that does not load stops the '
        'service at start-up. The API accepts only the '
        'vimTypes and operations these drivers support: set '
        'the same list for vnfm-api and every vnfm-conductor.',
    ),
    cfg.IntOpt(
        'operation_timeout',
        default=3600,
        min=1,
        help='Seconds one LCM operation (hooks and infra driver '
        'calls together) may take before it fails with a '
        'deadline error.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [infra] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
