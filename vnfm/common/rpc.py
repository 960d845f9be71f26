"""RPC over oslo.messaging: the transport, the context serializer, clients
and servers.

The transport comes from ``[DEFAULT] transport_url``: ``rabbit://...`` in
production, ``fake://`` for the in-process bus of the all-in-one mode and
tests. Servers use the ``threading`` executor (vnfm does not use eventlet).

Defaults vnfm sets on oslo.messaging options (``set_defaults``):

* ``[DEFAULT] control_exchange = vnfm``
* ``[oslo_messaging_rabbit] amqp_durable_queues = True``: the conductor
  topic queue and its messages survive a broker restart. A cast is only a
  doorbell (conductors also sweep the database for unclaimed operations), so
  this shortens waits rather than preventing losses.
"""

from __future__ import annotations

import threading
from typing import Any

import oslo_messaging
from oslo_config import cfg
from oslo_messaging import opts as messaging_opts

from vnfm.common import context

_lock = threading.Lock()
_transport: oslo_messaging.Transport | None = None

CONTROL_EXCHANGE = 'vnfm'


def set_defaults(conf: cfg.ConfigOpts) -> None:
    """Set vnfm's defaults on oslo.messaging options (idempotent)."""
    oslo_messaging.set_transport_defaults(CONTROL_EXCHANGE)
    for group, opts in messaging_opts.list_opts():
        if group == 'oslo_messaging_rabbit':
            conf.register_opts(opts, group=group)
    conf.set_default(
        'amqp_durable_queues', True, group='oslo_messaging_rabbit'
    )


def get_transport(
    conf: cfg.ConfigOpts | None = None,
) -> oslo_messaging.Transport:
    """The process-wide RPC transport, created from the config on first use."""
    global _transport
    if _transport is None:
        with _lock:
            if _transport is None:
                conf = conf or cfg.CONF
                set_defaults(conf)
                _transport = oslo_messaging.get_rpc_transport(conf)
    return _transport


def set_transport(transport: oslo_messaging.Transport | None) -> None:
    """Replace the process-wide transport (all-in-one mode, tests)."""
    global _transport
    with _lock:
        old, _transport = _transport, transport
    if old is not None and old is not transport:
        old.cleanup()


class RequestContextSerializer(oslo_messaging.Serializer):
    """Carries a ``vnfm.common.context.RequestContext`` across RPC."""

    def serialize_entity(self, ctxt: Any, entity: Any) -> Any:
        """Arguments are plain JSON values already."""
        return entity

    def deserialize_entity(self, ctxt: Any, entity: Any) -> Any:
        """Arguments are plain JSON values already."""
        return entity

    def serialize_context(self, ctxt: Any) -> dict:
        """The context as a dict (a dict is passed as it is)."""
        return ctxt if isinstance(ctxt, dict) else ctxt.to_dict()

    def deserialize_context(self, ctxt: dict) -> context.RequestContext:
        """The dict back as a RequestContext."""
        return context.RequestContext.from_dict(ctxt)


def get_client(
    target: oslo_messaging.Target,
    transport: oslo_messaging.Transport | None = None,
    version_cap: str | None = None,
) -> oslo_messaging.RPCClient:
    """An RPC client for ``target``."""
    return oslo_messaging.get_rpc_client(
        transport or get_transport(),
        target,
        version_cap=version_cap,
        serializer=RequestContextSerializer(),
    )


def get_server(
    target: oslo_messaging.Target,
    endpoints: list,
    transport: oslo_messaging.Transport | None = None,
) -> oslo_messaging.MessageHandlingServer:
    """An RPC server for ``target`` dispatching to ``endpoints`` in threads."""
    return oslo_messaging.get_rpc_server(
        transport or get_transport(),
        target,
        endpoints,
        executor='threading',
        serializer=RequestContextSerializer(),
        access_policy=oslo_messaging.DefaultRPCAccessPolicy,
    )
