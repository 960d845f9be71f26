"""What each infra driver serves and supports, as data the API can read.

The API may not import drivers (they pull in VIM client libraries), yet it
must not advertise or accept an operation no enabled driver runs. So each
infra driver's capabilities are declared here, as data, and published under
the driver's name in the ``vnfm.infra_capabilities`` entry-point namespace
(next to its ``vnfm.infra_drivers`` entry point). The driver class carries
the same declaration and the conductor refuses to start when the two differ,
so the API's view and the conductors' agree. When a driver learns an
operation, adding it to its declaration makes the link and the endpoint
appear.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from importlib import metadata

from vnfm.objects import states

NAMESPACE = 'vnfm.infra_capabilities'
_OP = states.LcmOperation

# The operations of InfraDriver's abstract methods: every driver runs them
# (SCALE_TO_LEVEL is made of scales).
BASE_OPERATIONS = frozenset(
    {
        _OP.INSTANTIATE,
        _OP.TERMINATE,
        _OP.SCALE,
        _OP.SCALE_TO_LEVEL,
        _OP.HEAL,
        _OP.CHANGE_VNFPKG,
    }
)

# Operations vnfm runs on every vimType without an infra driver: Modify VNF
# Information changes what vnfm records (and runs the VNFD's hooks).
WITHOUT_INFRA = frozenset({_OP.MODIFY_INFO})


@dataclasses.dataclass(frozen=True)
class Capabilities:
    """The vimTypes (SOL names) a driver serves and the LCM operations it
    runs on them."""

    vim_types: tuple[str, ...] = ()
    operations: frozenset[states.LcmOperation] = BASE_OPERATIONS


NOOP = Capabilities(
    vim_types=('VNFM.NOOP.V_1',),
    operations=BASE_OPERATIONS | {_OP.OPERATE, _OP.CHANGE_FLAVOUR},
)
KUBERNETES = Capabilities(
    vim_types=('ETSINFV.KUBERNETES.V_1',),
    operations=BASE_OPERATIONS | {_OP.OPERATE, _OP.CHANGE_FLAVOUR},
)

# Every base operation, CHANGE_FLAVOUR and CHANGE_EXT_CONN through Heat.
# Not OPERATE: vnfm would start and stop servers through Nova, and the
# local cloud it is tested on has none, so it is not offered untested.
OPENSTACK = Capabilities(
    vim_types=('ETSINFV.OPENSTACK_KEYSTONE.V_3',),
    operations=BASE_OPERATIONS | {_OP.CHANGE_FLAVOUR, _OP.CHANGE_EXT_CONN},
)


class UnknownDriver(LookupError):
    """An enabled infra driver publishes no capabilities."""


def declared(name: str) -> Capabilities:
    """The capabilities published for infra driver ``name``."""
    found = metadata.entry_points(group=NAMESPACE, name=name)
    for entry_point in found:
        loaded = entry_point.load()
        if isinstance(loaded, Capabilities):
            return loaded
    raise UnknownDriver(
        f'Infra driver {name!r} publishes no capabilities in {NAMESPACE}.'
    )


@dataclasses.dataclass(frozen=True)
class Enabled:
    """The capabilities of the enabled infra drivers, by vimType."""

    by_vim_type: dict[str, Capabilities]
    #: The name of the enabled driver serving each vimType.
    names: dict[str, str] = dataclasses.field(default_factory=dict)

    def vim_types(self) -> list[str]:
        """Every vimType an enabled driver serves (SOL names)."""
        return sorted(self.by_vim_type)

    def serves(self, vim_type: str | None) -> bool:
        """Whether an enabled driver serves ``vim_type`` (a SOL name)."""
        return vim_type in self.by_vim_type

    def driver_name(self, vim_type: str) -> str:
        """The enabled driver serving ``vim_type`` ('' when none does)."""
        return self.names.get(vim_type, '')

    def operations(self, vim_types: Iterable[str] = ()) -> frozenset[str]:
        """The operations the drivers of ``vim_types`` run; those of every
        enabled driver when none of ``vim_types`` is served."""
        served = [
            self.by_vim_type[t] for t in vim_types if t in self.by_vim_type
        ]
        caps = served or list(self.by_vim_type.values())
        return frozenset(op.value for c in caps for op in c.operations)


@functools.lru_cache(maxsize=8)
def enabled(names: tuple[str, ...]) -> Enabled:
    """The capabilities of the infra drivers ``names`` (the ``[infra]
    enabled_infra_drivers``); UnknownDriver if one publishes none."""
    by_vim_type: dict[str, Capabilities] = {}
    by_name: dict[str, str] = {}
    for name in names:
        caps = declared(name)
        for vim_type in caps.vim_types:
            by_vim_type.setdefault(vim_type, caps)
            by_name.setdefault(vim_type, name)
    return Enabled(by_vim_type, by_name)


# VimConnectionInfo ``extra`` flag of a VIM the VNF instance provides (a
# cluster it built and registered), not one it runs on: infra drivers
# never serve such an entry.
PROVIDED_VIM = 'vnfm_provided_vim'
