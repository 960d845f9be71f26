"""Process-wide settings of the vnfm services."""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

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
