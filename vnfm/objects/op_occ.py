"""VnfLcmOpOcc (SOL003 v3.3.1 clause 5.5.2.13) from a database row.

Internal columns (owner, lease, work, active_instance_id, project) never
appear. While the op runs, what it waits for (``work['waiting']``, e.g. an
eviction a PodDisruptionBudget refuses) is shown in ``warnings`` (SOL003
v3.5.1+: warning messages generated while the operation executes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vnfm.common import timeutils
from vnfm.objects import sol013
from vnfm.objects import vnf_instance

_ATTRS = (
    ('id', 'id'),
    ('operation_state', 'operationState'),
    ('state_entered_time', 'stateEnteredTime'),
    ('start_time', 'startTime'),
    ('vnf_instance_id', 'vnfInstanceId'),
    ('grant_id', 'grantId'),
    ('operation', 'operation'),
    ('is_automatic_invocation', 'isAutomaticInvocation'),
    ('operation_params', 'operationParams'),
    ('is_cancel_pending', 'isCancelPending'),
    ('cancel_mode', 'cancelMode'),
    ('error', 'error'),
    ('resource_changes', 'resourceChanges'),
    ('changed_info', 'changedInfo'),
    ('changed_ext_connectivity', 'changedExtConnectivity'),
)
_TIMES = ('state_entered_time', 'start_time')
WAITING = 'waiting'
_RUNNING = ('PROCESSING', 'ROLLING_BACK')
_FAILED_TEMP_LINKS = ('retry', 'rollback', 'fail')
_CANCELLABLE = ('STARTING', 'PROCESSING', 'ROLLING_BACK')


def op_href(base_url: str, op_id: str) -> str:
    """Absolute URL of an op occurrence."""
    return f'{base_url}/vnflcm/v2/vnf_lcm_op_occs/{op_id}'


def _links(row: Mapping[str, Any], base_url: str) -> dict:
    href = op_href(base_url, row['id'])
    links = {
        'self': {'href': href},
        'vnfInstance': {
            'href': vnf_instance.instance_href(
                base_url, row['vnf_instance_id']
            )
        },
    }
    if row.get('operation_state') == 'FAILED_TEMP':
        for name in _FAILED_TEMP_LINKS:
            links[name] = {'href': f'{href}/{name}'}
    if row.get('operation_state') in _CANCELLABLE:
        links['cancel'] = {'href': f'{href}/cancel'}
    return links


def to_sol(row: Mapping[str, Any], base_url: str | None = None) -> dict:
    """The SOL003 VnfLcmOpOcc of an op row (None values omitted, secrets
    in operationParams masked, ``_links`` when ``base_url`` is given)."""
    out: dict[str, Any] = {}
    for column, attr in _ATTRS:
        value = row.get(column)
        if value is None:
            continue
        if column in _TIMES and not isinstance(value, str):
            value = timeutils.isotime(value)
        out[attr] = value
    # Booleans SOL requires even when the row has NULL.
    out.setdefault('isAutomaticInvocation', False)
    out.setdefault('isCancelPending', False)
    if 'operationParams' in out:
        out['operationParams'] = vnf_instance.mask_secrets(
            out['operationParams']
        )
    waiting = (row.get('work') or {}).get(WAITING)
    if waiting and row.get('operation_state') in _RUNNING:
        out['warnings'] = [waiting]
    if base_url is not None:
        out['_links'] = _links(row, base_url)
    return out


# SOL013 list handling of VnfLcmOpOcc (SOL003 5.4.12.3.2).
SOL013 = sol013.Resource(
    attributes=frozenset(a for _, a in _ATTRS) | {'_links', 'warnings'},
    mandatory=frozenset(
        {
            'id',
            'operationState',
            'stateEnteredTime',
            'startTime',
            'vnfInstanceId',
            'operation',
            'isAutomaticInvocation',
            'isCancelPending',
        }
    ),
    default_excluded=(
        'operationParams',
        'error',
        'resourceChanges',
        'changedInfo',
        'changedExtConnectivity',
        'warnings',
    ),
)
# Columns enough for the default list view (no default-excluded attribute).
LIST_COLUMNS = (
    'id',
    'operation_state',
    'state_entered_time',
    'start_time',
    'vnf_instance_id',
    'grant_id',
    'operation',
    'is_automatic_invocation',
    'is_cancel_pending',
    'cancel_mode',
    'project_id',
)
