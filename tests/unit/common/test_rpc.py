"""The RPC transport helpers and the context serializer."""

import oslo_messaging

from vnfm.common import context
from vnfm.common import rpc
from vnfm.conf import CONF


def test_context_survives_serialization_without_token():
    ctx = context.RequestContext(
        user_id='u', project_id='p', auth_token='tok', roles=['member']
    )
    serializer = rpc.RequestContextSerializer()

    wire = serializer.serialize_context(ctx)
    back = serializer.deserialize_context(wire)

    assert isinstance(back, context.RequestContext)
    assert (back.user_id, back.project_id, back.roles) == (
        'u',
        'p',
        ['member'],
    )
    assert wire['auth_token'] is None


def test_defaults_make_rabbit_queues_durable():
    rpc.set_defaults(CONF)
    transport = oslo_messaging.get_rpc_transport(CONF, url='fake://')
    transport.cleanup()
    assert CONF.oslo_messaging_rabbit.amqp_durable_queues is True
    assert CONF.control_exchange == 'vnfm'


def test_set_transport_replaces_and_cleans_up():
    fake = oslo_messaging.get_rpc_transport(CONF, url='fake://')
    rpc.set_transport(fake)
    try:
        assert rpc.get_transport() is fake
    finally:
        rpc.set_transport(None)
