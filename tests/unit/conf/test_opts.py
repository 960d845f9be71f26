"""The options oslo-config-generator writes into the sample
configuration: every vnfm option, once, in its group."""

from __future__ import annotations

from vnfm.conf import CONF
from vnfm.conf import opts


def listed() -> list[tuple[str, str]]:
    return [
        (getattr(group, 'name', None) or 'DEFAULT', opt.dest)
        for group, group_opts in opts.list_opts()
        for opt in group_opts
    ]


def test_no_option_is_listed_twice():
    assert len(listed()) == len(set(listed()))


def test_every_group_of_vnfm_is_listed_whole():
    by_group: dict[str, set[str]] = {}
    for group, name in listed():
        by_group.setdefault(group, set()).add(name)

    for group, names in by_group.items():
        if group == 'DEFAULT':
            continue
        assert names == set(CONF[group]), group
