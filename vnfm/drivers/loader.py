"""Loading drivers by entry point, failing loudly on a bad name."""

from __future__ import annotations

from importlib import metadata
from typing import Any, TypeVar

from stevedore import driver as stevedore_driver
from stevedore import exception as stevedore_exc

from vnfm.common import exceptions

T = TypeVar('T')


class DriverLoadError(exceptions.VnfmError):
    """A configured driver does not exist or does not load."""

    title = 'Driver Load Error'


def installed(namespace: str) -> list[str]:
    """Names of the entry points in ``namespace``."""
    return sorted({ep.name for ep in metadata.entry_points(group=namespace)})


def load_driver(namespace: str, name: str, base: type[T]) -> T:
    """Instantiate the driver ``name`` of ``namespace``; it must be a
    ``base``. DriverLoadError says what is wrong otherwise."""

    def _failed(_manager: Any, entry_point: Any, err: BaseException) -> None:
        raise DriverLoadError(
            f'Driver {name!r} of {namespace} ({entry_point.value}) failed '
            f'to load: {err}'
        ) from err

    try:
        manager = stevedore_driver.DriverManager(
            namespace,
            name,
            invoke_on_load=True,
            on_load_failure_callback=_failed,
        )
    except stevedore_exc.NoMatches:
        raise DriverLoadError(
            f'No driver named {name!r} in {namespace}; installed: '
            f'{", ".join(installed(namespace)) or "none"}.'
        ) from None
    loaded = manager.driver
    if not isinstance(loaded, base):
        raise DriverLoadError(
            f'Driver {name!r} of {namespace} is a {type(loaded).__name__}, '
            f'not a {base.__name__}.'
        )
    return loaded
