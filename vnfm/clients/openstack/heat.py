"""Heat stacks through python-heatclient, on one ``Connection``.

Stacks are addressed as ``<name>/<id>`` so that no request is redirected.
``wait`` follows the stack's event stream (nested stacks included) with a
short, growing pause and a deadline, as ``openstack stack create --wait``
does; a ``*_FAILED`` stack raises at once with the failed resource and
Heat's reason.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any, TypeVar

from heatclient import client as heat_client
from heatclient import exc as heat_exc
from keystoneauth1 import exceptions as ks_exc

from vnfm.clients.openstack import errors
from vnfm.clients.openstack.connection import Connection
from vnfm.clients.openstack.errors import OpenStackError
from vnfm.clients.openstack.errors import StackFailed
from vnfm.common import exceptions
from vnfm.conf import CONF

T = TypeVar('T')
# Depth of nested stacks whose events and resources are read (the VDUs of
# an AutoScalingGroup are two levels down).
NESTED_DEPTH = 3
_FIRST_PAUSE = 0.05


@dataclasses.dataclass(frozen=True)
class Stack:
    """A stack's identity and state."""

    id: str
    name: str
    status: str
    reason: str
    parameters: dict[str, Any]
    outputs: dict[str, Any]

    @property
    def ref(self) -> str:
        """``name/id``: how Heat's API names the stack without redirect."""
        return f'{self.name}/{self.id}'


def _stack(obj: Any) -> Stack:
    outputs = {
        o['output_key']: o.get('output_value')
        for o in getattr(obj, 'outputs', None) or []
    }
    return Stack(
        id=obj.id,
        name=obj.stack_name,
        status=obj.stack_status,
        reason=getattr(obj, 'stack_status_reason', '') or '',
        parameters=dict(getattr(obj, 'parameters', None) or {}),
        outputs=outputs,
    )


def _call(what: str, fn: Callable[[], T]) -> T:
    """Run one Heat request; its failure as an OpenStackError."""
    try:
        return fn()
    except heat_exc.HTTPNotFound as e:
        raise NotFound(f'Heat could not {what}: {e}') from None
    except heat_exc.HTTPException as e:
        message = getattr(e, 'error', None) or {}
        detail = (message.get('error') or {}).get('message') or str(e)
        raise OpenStackError(f'Heat refused to {what}: {detail}') from None
    except errors.TRANSPORT as e:
        raise errors.transport(what, e) from None


class NotFound(OpenStackError):
    """The stack or resource is not there."""


class Heat:
    """Stacks of one project (the VIM's), in the VIM's region."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.client = heat_client.Client(
            '1',
            session=conn.session,
            region_name=conn.region,
            interface='public',
        )

    def find(self, name: str) -> Stack | None:
        """The live stack called ``name``; None if there is none."""
        try:
            stack = self.get(name)
        except NotFound:
            return None
        return None if stack.status == 'DELETE_COMPLETE' else stack

    def get(self, ref: str) -> Stack:
        """A stack by ``name/id`` (or id)."""
        return _stack(
            _call(f'show stack {ref}', lambda: self.client.stacks.get(ref))
        )

    def create(
        self,
        name: str,
        template: str,
        files: dict[str, str],
        parameters: dict[str, Any],
        timeout_mins: int | None = None,
    ) -> str:
        """Start creating stack ``name``; its id (Heat does not roll back:
        vnfm's rollback deletes it)."""
        fields: dict[str, Any] = {
            'stack_name': name,
            'template': template,
            'files': files,
            'parameters': parameters,
            'disable_rollback': True,
        }
        if timeout_mins:
            fields['timeout_mins'] = timeout_mins
        made = _call(
            f'create stack {name}', lambda: self.client.stacks.create(**fields)
        )
        return str(made['stack']['id'])

    def update(
        self,
        ref: str,
        template: str | None,
        files: dict[str, str] | None,
        parameters: dict[str, Any],
    ) -> None:
        """Start updating a stack: a new template (and files) when given,
        else the current one with ``parameters`` changed (PATCH)."""
        fields: dict[str, Any] = {
            'parameters': parameters,
            'disable_rollback': True,
        }
        if template is None:
            fields['existing'] = True
        else:
            fields.update(template=template, files=files or {})
        _call(
            f'update stack {ref}',
            lambda: self.client.stacks.update(ref, **fields),
        )

    def delete(self, ref: str) -> bool:
        """Start deleting a stack; False if it was gone already."""
        try:
            _call(
                f'delete stack {ref}', lambda: self.client.stacks.delete(ref)
            )
        except NotFound:
            return False
        return True

    def last_event(self, ref: str) -> str | None:
        """Id of the stack's latest event (a marker for ``wait``)."""
        events = _call(
            f'list events of {ref}',
            lambda: self.client.events.list(
                ref, sort_dir='desc', limit=1, nested_depth=NESTED_DEPTH
            ),
        )
        return events[0].id if events else None

    def resources(self, ref: str) -> list[dict[str, Any]]:
        """Every resource of the stack and its nested stacks."""
        found = _call(
            f'list resources of {ref}',
            lambda: self.client.resources.list(
                ref, nested_depth=NESTED_DEPTH, with_detail=True
            ),
        )
        return [r.to_dict() for r in found]

    def resource(self, ref: str, name: str) -> dict[str, Any]:
        """One resource of stack ``ref`` with its attributes."""
        return _call(
            f'show resource {name} of {ref}',
            lambda: self.client.resources.get(ref, name, with_attr=None),
        ).to_dict()

    def mark_unhealthy(self, ref: str, name: str, reason: str) -> None:
        """Mark resource ``name`` of stack ``ref`` unhealthy: the next
        update replaces it."""
        _call(
            f'mark {name} of {ref} unhealthy',
            lambda: self.client.resources.mark_unhealthy(
                ref, name, True, reason
            ),
        )

    def wait(
        self,
        stack: Stack,
        action: str,
        deadline: float,
        marker: str | None = None,
    ) -> str:
        """Wait until ``stack`` finishes ``action`` (CREATE, UPDATE,
        DELETE); its final status. StackFailed on ``<action>_FAILED``,
        DeadlineExceeded at ``deadline`` (a time.monotonic() value)."""
        waiter = _Waiter(self, stack, action, marker)
        pause = _FIRST_PAUSE
        while True:
            done = waiter.poll()
            if done:
                return done
            left = deadline - time.monotonic()
            if left <= 0:
                raise exceptions.DeadlineExceeded(
                    f'Heat stack {stack.name} did not finish {action} in '
                    f'time (last status {waiter.status}).'
                )
            time.sleep(min(pause, left))
            # Events mean progress: the end may be near, look again soon.
            grown = pause * 1.5 if waiter.quiet else _FIRST_PAUSE
            pause = min(grown, CONF.openstack.poll_max_interval)


class _Waiter:
    """Reads the new events of one stack and judges them."""

    # Every this many polls without news, the stack itself is read (an
    # event stream is not a promise).
    CHECK_EVERY = 8

    def __init__(
        self, heat: Heat, stack: Stack, action: str, marker: str | None
    ) -> None:
        self.heat = heat
        self.stack = stack
        self.action = action
        self.marker = marker
        self.status = 'unknown'
        self.failed: tuple[str, str] | None = None
        self.quiet = 0

    def poll(self) -> str | None:
        """The final status if the stack reached one, else None."""
        try:
            events = self.heat.client.events.list(
                self.stack.ref,
                marker=self.marker,
                sort_dir='asc',
                nested_depth=NESTED_DEPTH,
            )
        except heat_exc.HTTPNotFound:
            events = None
            if self.action == 'DELETE':
                return 'DELETE_COMPLETE'
        except (heat_exc.HTTPException, ks_exc.ClientException):
            events = None
        for event in events or []:
            self.marker = event.id
            done = self._judge(event)
            if done:
                return done
        self.quiet = 0 if events else self.quiet + 1
        # A deleted stack's events go with it: read the stack itself.
        every = 1 if self.action == 'DELETE' else self.CHECK_EVERY
        if self.quiet and self.quiet % every == 0:
            return self._check_stack()
        return None

    def _judge(self, event: Any) -> str | None:
        status = str(getattr(event, 'resource_status', '') or '')
        reason = str(getattr(event, 'resource_status_reason', '') or '')
        name = str(getattr(event, 'resource_name', '') or '')
        mine = (
            getattr(event, 'physical_resource_id', None) == self.stack.id
            and name == self.stack.name
        )
        if not mine:
            if status.endswith('_FAILED'):
                self.failed = (name, reason)
            return None
        self.status = status
        return self._final(status, reason)

    def _final(self, status: str, reason: str) -> str | None:
        if status == f'{self.action}_COMPLETE':
            return status
        if status == f'{self.action}_FAILED':
            resource, why = self.failed or (None, reason)
            where = f'resource {resource}' if resource else 'the stack'
            raise StackFailed(
                f'Heat stack {self.stack.name} is {status}: {where} failed: '
                f'{why}',
                resource,
                why,
            )
        return None

    def _check_stack(self) -> str | None:
        try:
            now = self.heat.client.stacks.get(self.stack.ref)
        except heat_exc.HTTPNotFound:
            return 'DELETE_COMPLETE' if self.action == 'DELETE' else None
        except (heat_exc.HTTPException, ks_exc.ClientException):
            return None
        self.status = now.stack_status
        return self._final(now.stack_status, now.stack_status_reason or '')
