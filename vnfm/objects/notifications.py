"""SOL003 LCM notifications (v3.3.1 clauses 5.5.2.17 to 5.5.2.19) and the
outbox rows that carry them.

Every change of an op occurrence's state is reported (clause 5.6.2.2):
entering STARTING, PROCESSING (a claimed start or a retry) and ROLLING_BACK
is a ``START`` notification (the operation, or its rollback, starts);
entering COMPLETED, FAILED_TEMP, FAILED and ROLLED_BACK is a ``RESULT``
(final or intermediate). Tacker v2 reports PROCESSING and ROLLING_BACK as
RESULT; vnfm follows the definition of ``notificationStatus``.

Callers pass the rows these functions return to the database call that
commits the change (``notifications=``), so a notification exists exactly
when its change was committed.
"""

from __future__ import annotations

import datetime
import ipaddress
from collections.abc import Mapping
from typing import Any

from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import registry
from vnfm.objects import states
from vnfm.objects import v1_views
from vnfm.objects import vnf_instance

OP_OCC = 'VnfLcmOperationOccurrenceNotification'
CREATION = 'VnfIdentifierCreationNotification'
DELETION = 'VnfIdentifierDeletionNotification'
START, RESULT = 'START', 'RESULT'

_S = states.OpState
START_STATES = frozenset(
    {_S.STARTING.value, _S.PROCESSING.value, _S.ROLLING_BACK.value}
)
# States whose notification carries the op's error (5.5.2.17 "error").
ERROR_STATES = frozenset(
    {_S.FAILED_TEMP.value, _S.FAILED.value, _S.ROLLED_BACK.value}
)
AFFECTED = (
    'affectedVnfcs',
    'affectedVirtualLinks',
    'affectedExtLinkPorts',
    'affectedVirtualStorages',
)
_CHANGE_VNFPKG = states.LcmOperation.CHANGE_VNFPKG.value
# The Version header sent, per subscription interface and api_version:
# the version of the API the subscription was made through.
API_VERSIONS = {
    (registry.VNFLCM, '1'): '1.3.0',
    (registry.VNFLCM, '2'): '2.0.0',
    (registry.VNFPKGM, '1'): '2.0.0',
    (registry.VNFFM, '1'): '1.3.0',
    (registry.VNFPM, '2'): '2.1.0',
}


def version_of(interface: str | None, api_version: str | None) -> str:
    """The Version header of notifications (and tests of the callbackUri)
    for a subscription of ``interface`` made with ``api_version``."""
    return API_VERSIONS.get(
        (interface or registry.VNFLCM, api_version or '2'), '2.0.0'
    )


def _plain(value: Any) -> Any:
    return getattr(value, 'value', value)


def status_of(operation_state: str) -> str:
    """notificationStatus of a notification about entering the state."""
    return START if _plain(operation_state) in START_STATES else RESULT


# -- filters (SOL003 5.5.3.12, 4.4.1.5) --------------------------------------


def _version_matches(version: dict, instance: Mapping[str, Any]) -> bool:
    if version.get('vnfSoftwareVersion') != instance.get(
        'vnf_software_version'
    ):
        return False
    return (
        'vnfdVersions' not in version
        or instance.get('vnfd_version') in version['vnfdVersions']
    )


def _product_matches(product: dict, instance: Mapping[str, Any]) -> bool:
    if product.get('vnfProductName') != instance.get('vnf_product_name'):
        return False
    return 'versions' not in product or any(
        _version_matches(v, instance) for v in product['versions']
    )


def provider_matches(provider: dict, row: Mapping[str, Any]) -> bool:
    """Whether one entry of vnfProductsFromProviders matches an instance or
    package row (both carry vnf_provider, vnf_product_name,
    vnf_software_version and vnfd_version)."""
    if provider.get('vnfProvider') != row.get('vnf_provider'):
        return False
    return 'vnfProducts' not in provider or any(
        _product_matches(p, row) for p in provider['vnfProducts']
    )


def instance_matches(
    instance_filter: dict, instance: Mapping[str, Any]
) -> bool:
    """Whether a VnfInstanceSubscriptionFilter matches an instance row:
    every attribute present must match, one value of a list suffices."""
    checks = (
        ('vnfdIds', lambda ids: instance.get('vnfd_id') in ids),
        (
            'vnfProductsFromProviders',
            lambda providers: any(
                provider_matches(p, instance) for p in providers
            ),
        ),
        ('vnfInstanceIds', lambda ids: instance.get('id') in ids),
        (
            'vnfInstanceNames',
            lambda names: instance.get('vnf_instance_name') in names,
        ),
    )
    return all(
        check(instance_filter[key])
        for key, check in checks
        if key in instance_filter
    )


def selects(
    f: dict, notification_type: str, instance: Mapping[str, Any]
) -> bool:
    """Whether the attributes every notifications filter of SOL003 has
    (vnfInstanceSubscriptionFilter, notificationTypes) select a
    notification of ``notification_type`` about ``instance`` (a row)."""
    if 'vnfInstanceSubscriptionFilter' in f and not instance_matches(
        f['vnfInstanceSubscriptionFilter'], instance
    ):
        return False
    return (
        'notificationTypes' not in f
        or notification_type in f['notificationTypes']
    )


def matches(
    filter_: dict | None,
    notification_type: str,
    instance: Mapping[str, Any],
    operation: str | None = None,
    operation_state: str | None = None,
) -> bool:
    """Whether a LifecycleChangeNotificationsFilter selects a notification
    of ``notification_type`` about ``instance`` (an instance row), and for
    op occurrence notifications ``operation`` entering
    ``operation_state``."""
    f = filter_ or {}
    if not selects(f, notification_type, instance):
        return False
    if notification_type != OP_OCC:
        return True
    if 'operationTypes' in f and operation not in f['operationTypes']:
        return False
    return (
        'operationStates' not in f or operation_state in f['operationStates']
    )


def visible(subscription: dict, instance: Mapping[str, Any]) -> bool:
    """Whether a subscription may hear about an instance: subscriptions
    made without a project see every instance, others their project's."""
    project = subscription.get('project_id')
    return project is None or project == instance.get('project_id')


# -- payloads ----------------------------------------------------------------


def _unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:  # a host name
        return False


def endpoint() -> str:
    """Base URL of vnfm-api for links in notifications: ``[api]
    public_endpoint``, else the address vnfm-api listens on."""
    if CONF.api.public_endpoint:
        return CONF.api.public_endpoint.rstrip('/')
    host = CONF.api.host_ip
    if _unspecified(host):  # listening everywhere: name the host
        host = CONF.host
    if ':' in host:
        host = f'[{host}]'
    return f'http://{host}:{CONF.api.port}'


def _links(
    subscription: dict, instance_id: str, op_id: str | None = None
) -> dict:
    lcm = f'{endpoint()}/vnflcm/v{subscription.get("api_version") or "2"}'
    links = {
        'vnfInstance': {'href': f'{lcm}/vnf_instances/{instance_id}'},
        'subscription': {'href': f'{lcm}/subscriptions/{subscription["id"]}'},
    }
    if op_id is not None:
        links['vnfLcmOpOcc'] = {'href': f'{lcm}/vnf_lcm_op_occs/{op_id}'}
    return links


def identifier_notification(
    notification_type: str,
    subscription: dict,
    instance_id: str,
    notification_id: str,
    now: datetime.datetime,
) -> dict:
    """A VnfIdentifierCreationNotification or ...DeletionNotification."""
    return {
        'id': notification_id,
        'notificationType': notification_type,
        'subscriptionId': subscription['id'],
        'timeStamp': timeutils.isotime(now),
        'vnfInstanceId': instance_id,
        '_links': _links(subscription, instance_id),
    }


def op_notification(
    subscription: dict,
    op: Mapping[str, Any],
    notification_id: str,
    now: datetime.datetime,
) -> dict:
    """A VnfLcmOperationOccurrenceNotification about ``op`` (a row, as
    committed) having entered its operation_state."""
    state = _plain(op['operation_state'])
    status = status_of(state)
    verbosity = subscription.get('verbosity') or 'FULL'
    out: dict[str, Any] = {
        'id': notification_id,
        'notificationType': OP_OCC,
        'subscriptionId': subscription['id'],
        'timeStamp': timeutils.isotime(now),
        'notificationStatus': status,
        'operationState': state,
        'vnfInstanceId': op['vnf_instance_id'],
        'operation': _plain(op['operation']),
        'isAutomaticInvocation': bool(op.get('is_automatic_invocation')),
        'vnfLcmOpOccId': op['id'],
    }
    v1 = subscription.get('api_version') == '1'
    if not v1:  # v1 (SOL003 v2.6.1) has no verbosity
        out['verbosity'] = verbosity
    if status == RESULT and verbosity == 'FULL':
        out.update(_changes(op, v1))
    if state in ERROR_STATES and op.get('error'):
        out['error'] = op['error']
    out['_links'] = _links(subscription, op['vnf_instance_id'], op['id'])
    return out


def _changes(op: Mapping[str, Any], v1: bool) -> dict:
    """The FULL-verbosity attributes of a RESULT (secrets masked; in the
    v1 form for v1 subscriptions)."""
    out = {}
    changes = op.get('resource_changes') or {}
    for attr in AFFECTED:
        if changes.get(attr):
            out[attr] = changes[attr]
    # CHANGE_VNFPKG reports modificationsTriggeredByVnfPkgChange instead.
    if op.get('changed_info') and _plain(op['operation']) != _CHANGE_VNFPKG:
        changed = vnf_instance.mask_secrets(op['changed_info'])
        out['changedInfo'] = v1_views.params_to_v1(changed) if v1 else changed
    if op.get('changed_ext_connectivity'):
        out['changedExtConnectivity'] = op['changed_ext_connectivity']
    return out


# -- outbox rows -------------------------------------------------------------


def outbox_row(
    subscription: dict, notification_type: str, payload: dict
) -> dict:
    """The outbox row carrying ``payload`` to ``subscription``."""
    return {
        'id': payload['id'],
        'subscription_id': subscription['id'],
        'notification_type': notification_type,
        'payload': payload,
    }


def for_op(
    op: Mapping[str, Any],
    instance: Mapping[str, Any] | None = None,
    instance_values: dict | None = None,
) -> list[dict]:
    """Outbox rows reporting that ``op`` (the row as it will be committed)
    entered its operation_state, one per matching subscription.
    ``instance``: its instance row if the caller has it; ``instance_values``:
    what the same transaction changes in it."""
    subscriptions = registry.subscription_list({'interface': registry.VNFLCM})
    if not subscriptions:
        return []
    instance = dict(
        instance or db.instance_get(op['vnf_instance_id']),
        **(instance_values or {}),
    )
    state = _plain(op['operation_state'])
    notification_id, now = db.new_id(), timeutils.utcnow()
    return [
        outbox_row(s, OP_OCC, op_notification(s, op, notification_id, now))
        for s in subscriptions
        if visible(s, instance)
        and matches(
            s.get('filter'), OP_OCC, instance, _plain(op['operation']), state
        )
    ]


def for_instance(
    notification_type: str, instance: Mapping[str, Any]
) -> list[dict]:
    """Outbox rows reporting the creation or deletion (``notification_type``)
    of ``instance`` (its row), one per matching subscription."""
    subscriptions = registry.subscription_list({'interface': registry.VNFLCM})
    notification_id, now = db.new_id(), timeutils.utcnow()
    return [
        outbox_row(
            s,
            notification_type,
            identifier_notification(
                notification_type, s, instance['id'], notification_id, now
            ),
        )
        for s in subscriptions
        if visible(s, instance)
        and matches(s.get('filter'), notification_type, instance)
    ]
