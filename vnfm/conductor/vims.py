"""The check the API asks for before it registers a VIM: do the VIM's
credentials work?"""

from __future__ import annotations

import logging
from typing import Any

from vnfm.clients import openstack
from vnfm.clients import outbound
from vnfm.objects import vim as vim_obj

LOG = logging.getLogger(__name__)


def check(vim: dict[str, Any]) -> str | None:
    """None if the VIM accepts its credentials, else why not (a detail
    for the API user). Kubernetes VIMs are not contacted."""
    if vim.get('type') != vim_obj.OPENSTACK:
        return None
    info = vim_obj.to_vim_connection_info({'id': None, **vim})
    try:
        with openstack.Connection(info, outbound.for_vims()) as conn:
            conn.authenticate()
    except openstack.OpenStackError as e:
        LOG.info(
            'VIM check of %s failed: %s',
            info['interfaceInfo'].get('endpoint'),
            e.detail,
        )
        return str(e.detail)
    return None
