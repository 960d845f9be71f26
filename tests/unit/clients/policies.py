"""Outbound policies for the client tests."""

from vnfm.clients import outbound
from vnfm.conf import outbound as outbound_opts

#: The default of [outbound]: loopback, link-local and private denied.
DEFAULT = outbound.Policy(
    denied=outbound.networks(outbound_opts.DEFAULT_DENIED, 'denied')
)
#: The default with loopback opened, as the tests' configurations do.
LOOPBACK = outbound.Policy(
    denied=DEFAULT.denied,
    allowed=outbound.networks(['127.0.0.0/8', '::1/128'], 'allowed'),
)


def resolving_to(address: str) -> outbound.Policy:
    """The default policy with every name resolving to ``address``."""
    return outbound.Policy(
        denied=DEFAULT.denied, resolver=lambda host, port: [address]
    )
