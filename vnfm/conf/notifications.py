"""Options of the [notifications] group: delivery of SOL003 LCM
notifications from the outbox by the conductors."""

from oslo_config import cfg

group = cfg.OptGroup('notifications',
                     title='LCM notification delivery options')

opts = [
    cfg.FloatOpt('timeout', default=10.0, min=0.1,
                 help='Seconds to connect to a callbackUri (or an OAuth 2.0 '
                      'token endpoint) and, separately, to wait for its '
                      'answer.'),
    cfg.IntOpt('max_attempts', default=10, min=1,
               help='Deliveries of one notification tried before it is '
                    'given up (state FAILED, logged).'),
    cfg.FloatOpt('backoff_base', default=1.0, min=0.01,
                 help='Seconds before the first retry; each further retry '
                      'waits twice as long as the one before.'),
    cfg.FloatOpt('backoff_cap', default=300.0, min=0.01,
                 help='Longest wait between two attempts, in seconds.'),
    cfg.FloatOpt('interval', default=1.0, min=0.05,
                 help='Seconds between looks for notifications due; a look '
                      'that delivered something is followed by another at '
                      'once.'),
    cfg.IntOpt('workers', default=4, min=1,
               help='Notifications one conductor sends at the same time '
                    '(to different subscriptions: one subscription gets '
                    'its notifications one at a time, in order).'),
    cfg.IntOpt('lease_seconds', default=120, min=5,
               help='A notification being sent stays claimed by its '
                    'conductor this long; a conductor that died while '
                    'sending leaves it to another one after that. Must '
                    'exceed 4 x timeout (token request and POST).'),
    cfg.IntOpt('keep_seconds', default=86400, min=0,
               help='Delivered and given-up notifications are deleted this '
                    'many seconds after they finished.'),
    cfg.StrOpt('ca_file',
               help='CA bundle to verify HTTPS callbackUris and token '
                    'endpoints with. Default: the system CAs. TLS is always '
                    'verified.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [notifications] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
