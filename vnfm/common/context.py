"""The request context: who asks, carried from the API to the conductors."""

from __future__ import annotations

from typing import Any

from oslo_context import context


class RequestContext(context.RequestContext):
    """An oslo.context RequestContext that survives an RPC round trip."""

    def to_dict(self) -> dict[str, Any]:
        """The context as a JSON-able dict, without the user's token.

        Conductors act with their own credentials; a token in an RPC
        message would only be a secret sitting in a queue.
        """
        values = super().to_dict()
        values['auth_token'] = None
        return values

    @classmethod
    def from_dict(
        cls, values: dict[str, Any], **kwargs: Any
    ) -> RequestContext:
        """A context from ``to_dict()`` output."""
        return super().from_dict(values, **kwargs)


def get_admin_context() -> RequestContext:
    """A context with admin rights (noauth requests, periodic tasks)."""
    return RequestContext(
        user_id='admin',
        project_id=None,
        is_admin=True,
        roles=['admin'],
        overwrite=False,
    )
