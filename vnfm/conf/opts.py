"""Every option of vnfm, for oslo-config-generator."""

import itertools

from vnfm import conf


def list_opts() -> list:
    """Return (group, options) pairs of every vnfm option."""
    return list(
        itertools.chain.from_iterable(m.list_opts() for m in conf.MODULES)
    )


def set_defaults() -> None:
    """Defaults vnfm sets on options of the libraries it uses."""
