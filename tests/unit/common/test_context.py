"""The request context crosses RPC without the user's token."""

from __future__ import annotations

from vnfm.common import context


def test_to_dict_leaves_the_token_out():
    ctx = context.RequestContext(
        user_id='u1',
        project_id='p1',
        auth_token='secret-token',
        overwrite=False,
    )

    values = ctx.to_dict()

    assert values['auth_token'] is None
    assert 'secret-token' not in repr(values)


def test_a_context_survives_the_round_trip_but_for_its_token():
    ctx = context.RequestContext(
        user_id='u1',
        project_id='p1',
        roles=['member', 'reader'],
        auth_token='secret-token',
        request_id='req-0123',
        overwrite=False,
    )

    back = context.RequestContext.from_dict(ctx.to_dict())

    assert isinstance(back, context.RequestContext)
    assert (back.user_id, back.project_id) == ('u1', 'p1')
    assert back.roles == ['member', 'reader']
    assert back.request_id == 'req-0123'
    assert back.is_admin is False
    assert back.auth_token is None


def test_admin_context_is_admin_of_no_project():
    ctx = context.get_admin_context()

    assert ctx.is_admin is True
    assert ctx.roles == ['admin']
    assert ctx.project_id is None
    assert context.RequestContext.from_dict(ctx.to_dict()).is_admin is True
