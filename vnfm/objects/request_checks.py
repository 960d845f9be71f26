"""The request checks the drivers publish, run by the API before an LCM
task is recorded.

The API names no driver and may not import one (drivers pull in VIM client
libraries), yet a request a driver would refuse should be a 4xx naming the
bad parameter, not an op that fails later. So each driver may publish a
``RequestValidator`` under its own name in an entry-point namespace: infra
drivers in ``vnfm.infra_request_validators`` (next to their
``vnfm.infra_drivers`` entry point), MgmtDrivers in
``vnfm.mgmt_request_validators`` (next to ``vnfm.mgmt_drivers``). The API
calls those of the infra driver serving the instance's vimType and of the
MgmtDrivers that the flavour's hooks name. A validator must live in a
module the API can import cheaply (no VIM client library), such as
``vnfm.objects``; it raises a ``VnfmError`` (a ``BadRequest`` naming the
parameter), which the API answers as ProblemDetails.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from typing import Any

from vnfm.objects import infra
from vnfm.objects import states

INFRA_NAMESPACE = 'vnfm.infra_request_validators'
MGMT_NAMESPACE = 'vnfm.mgmt_request_validators'
#: The MgmtDriver that runs hooks implemented by a package's script.
SCRIPT_DRIVER = 'script'


@dataclasses.dataclass(frozen=True)
class LcmRequest:
    """What a validator sees: an LCM task request not yet recorded."""

    operation: states.LcmOperation
    #: The request body as the client sent it (v2 or v1 shape).
    body: Mapping[str, Any]
    #: The VNFD flavour the operation runs with (the requested one for
    #: instantiate and change_flavour, else the instance's), as
    #: ``vnfm.csar`` models it; the whole VNFD when it has no flavours.
    flavour: Mapping[str, Any]
    vnf_instance_id: str


#: Returns when the request is fine; raises a VnfmError when it is not.
RequestValidator = Callable[[LcmRequest], None]


class BadValidator(TypeError):
    """A published validator is not callable."""


@functools.lru_cache(maxsize=64)
def published(namespace: str, name: str) -> tuple[RequestValidator, ...]:
    """The validators published for driver ``name`` in ``namespace``
    (none is fine: the driver checks nothing at the API)."""
    found = []
    for entry_point in metadata.entry_points(group=namespace, name=name):
        loaded = entry_point.load()
        if not callable(loaded):
            raise BadValidator(
                f'{namespace} entry point {name!r} ({entry_point.value}) is '
                'not callable; publish a function taking an LcmRequest.'
            )
        found.append(loaded)
    return tuple(found)


def mgmt_drivers(flavour: Mapping[str, Any]) -> list[str]:
    """The MgmtDrivers that run the hooks of a flavour (or VNFD) model."""
    hooks = flavour.get('interfaces') or {}
    return sorted(
        {
            hook.get('builtin') or SCRIPT_DRIVER
            for hook in hooks.values()
            if isinstance(hook, dict)
        }
    )


def check(
    request: LcmRequest,
    vim_types: Iterable[str],
    enabled: infra.Enabled,
) -> None:
    """Run the validators of the enabled infra drivers serving
    ``vim_types`` and of the MgmtDrivers of ``request.flavour``; the first
    error they raise propagates."""
    drivers = [
        (INFRA_NAMESPACE, name)
        for name in sorted({enabled.driver_name(t) for t in vim_types} - {''})
    ] + [(MGMT_NAMESPACE, name) for name in mgmt_drivers(request.flavour)]
    for namespace, name in drivers:
        for validator in published(namespace, name):
            validator(request)
