"""The rows ``vnfm.db.api`` returns, typed: one key per column, so a
misspelt key is a type error. JSON columns hold the SOL structures as
plain dicts and lists."""

from __future__ import annotations

import datetime
from typing import Any, TypedDict


class PackageRow(TypedDict):
    """A ``vnf_packages`` row (SOL005 VnfPkgInfo)."""

    id: str
    created_at: datetime.datetime
    updated_at: datetime.datetime | None
    onboarding_state: str
    operational_state: str
    usage_state: str
    vnfd_id: str | None
    vnf_provider: str | None
    vnf_product_name: str | None
    vnf_software_version: str | None
    vnfd_version: str | None
    checksum: dict[str, Any] | None
    software_images: list[Any] | None
    additional_artifacts: list[Any] | None
    user_defined_data: dict[str, Any] | None
    onboarding_failure_details: dict[str, Any] | None
    package_size: int | None
    vnfd: dict[str, Any] | None
    upload_source: dict[str, Any] | None
    project_id: str | None


class InstanceRow(TypedDict):
    """A ``vnf_instances`` row (SOL003 VnfInstance)."""

    id: str
    created_at: datetime.datetime
    updated_at: datetime.datetime | None
    vnf_instance_name: str | None
    vnf_instance_description: str | None
    vnfd_id: str
    vnf_provider: str
    vnf_product_name: str
    vnf_software_version: str
    vnfd_version: str
    vnf_pkg_id: str | None
    instantiation_state: str
    vim_connection_info: dict[str, Any] | None
    instantiated_vnf_info: dict[str, Any] | None
    vnf_configurable_properties: dict[str, Any] | None
    metadata: dict[str, Any] | None
    extensions: dict[str, Any] | None
    project_id: str | None
    api_version: str


class OpRow(TypedDict):
    """A ``vnf_lcm_op_occs`` row (SOL003 VnfLcmOpOcc) and its lease."""

    id: str
    created_at: datetime.datetime
    updated_at: datetime.datetime | None
    vnf_instance_id: str
    operation: str
    operation_state: str
    state_entered_time: datetime.datetime
    start_time: datetime.datetime
    is_automatic_invocation: bool
    is_cancel_pending: bool
    cancel_mode: str | None
    operation_params: dict[str, Any] | None
    error: dict[str, Any] | None
    resource_changes: dict[str, Any] | None
    changed_info: dict[str, Any] | None
    changed_ext_connectivity: list[Any] | None
    grant_id: str | None
    work: dict[str, Any] | None
    api_version: str
    project_id: str | None
    active_instance_id: str | None
    owner: str | None
    lease_expires_at: datetime.datetime | None
