"""Options of the [kubernetes] group: Kubernetes client and driver."""

from oslo_config import cfg

group = cfg.OptGroup('kubernetes', title='Kubernetes client options')

opts = [
    cfg.FloatOpt(
        'request_timeout',
        default=30.0,
        min=0.1,
        help='Seconds one Kubernetes API call may take in all (connecting, '
        'the answer and its body; a watch: until its stream opens); a '
        'slower call is cut off and fails the step.',
    ),
    cfg.FloatOpt(
        'connect_timeout',
        default=10.0,
        min=0.1,
        help='Seconds to wait for a TCP/TLS connection to the API server.',
    ),
    cfg.IntOpt(
        'ready_timeout',
        default=300,
        min=1,
        help='Seconds workloads may take to become ready (rollout '
        'complete, Pods Ready) before the step fails; the '
        "operation's own deadline applies when it is sooner.",
    ),
    cfg.IntOpt(
        'delete_timeout',
        default=120,
        min=1,
        help='Seconds deleted objects may take to disappear before '
        'the step fails.',
    ),
    cfg.IntOpt(
        'watch_timeout',
        default=60,
        min=1,
        help='Server-side timeoutSeconds of one watch request; a '
        'watch that ends is resumed from its resourceVersion.',
    ),
    cfg.IntOpt(
        'graceful_termination_timeout',
        default=30,
        min=0,
        help='gracePeriodSeconds for Pods of a GRACEFUL terminate or '
        'a heal when the request gives no '
        'gracefulTerminationTimeout.',
    ),
    cfg.IntOpt(
        'eviction_timeout',
        default=300,
        min=1,
        help='Seconds a Pod eviction that a PodDisruptionBudget refuses '
        'is retried before the step fails, naming the Pod and the '
        "budget; the operation's own deadline applies when it is sooner.",
    ),
    cfg.FloatOpt(
        'sync_interval',
        default=60.0,
        min=0,
        help='Seconds between looks, by each conductor, for Pods that '
        'Kubernetes replaced by itself (a Pod that died or was evicted), '
        'so vnfcResourceInfo names the live Pods; instances with an '
        'operation in progress are left alone. 0 disables it.',
    ),
    cfg.StrOpt(
        'field_manager',
        default='vnfm',
        help='fieldManager recorded on the objects vnfm writes.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the [kubernetes] options."""
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> list:
    """Options for the sample generator."""
    return [(group, opts)]
