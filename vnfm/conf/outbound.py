"""Options of the [outbound] group: where vnfm may connect to on behalf of
API users (callbackUris, OAuth 2.0 token endpoints of subscriptions,
upload_from_uri addresses)."""

from oslo_config import cfg

group = cfg.OptGroup(
    'outbound',
    title='Outbound connection policy',
    help="Addresses that API users give vnfm (a subscription's callbackUri "
    "and tokenEndpoint, a package's upload_from_uri address, a VIM's "
    'endpoint) are checked against this policy on the address actually '
    'connected to, after DNS resolution and on every redirect. VIM '
    'endpoints may also be in vim_allowed_networks.',
)

DEFAULT_DENIED = [
    '0.0.0.0/8',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '10.0.0.0/8',
    '172.16.0.0/12',
    '192.168.0.0/16',
    '100.64.0.0/10',
    '::/128',
    '::1/128',
    'fe80::/10',
    'fc00::/7',
]

opts = [
    cfg.ListOpt(
        'denied_networks',
        default=DEFAULT_DENIED,
        deprecated_opts=[
            cfg.DeprecatedOpt(
                'upload_from_uri_blocked_networks', group='vnf_package'
            )
        ],
        help='Networks (CIDR) vnfm never connects to for an '
        'address an API user gave: by default the unspecified '
        "and loopback addresses (vnfm's own services, its "
        'database and message bus), link-local (cloud metadata '
        'services at 169.254.169.254), the private ranges and '
        'shared address space (100.64.0.0/10). IPv4-mapped '
        'IPv6 addresses are checked as the IPv4 address they '
        'map. Set it empty to connect anywhere.',
    ),
    cfg.ListOpt(
        'allowed_networks',
        default=[],
        help='Networks (CIDR) vnfm connects to even when '
        'denied_networks covers them, e.g. the private network '
        'of the NFVO receiving notifications. Takes precedence '
        'over denied_networks.',
    ),
    cfg.ListOpt(
        'vim_allowed_networks',
        default=[],
        help='Networks (CIDR) vnfm connects to for VIM endpoints (an '
        "OpenStack VIM's Keystone and the services of its catalog, a "
        "Kubernetes VIM's API server) even when denied_networks covers "
        'them: clouds usually live on private networks. allowed_networks '
        'is allowed for VIMs too. A VIM in a network neither allows is '
        'refused ("refused by policy"): an OpenStack VIM at registration, '
        'any VIM when an operation uses it.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [outbound] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
