"""Options of the [notifications] group: delivery of SOL003 LCM
notifications from the outbox by the conductors."""

from oslo_config import cfg

group = cfg.OptGroup(
    'notifications', title='LCM notification delivery options'
)

opts = [
    cfg.FloatOpt(
        'timeout',
        default=10.0,
        min=0.1,
        help='Seconds to connect to a callbackUri (or an OAuth 2.0 '
        'token endpoint) and, separately, to wait for its '
        'answer.',
    ),
    cfg.IntOpt(
        'max_attempts',
        default=10,
        min=1,
        help='Deliveries of one notification tried before it is '
        'given up (state FAILED, logged).',
    ),
    cfg.FloatOpt(
        'backoff_base',
        default=1.0,
        min=0.01,
        help='Seconds before the first retry; each further retry '
        'waits twice as long as the one before.',
    ),
    cfg.FloatOpt(
        'backoff_cap',
        default=300.0,
        min=0.01,
        help='Longest wait between two attempts, in seconds.',
    ),
    cfg.FloatOpt(
        'interval',
        default=1.0,
        min=0.05,
        help='Seconds between looks for notifications due; a look '
        'that delivered something is followed by another at '
        'once.',
    ),
    cfg.IntOpt(
        'workers',
        default=4,
        min=1,
        help='Notifications one conductor sends at the same time '
        '(to different subscriptions: one subscription gets '
        'its notifications one at a time, in order).',
    ),
    cfg.IntOpt(
        'lease_seconds',
        default=120,
        min=5,
        help='A notification being sent stays claimed by its '
        'conductor this long; a conductor that died while '
        'sending leaves it to another one after that. Must '
        'exceed 4 x timeout (token request and POST).',
    ),
    cfg.IntOpt(
        'keep_seconds',
        default=86400,
        min=0,
        help='Delivered and given-up notifications are deleted this '
        'many seconds after they finished.',
    ),
    cfg.StrOpt(
        'ca_file',
        help='CA bundle to verify HTTPS callbackUris and token '
        'endpoints with. Default: the system CAs. TLS is always '
        'verified.',
    ),
    cfg.BoolOpt(
        'test_callback_uri',
        default=True,
        help='Test the callbackUri before a subscription is created '
        '(SOL003 5.4.20.3.2): a conductor sends it GET with '
        "the subscription's authentication and the "
        'subscription is refused (422) unless it answers 204 '
        'No Content. Set false only for consumers that do not '
        'implement GET; their errors then show only at '
        'delivery.',
    ),
    cfg.FloatOpt(
        'callback_test_timeout',
        default=10.0,
        min=0.1,
        help='Seconds the test of a callbackUri may take in all '
        '(an OAuth 2.0 token request included) before it '
        'fails. vnfm-api waits 10 s longer for a conductor to '
        'answer, then refuses the subscription with 503.',
    ),
    cfg.StrOpt(
        'client_cert_file',
        help='PEM certificate (with its chain) vnfm presents to the '
        'callbackUris of subscriptions whose authType includes '
        'TLS_CERT (SOL013 8.3.4), for their tests and '
        'deliveries. Needed on the conductors; vnfm-api only '
        'checks that it is set. Unset: a subscription that '
        'offers no authType but TLS_CERT is refused (422).',
    ),
    cfg.StrOpt(
        'client_key_file',
        help='PEM private key (unencrypted) of client_cert_file. '
        'Unset: client_cert_file holds the key too.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [notifications] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
