"""vnfm configuration: one module per option group, registered on ``CONF``."""

from oslo_config import cfg

from vnfm.conf import api
from vnfm.conf import conductor
from vnfm.conf import crypto
from vnfm.conf import database
from vnfm.conf import default
from vnfm.conf import fault_management
from vnfm.conf import infra
from vnfm.conf import kubernetes
from vnfm.conf import mgmt_driver
from vnfm.conf import notifications
from vnfm.conf import openstack
from vnfm.conf import outbound
from vnfm.conf import performance_management
from vnfm.conf import ssh
from vnfm.conf import vnf_package

CONF = cfg.CONF

#: Every option module, in the order of the sample configuration.
MODULES = (
    default,
    api,
    conductor,
    crypto,
    database,
    fault_management,
    infra,
    kubernetes,
    mgmt_driver,
    notifications,
    openstack,
    outbound,
    performance_management,
    ssh,
    vnf_package,
)

for _module in MODULES:
    _module.register_opts(CONF)
