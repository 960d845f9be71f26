"""The enabled infra drivers, looked up by vimType (never by if-chains)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from vnfm.common import exceptions
from vnfm.drivers import loader
from vnfm.drivers.infra.base import InfraDriver
from vnfm.objects import infra

NAMESPACE = 'vnfm.infra_drivers'


class NoInfraDriver(exceptions.BadRequest):
    """No enabled infra driver serves the instance's vimConnectionInfo."""


def _load(name: str) -> InfraDriver:
    """Driver ``name``, whose class must declare what it publishes in
    vnfm.infra_capabilities (what the API advertises and accepts)."""
    # mypy takes type[T] for "concrete class only" (python/mypy#4717).
    driver = loader.load_driver(NAMESPACE, name, InfraDriver)  # type: ignore[type-abstract]
    try:
        published = infra.declared(name)
    except infra.UnknownDriver as e:
        raise loader.DriverLoadError(
            f'{e} Publish its Capabilities there under the same name, so '
            'the API knows what it serves.'
        ) from None
    if published != driver.capabilities:
        raise loader.DriverLoadError(
            f'Infra driver {name!r} declares {driver.capabilities} but '
            f'publishes {published} in {infra.NAMESPACE}; they must be '
            'equal.'
        )
    return driver


class InfraDrivers:
    """The enabled infra drivers by the vimType they serve."""

    def __init__(self, drivers: Mapping[str, InfraDriver]) -> None:
        self._by_vim_type: dict[str, tuple[str, InfraDriver]] = {}
        for name, drv in drivers.items():
            for vim_type in drv.vim_types:
                if vim_type in self._by_vim_type:
                    other = self._by_vim_type[vim_type][0]
                    raise loader.DriverLoadError(
                        f'Infra drivers {other!r} and {name!r} both serve '
                        f'vimType {vim_type}; enable only one of them.'
                    )
                self._by_vim_type[vim_type] = (name, drv)

    @classmethod
    def load(cls, names: Iterable[str]) -> InfraDrivers:
        """Load the named drivers; DriverLoadError if one does not load."""
        return cls({name: _load(name) for name in names})

    def vim_types(self) -> list[str]:
        """Every vimType an enabled driver serves."""
        return sorted(self._by_vim_type)

    def select(
        self, vim_connection_info: Mapping[str, Any] | None
    ) -> tuple[InfraDriver, dict[str, dict]]:
        """The driver for an instance and the vimConnectionInfo entries
        (id -> info) it serves."""
        entries = vim_connection_info or {}
        matched = {
            vid: info
            for vid, info in entries.items()
            if isinstance(info, dict)
            and info.get('vimType') in self._by_vim_type
            and not (info.get('extra') or {}).get(infra.PROVIDED_VIM)
        }
        served = {
            self._by_vim_type[info['vimType']][0] for info in matched.values()
        }
        if not matched:
            got = sorted(
                {
                    str(i.get('vimType'))
                    for i in entries.values()
                    if isinstance(i, dict)
                }
            )
            raise NoInfraDriver(
                'The VNF instance has no vimConnectionInfo with a vimType an '
                f'enabled infra driver serves (served: '
                f'{", ".join(self.vim_types()) or "none"}; given: '
                f'{", ".join(got) or "none"}). Give vimConnectionInfo in '
                'the instantiate request or in the instance.'
            )
        if len(served) > 1:
            raise NoInfraDriver(
                'The VNF instance has vimConnectionInfo for several infra '
                f'drivers ({", ".join(sorted(served))}); vnfm runs one VNF '
                'instance on one kind of VIM.'
            )
        vim_type = next(iter(matched.values()))['vimType']
        return self._by_vim_type[vim_type][1], matched
