"""limit_malloc_arenas on this (glibc) machine."""

from vnfm.common import process


def test_arena_cap_is_accepted_by_glibc():
    assert process.limit_malloc_arenas(2) is True
