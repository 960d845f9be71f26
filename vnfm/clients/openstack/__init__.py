"""OpenStack VIMs: Keystone sessions and Heat stacks (the only vnfm code
that imports keystoneauth1 and heatclient)."""

from vnfm.clients.openstack.connection import VIM_TYPES
from vnfm.clients.openstack.connection import Connection
from vnfm.clients.openstack.errors import BadVimConnection
from vnfm.clients.openstack.errors import OpenStackError
from vnfm.clients.openstack.errors import StackFailed
from vnfm.clients.openstack.heat import Heat
from vnfm.clients.openstack.heat import NotFound
from vnfm.clients.openstack.heat import Stack

__all__ = [
    'VIM_TYPES',
    'BadVimConnection',
    'Connection',
    'Heat',
    'NotFound',
    'OpenStackError',
    'Stack',
    'StackFailed',
]
