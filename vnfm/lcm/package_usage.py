"""Package usageState follows the instances that use the package."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from vnfm.common import exceptions
from vnfm.db import api as db
from vnfm.objects.states import UsageState

LOG = logging.getLogger(__name__)


def identity_of(package: Mapping[str, Any]) -> dict:
    """Instance columns that name the package an instance runs."""
    return {
        'vnfd_id': package['vnfd_id'],
        'vnf_pkg_id': package['id'],
        'vnf_provider': package['vnf_provider'],
        'vnf_product_name': package['vnf_product_name'],
        'vnf_software_version': package['vnf_software_version'],
        'vnfd_version': package['vnfd_version'],
    }


def refresh(package_ids: Iterable[str | None]) -> None:
    """Set IN_USE / NOT_IN_USE from the instances using each package.

    Runs after the op's commit: a package in use is never shown NOT_IN_USE
    for longer than this call takes.
    """
    for package_id in {p for p in package_ids if p}:
        used = db.instance_count_by_package(package_id) > 0
        state = UsageState.IN_USE if used else UsageState.NOT_IN_USE
        try:
            db.package_update(package_id, {'usage_state': state.value})
        except exceptions.NotFound:
            LOG.info('Package %s is gone; no usage state to set', package_id)
