"""Modify VNF Information (SOL003 5.4.3.3.4, PATCH of a VNF instance).

``modify_information_start`` runs from the current package. When the
request names a new vnfdId (v1: vnfPkgId), ``modify_information_end`` runs
from the new package with the instance as it will be: that is where a
container-update MgmtDriver updates the workloads (seed 001). What hooks
report in ``changedInfo`` is merged into the op occurrence's changedInfo.

A dry run (``metadata.vnfm_dry_run: true``) runs only the end hook, which
reports what it would do; nothing of the instance changes (vnfdId and
metadata included). Such request flags (also ``vnfm_disruption_allowed``)
are not merged into the instance's metadata.

A rollback restores the previous values and merges over them what the
undoing hooks return (a container update's rollback names the Pods it
restarted), as forward hooks' changes are merged.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from vnfm.drivers.infra import base as infra_base
from vnfm.drivers.mgmt import base as mgmt_base
from vnfm.lcm import inputs
from vnfm.lcm import merge
from vnfm.lcm import package_usage
from vnfm.lcm.operation import Operation
from vnfm.lcm.operation import Outcome
from vnfm.lcm.operation import with_hook_changes
from vnfm.lcm.run import OpRun
from vnfm.objects import vnf_instance as instance_view
from vnfm.objects.states import LcmOperation

# Columns a modification may change (hooks included); kept for rollback.
TOUCHED = (
    'vnf_instance_name',
    'vnf_instance_description',
    'vnfd_id',
    'vnf_pkg_id',
    'vnf_provider',
    'vnf_product_name',
    'vnf_software_version',
    'vnfd_version',
    'vnf_configurable_properties',
    'metadata',
    'extensions',
    'vim_connection_info',
    'instantiated_vnf_info',
)
_REPLACED = (
    ('vnfInstanceName', 'vnf_instance_name'),
    ('vnfInstanceDescription', 'vnf_instance_description'),
)
_MERGED = (
    ('metadata', 'metadata'),
    ('extensions', 'extensions'),
    ('vnfConfigurableProperties', 'vnf_configurable_properties'),
)
_IDENTITY = (
    ('vnfd_id', 'vnfdId'),
    ('vnf_provider', 'vnfProvider'),
    ('vnf_product_name', 'vnfProductName'),
    ('vnf_software_version', 'vnfSoftwareVersion'),
    ('vnfd_version', 'vnfdVersion'),
)


class ModifyInfo(Operation):
    """Apply a VnfInfoModificationRequest (merge-patch where SOL says so)."""

    operation = LcmOperation.MODIFY_INFO.value
    hook_op = 'modify_information'
    needs_grant = False

    def forward(self, run: OpRun) -> Outcome:
        """Start hook, the new values, end hook (from the new package)."""
        if mgmt_base.is_dry_run(run.request):
            run.run_hook(
                f'{self.hook_op}_end', target=run.target_vnfd is not None
            )
            return Outcome(changed_info=reported(run, {}))
        if 'previous' not in run.work:
            run.work['previous'] = {
                c: copy.deepcopy(run.instance.get(c)) for c in TOUCHED
            }
            run.save_work()
        run.run_hook(f'{self.hook_op}_start')
        values, changed = new_values(run)
        run.run_hook(
            f'{self.hook_op}_end',
            target=run.target_vnfd is not None,
            instance=dict(run.instance, **values),
        )
        outcome = with_hook_changes(
            run, Outcome(instance_values=values, changed_info=changed)
        )
        return dataclasses.replace(
            outcome, changed_info=reported(run, outcome.changed_info or {})
        )

    def outcome(
        self, run: OpRun, result: infra_base.InfraResult | None
    ) -> Outcome:
        """Not used: ``forward`` computes the outcome itself."""
        return Outcome()

    def after_commit(self, run: OpRun) -> None:
        """Usage states of the old and new packages."""
        if run.target_package is not None:
            package_usage.refresh(
                [run.package['id'], run.target_package['id']]
            )

    def rollback(self, run: OpRun) -> Outcome:
        """Undo the hooks that can be undone; restore the previous values,
        with what the undoing hooks returned (e.g. the Pods a container
        update restarted) merged over them."""
        undone = run.rollback_hooks(
            [f'{self.hook_op}_start', f'{self.hook_op}_end']
        )
        outcome = with_hook_changes(
            run, Outcome(instance_values=run.work.get('previous')), undone
        )
        return dataclasses.replace(
            outcome, changed_info=reported(run, {}, undone)
        )


def reported(
    run: OpRun, changed: dict[str, Any], hook_changes: list[dict] | None = None
) -> dict[str, Any] | None:
    """changedInfo with what the hooks reported merged in (the forward
    hooks', or ``hook_changes``)."""
    if hook_changes is None:
        hook_changes = run.hook_changes()
    for changes in hook_changes:
        if changes.get('changedInfo'):
            changed = merge.merge_patch(changed, changes['changedInfo'])
    return changed or None


def new_values(run: OpRun) -> tuple[dict[str, Any], dict[str, Any]]:
    """(instance column values, SOL VnfInfoModifications) of the request."""
    request, instance = run.request, run.instance
    values: dict[str, Any] = {}
    changed: dict[str, Any] = {}
    for key, column in _REPLACED:
        if key in request:
            values[column] = changed[key] = request[key]
    for key, column in _MERGED:
        patch = request.get(key)
        if key == 'metadata' and isinstance(patch, dict):
            patch = _without_flags(patch)
        if patch is not None:
            values[column] = merge.merge_patch(instance.get(column), patch)
            changed[key] = patch
    if request.get('vimConnectionInfo') is not None:
        values['vim_connection_info'] = inputs.vim_connection_info(
            instance, request
        )
        changed['vimConnectionInfo'] = instance_view.mask_vim_connection_info(
            inputs.as_map(request['vimConnectionInfo'])
        )
    if request.get('vnfcInfoModifications'):
        values['instantiated_vnf_info'] = _vnfc_modified(
            instance.get('instantiated_vnf_info'),
            request['vnfcInfoModifications'],
        )
        changed['vnfcInfoModifications'] = request['vnfcInfoModifications']
    if run.target_package is not None:
        identity = package_usage.identity_of(run.target_package)
        values.update(identity)
        changed.update({attr: identity[column] for column, attr in _IDENTITY})
    return values, changed


def _without_flags(metadata: dict) -> dict | None:
    """The metadata without request flags (None if it held only flags)."""
    out = {
        k: v for k, v in metadata.items() if k not in mgmt_base.REQUEST_FLAGS
    }
    return out if out or not metadata else None


def _vnfc_modified(info: dict | None, modifications: list[dict]) -> dict:
    """instantiatedVnfInfo with vnfcConfigurableProperties merge-patched."""
    info = copy.deepcopy(info or {})
    by_id = {m.get('id'): m for m in modifications}
    for vnfc in info.get('vnfcInfo', []):
        mod = by_id.get(vnfc.get('id'))
        if mod is not None:
            vnfc['vnfcConfigurableProperties'] = merge.merge_patch(
                vnfc.get('vnfcConfigurableProperties'),
                mod.get('vnfcConfigurableProperties') or {},
            )
    return info
