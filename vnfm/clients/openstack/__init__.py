"""OpenStack VIMs: Keystone sessions, Heat stacks and Glance images (the
only vnfm code that imports keystoneauth1, heatclient and openstacksdk)."""

from vnfm.clients.openstack.connection import VIM_TYPES
from vnfm.clients.openstack.connection import Connection
from vnfm.clients.openstack.errors import BadVimConnection
from vnfm.clients.openstack.errors import OpenStackError
from vnfm.clients.openstack.errors import StackFailed
from vnfm.clients.openstack.glance import Glance
from vnfm.clients.openstack.glance import Image
from vnfm.clients.openstack.glance import ImageData
from vnfm.clients.openstack.glance import NotFound as ImageNotFound
from vnfm.clients.openstack.heat import Heat
from vnfm.clients.openstack.heat import NotFound
from vnfm.clients.openstack.heat import Stack

__all__ = [
    'VIM_TYPES',
    'BadVimConnection',
    'Connection',
    'Glance',
    'Heat',
    'Image',
    'ImageData',
    'ImageNotFound',
    'NotFound',
    'OpenStackError',
    'Stack',
    'StackFailed',
]
