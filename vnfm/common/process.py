"""Process-wide settings of the vnfm services."""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys

LOG = logging.getLogger(__name__)

# glibc's mallopt parameter number of M_ARENA_MAX (malloc.h).
_M_ARENA_MAX = -8


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Cap glibc's malloc arenas, as MALLOC_ARENA_MAX does.

    glibc gives each thread that allocates its own arena (up to 8 per core);
    a threaded server then keeps tens of MB of freed memory it never
    returns. Two arenas cost no measurable throughput here. False where the
    C library is not glibc.
    """
    name = ctypes.util.find_library('c')
    if not name:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_ARENA_MAX, arenas))


def without_eventlet() -> bool:
    """Keep eventlet out of this process: vnfm runs threads.

    oslo.messaging imports oslo.service, whose default backend loads
    eventlet (about 20 MB and 300 modules), and futurist and oslo.utils
    load it whenever it is installed. This selects oslo.service's
    threading backend and makes ``import eventlet`` fail, which those
    libraries take as "not installed". Call it before anything imports
    oslo.messaging; False when that is too late (eventlet or the eventlet
    backend is already loaded), and nothing is changed then.
    """
    from oslo_service import backend  # noqa: PLC0415 - only this needs it

    chosen = backend.get_backend_type()
    if sys.modules.get('eventlet') is not None or chosen not in (
        None,
        backend.BackendType.THREADING,
    ):
        return False
    sys.modules['eventlet'] = None  # type: ignore[assignment]
    backend.register_backend_default_hook(
        lambda: backend.BackendType.THREADING
    )
    return True
