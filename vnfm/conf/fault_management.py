"""Options of the [fault_management] group: the Alertmanager receiver
(alarms of SOL002/SOL003 VNF fault management) and auto-heal."""

from oslo_config import cfg

group = cfg.OptGroup('fault_management', title='VNF fault management options')

opts = [
    cfg.StrOpt(
        'receiver_token',
        secret=True,
        help='Bearer token Alertmanager sends to the receiver (its '
        'webhook_config http_config.authorization.credentials). Set '
        'this or receiver_username/receiver_password; with neither, '
        'the receiver refuses every post (401).',
    ),
    cfg.StrOpt(
        'receiver_username',
        help='User name of HTTP basic authentication Alertmanager sends '
        'to the receiver (http_config.basic_auth.username).',
    ),
    cfg.StrOpt(
        'receiver_password',
        secret=True,
        help='Password of HTTP basic authentication Alertmanager sends to '
        'the receiver (http_config.basic_auth.password).',
    ),
    cfg.IntOpt(
        'max_alerts_per_post',
        default=1000,
        min=1,
        help='Alerts one post to the receiver may carry (Alertmanager '
        'sends a group at a time; its max_alerts bounds it too). A post '
        'with more is refused whole (413) and changes nothing. The '
        'body size is bounded by [api] max_request_body_size.',
    ),
    cfg.IntOpt(
        'alarm_page_size',
        default=100,
        min=0,
        help='Alarms per page of GET /vnffm/v1/alarms (0: no paging).',
    ),
    cfg.IntOpt(
        'autoheal_cooldown',
        default=300,
        min=0,
        help='Seconds after an automatic heal of a VNF instance ended in '
        'which no other automatic heal of that instance starts; a heal '
        'that failed is then not retried in a loop.',
    ),
    cfg.FloatOpt(
        'autoheal_interval',
        default=2.0,
        min=0.1,
        help='Seconds between two rounds in which each conductor judges '
        'again the alarms auto-heal left WAITING (an operation was in '
        'progress on the instance, or its cool-down ran).',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [fault_management] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
