"""vnfm configuration: one module per option group, registered on ``CONF``."""

from oslo_config import cfg

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

CONF = cfg.CONF

for _module in (
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
):
    _module.register_opts(CONF)
