"""Options of the [api] group: the vnfm-api WSGI service."""

from oslo_config import cfg

group = cfg.OptGroup('api', title='vnfm-api options')

opts = [
    cfg.HostAddressOpt(
        'host_ip', default='127.0.0.1', help='Address vnfm-api listens on.'
    ),
    cfg.PortOpt('port', default=9890, help='Port vnfm-api listens on.'),
    cfg.IntOpt(
        'workers',
        default=0,
        min=0,
        help='Processes of vnfm-api serving the port. 0: one per '
        'CPU. Each process uses one core at most.',
    ),
    cfg.IntOpt(
        'threads', default=16, min=1, help='Threads per vnfm-api process.'
    ),
    cfg.StrOpt(
        'public_endpoint',
        help='Base URL clients use to reach vnfm-api, e.g. '
        'https://vnfm.example.com:9890. Used for Location '
        'headers and links. Default: the request host URL.',
    ),
    cfg.StrOpt(
        'auth_strategy',
        default='noauth',
        choices=[
            (
                'noauth',
                'No authentication; every request is '
                'an admin of the default project.',
            ),
            ('keystone', 'Tokens validated by keystonemiddleware.'),
        ],
        help='How API requests are authenticated.',
    ),
    cfg.IntOpt(
        'max_request_body_size',
        default=1024 * 1024,
        min=1024,
        help='Largest JSON request body accepted, in bytes. '
        'Package uploads are limited by [vnf_package] '
        'max_size instead.',
    ),
    cfg.IntOpt(
        'vnf_instance_page_size',
        default=100,
        min=0,
        help='Instances per page of GET vnf_instances (SOL013 '
        'paging: a Link header leads to the next page); 0 '
        'returns all in one page, up to max_list_items.',
    ),
    cfg.IntOpt(
        'lcm_op_occ_page_size',
        default=100,
        min=0,
        help='Op occurrences per page of GET vnf_lcm_op_occs; 0 '
        'returns all in one page, up to max_list_items.',
    ),
    cfg.IntOpt(
        'vnf_package_page_size',
        default=100,
        min=0,
        help='Packages per page of GET vnf_packages; 0 returns all '
        'in one page, up to max_list_items.',
    ),
    cfg.IntOpt(
        'subscription_page_size',
        default=100,
        min=0,
        help='Subscriptions per page; 0 returns all in one page, '
        'up to max_list_items.',
    ),
    cfg.IntOpt(
        'max_list_items',
        default=10000,
        min=0,
        help='Most items a list whose paging is off (page size 0) '
        'returns; more is a 400 "response too big" (SOL013 '
        '5.4.2.1). 0: no limit.',
    ),
    cfg.BoolOpt(
        'allow_duplicate_subscriptions',
        default=False,
        help='Create a subscription identical to an existing one '
        '(201) instead of answering 303 See Other with the '
        'existing one (SOL003 5.4.18.3.1).',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [api] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
