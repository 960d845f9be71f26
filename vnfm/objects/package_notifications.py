"""SOL005 VNF package management notifications (v2.6.1 clauses 9.5.2.8,
9.5.2.9, 9.5.3.2) and the outbox rows that carry them.

A package that becomes ONBOARDED is reported with a
VnfPackageOnboardingNotification; a change of an onboarded package's
operationalState and its deletion with a VnfPackageChangeNotification
(changeType OP_STATE_CHANGE, PKG_DELETE). Changes of onboardingState before
ONBOARDED and of usageState are not reported (9.5.2.8, 9.5.2.9).

As for LCM notifications, callers pass the rows these functions return to
the database call that commits the change (``notifications=``): they go
through the same outbox, in order, retried, never lost.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from vnfm.common import timeutils
from vnfm.db import api as db
from vnfm.db import registry
from vnfm.objects import notifications

ONBOARDING = 'VnfPackageOnboardingNotification'
CHANGE = 'VnfPackageChangeNotification'
NOTIFICATION_TYPES = (ONBOARDING, CHANGE)
OP_STATE_CHANGE, PKG_DELETE = 'OP_STATE_CHANGE', 'PKG_DELETE'
PREFIX = '/vnfpkgm/v1'


# -- filters (SOL005 9.5.3.2 PkgmNotificationsFilter) ------------------------


def matches(
    filter_: dict | None,
    notification_type: str,
    package: Mapping[str, Any],
) -> bool:
    """Whether a PkgmNotificationsFilter selects a notification of
    ``notification_type`` about ``package`` (its row as the change leaves
    it): every attribute present must match, one value of a list
    suffices."""
    f = filter_ or {}
    checks = (
        ('notificationTypes', lambda types: notification_type in types),
        (
            'vnfProductsFromProviders',
            lambda providers: any(
                notifications.provider_matches(p, package) for p in providers
            ),
        ),
        ('vnfdId', lambda ids: package.get('vnfd_id') in ids),
        ('vnfPkgId', lambda ids: package.get('id') in ids),
        (
            'operationalState',
            lambda wanted: package.get('operational_state') in wanted,
        ),
        ('usageState', lambda wanted: package.get('usage_state') in wanted),
    )
    return all(check(f[key]) for key, check in checks if key in f)


def visible(subscription: dict, package: Mapping[str, Any]) -> bool:
    """Whether a subscription may hear about a package: subscriptions
    made without a project hear about every package, others about their
    project's and about packages of no project (made before packages had
    one, visible to every project)."""
    project = subscription.get('project_id')
    owner = package.get('project_id')
    return project is None or owner is None or project == owner


# -- payloads ----------------------------------------------------------------


def _links(subscription: dict, package_id: str) -> dict:
    base = f'{notifications.endpoint()}{PREFIX}'
    return {
        'vnfPackage': {'href': f'{base}/vnf_packages/{package_id}'},
        'subscription': {'href': f'{base}/subscriptions/{subscription["id"]}'},
    }


def payload(
    notification_type: str,
    subscription: dict,
    package: Mapping[str, Any],
    notification_id: str,
    now: datetime.datetime,
    change_type: str | None = None,
) -> dict:
    """A VnfPackageOnboardingNotification, or a VnfPackageChangeNotification
    of ``change_type`` (with the operationalState for OP_STATE_CHANGE)."""
    out = {
        'id': notification_id,
        'notificationType': notification_type,
        'subscriptionId': subscription['id'],
        'timeStamp': timeutils.isotime(now),
        'vnfPkgId': package['id'],
        'vnfdId': package['vnfd_id'],
    }
    if change_type is not None:
        out['changeType'] = change_type
    if change_type == OP_STATE_CHANGE:
        out['operationalState'] = package['operational_state']
    out['_links'] = _links(subscription, package['id'])
    return out


# -- outbox rows -------------------------------------------------------------


def _for(
    notification_type: str,
    package: Mapping[str, Any],
    change_type: str | None = None,
) -> list[dict]:
    subscriptions = registry.subscription_list({'interface': registry.VNFPKGM})
    notification_id, now = db.new_id(), timeutils.utcnow()
    return [
        notifications.outbox_row(
            s,
            notification_type,
            payload(
                notification_type,
                s,
                package,
                notification_id,
                now,
                change_type,
            ),
        )
        for s in subscriptions
        if visible(s, package)
        and matches(s.get('filter'), notification_type, package)
    ]


def for_onboarding(package: Mapping[str, Any]) -> list[dict]:
    """Outbox rows reporting that ``package`` (its row as committed, with
    its vnfdId) is ONBOARDED, one per matching subscription."""
    return _for(ONBOARDING, package)


def for_change(package: Mapping[str, Any], change_type: str) -> list[dict]:
    """Outbox rows reporting a change of an onboarded ``package`` (its row
    as the change leaves it): a new operationalState (OP_STATE_CHANGE) or
    its deletion (PKG_DELETE), one per matching subscription."""
    return _for(CHANGE, package, change_type)
