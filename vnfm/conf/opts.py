"""Every option of vnfm, for oslo-config-generator."""

import itertools

from vnfm.conf import api
from vnfm.conf import conductor
from vnfm.conf import crypto
from vnfm.conf import database
from vnfm.conf import default
from vnfm.conf import infra
from vnfm.conf import kubernetes
from vnfm.conf import mgmt_driver
from vnfm.conf import notifications
from vnfm.conf import outbound
from vnfm.conf import vnf_package

_MODULES = (
    default,
    api,
    conductor,
    crypto,
    database,
    infra,
    kubernetes,
    mgmt_driver,
    notifications,
    outbound,
    vnf_package,
)


def list_opts() -> list:
    """Return (group, options) pairs of every vnfm option."""
    return list(itertools.chain.from_iterable(m.list_opts() for m in _MODULES))


def set_defaults() -> None:
    """Defaults vnfm sets on options of the libraries it uses."""
