"""API policies in code (oslo.policy), named as Tacker names them so an
existing Tacker policy file keeps working.

The rules are loaded once when the first request is checked; a changed
policy file takes effect at the next restart (no per-request file checks).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from oslo_config import cfg
from oslo_context import context as oslo_context
from oslo_policy import policy

from vnfm.conf import CONF

ADMIN = 'role:admin'
#: Read access: an administrator, or a reader of the owning project.
#: Keystone's default roles imply each other (admin > member > reader), so
#: a member's and an admin's tokens carry ``reader`` too.
ADMIN_OR_READER = 'rule:admin_or_reader'
#: Changes: an administrator, or a member of the owning project.
ADMIN_OR_MEMBER = 'rule:admin_or_member'
ANY = '@'

LCM = 'os_nfv_orchestration_api_v2:vnf_instances:'
LCM_V1 = 'os_nfv_orchestration_api:vnf_instances:'
PKG = 'os_nfv_orchestration_api:vnf_packages:'
VIM_FOR_PROJECT = 'create_vim:tenant_id'
FM = 'os_nfv_orchestration_api_v2:vnf_fault_monitor:'
PM = 'os_nfv_orchestration_api_v2:vnf_performance_management:'
# The Alertmanager receiver: authenticated by its own credentials.
ALERT = 'vnfm:alertmanager:'

_V2 = '/vnflcm/v2'
_INST = _V2 + '/vnf_instances/{vnfInstanceId}'
_OCC = _V2 + '/vnf_lcm_op_occs/{vnfLcmOpOccId}'
_SUBSC = _V2 + '/subscriptions'
_V1 = '/vnflcm/v1'
_INST1 = _V1 + '/vnf_instances/{vnfInstanceId}'
_OCC1 = _V1 + '/vnf_lcm_op_occs/{vnfLcmOpOccId}'
_PKGS = '/vnfpkgm/v1/vnf_packages'
_PKG = _PKGS + '/{vnfPkgId}'
_FM = '/vnffm/v1'
_ALARM = _FM + '/alarms/{alarmId}'
_FM_SUBSC = _FM + '/subscriptions'
_PKG_SUBSC = '/vnfpkgm/v1/subscriptions'
_PM_JOBS = '/vnfpm/v2/pm_jobs'
_PM_JOB = _PM_JOBS + '/{pmJobId}'
_THRESHOLDS = '/vnfpm/v2/thresholds'
_THRESHOLD = _THRESHOLDS + '/{thresholdId}'

_base_rules = [
    policy.RuleDefault(
        'context_is_admin', ADMIN, description='Who is an administrator.'
    ),
    policy.RuleDefault(
        'admin_or_owner',
        'rule:context_is_admin or project_id:%(project_id)s',
        description='An administrator or anyone with a role in the '
        'project owning the resource (kept for policy files written for '
        'Tacker; the defaults below use admin_or_reader and '
        'admin_or_member).',
    ),
    policy.RuleDefault(
        'admin_or_reader',
        'rule:context_is_admin or (role:reader and project_id:%(project_id)s)',
        description='An administrator, or a reader (member and admin '
        'imply reader) of the project owning the resource.',
    ),
    policy.RuleDefault(
        'admin_or_member',
        'rule:context_is_admin or (role:member and project_id:%(project_id)s)',
        description='An administrator, or a member of the project owning '
        'the resource.',
    ),
]

# (name, check, description, method, path)
_API = [
    (
        LCM + 'api_versions',
        ANY,
        'Get API versions.',
        'GET',
        _V2 + '/api_versions',
    ),
    (
        LCM + 'create',
        ADMIN_OR_MEMBER,
        'Create a VNF instance.',
        'POST',
        _V2 + '/vnf_instances',
    ),
    (
        LCM + 'index',
        ADMIN_OR_READER,
        'List VNF instances.',
        'GET',
        _V2 + '/vnf_instances',
    ),
    (LCM + 'show', ADMIN_OR_READER, 'Show a VNF instance.', 'GET', _INST),
    (
        LCM + 'delete',
        ADMIN_OR_MEMBER,
        'Delete a VNF instance.',
        'DELETE',
        _INST,
    ),
    (
        LCM + 'update',
        ADMIN_OR_MEMBER,
        'Modify VNF instance information.',
        'PATCH',
        _INST,
    ),
    (
        LCM + 'instantiate',
        ADMIN_OR_MEMBER,
        'Instantiate a VNF instance.',
        'POST',
        _INST + '/instantiate',
    ),
    (
        LCM + 'terminate',
        ADMIN_OR_MEMBER,
        'Terminate a VNF instance.',
        'POST',
        _INST + '/terminate',
    ),
    (
        LCM + 'scale',
        ADMIN_OR_MEMBER,
        'Scale a VNF instance.',
        'POST',
        _INST + '/scale',
    ),
    (
        LCM + 'scale_to_level',
        ADMIN_OR_MEMBER,
        'Scale a VNF instance to a level.',
        'POST',
        _INST + '/scale_to_level',
    ),
    (
        LCM + 'change_flavour',
        ADMIN_OR_MEMBER,
        'Change the deployment flavour of a VNF instance.',
        'POST',
        _INST + '/change_flavour',
    ),
    (
        LCM + 'heal',
        ADMIN_OR_MEMBER,
        'Heal a VNF instance.',
        'POST',
        _INST + '/heal',
    ),
    (
        LCM + 'operate',
        ADMIN_OR_MEMBER,
        'Start or stop a VNF instance.',
        'POST',
        _INST + '/operate',
    ),
    (
        LCM + 'change_ext_conn',
        ADMIN_OR_MEMBER,
        'Change the external connectivity of a VNF instance.',
        'POST',
        _INST + '/change_ext_conn',
    ),
    (
        LCM + 'change_vnfpkg',
        ADMIN_OR_MEMBER,
        'Change the current VNF package of a VNF instance.',
        'POST',
        _INST + '/change_vnfpkg',
    ),
    (
        LCM + 'lcm_op_occ_list',
        ADMIN_OR_READER,
        'List VNF LCM operation occurrences.',
        'GET',
        _V2 + '/vnf_lcm_op_occs',
    ),
    (
        LCM + 'lcm_op_occ_show',
        ADMIN_OR_READER,
        'Show a VNF LCM operation occurrence.',
        'GET',
        _OCC,
    ),
    (
        LCM + 'lcm_op_occ_retry',
        ADMIN_OR_MEMBER,
        'Retry a failed operation.',
        'POST',
        _OCC + '/retry',
    ),
    (
        LCM + 'lcm_op_occ_rollback',
        ADMIN_OR_MEMBER,
        'Roll back a failed operation.',
        'POST',
        _OCC + '/rollback',
    ),
    (
        LCM + 'lcm_op_occ_fail',
        ADMIN_OR_MEMBER,
        'Mark a failed operation as finally failed.',
        'POST',
        _OCC + '/fail',
    ),
    (
        LCM + 'lcm_op_occ_cancel',
        ADMIN_OR_MEMBER,
        'Cancel an operation.',
        'POST',
        _OCC + '/cancel',
    ),
    (
        LCM + 'subscription_create',
        ADMIN_OR_MEMBER,
        'Create a subscription.',
        'POST',
        _SUBSC,
    ),
    (
        LCM + 'subscription_list',
        ADMIN_OR_READER,
        'List subscriptions.',
        'GET',
        _SUBSC,
    ),
    (
        LCM + 'subscription_show',
        ADMIN_OR_READER,
        'Show a subscription.',
        'GET',
        _SUBSC + '/{subscriptionId}',
    ),
    (
        LCM + 'subscription_delete',
        ADMIN_OR_MEMBER,
        'Delete a subscription.',
        'DELETE',
        _SUBSC + '/{subscriptionId}',
    ),
    # /vnflcm/v1, with the names of Tacker's v1 API.
    (
        LCM_V1 + 'api_versions',
        ANY,
        'Get API versions.',
        'GET',
        _V1 + '/api_versions',
    ),
    (
        LCM_V1 + 'create',
        ADMIN_OR_MEMBER,
        'Create a VNF instance.',
        'POST',
        _V1 + '/vnf_instances',
    ),
    (
        LCM_V1 + 'index',
        ADMIN_OR_READER,
        'List VNF instances.',
        'GET',
        _V1 + '/vnf_instances',
    ),
    (LCM_V1 + 'show', ADMIN_OR_READER, 'Show a VNF instance.', 'GET', _INST1),
    (
        LCM_V1 + 'delete',
        ADMIN_OR_MEMBER,
        'Delete a VNF instance.',
        'DELETE',
        _INST1,
    ),
    (
        LCM_V1 + 'update_vnf',
        ADMIN_OR_MEMBER,
        'Modify VNF instance information.',
        'PATCH',
        _INST1,
    ),
    (
        LCM_V1 + 'instantiate',
        ADMIN_OR_MEMBER,
        'Instantiate a VNF instance.',
        'POST',
        _INST1 + '/instantiate',
    ),
    (
        LCM_V1 + 'terminate',
        ADMIN_OR_MEMBER,
        'Terminate a VNF instance.',
        'POST',
        _INST1 + '/terminate',
    ),
    (
        LCM_V1 + 'scale',
        ADMIN_OR_MEMBER,
        'Scale a VNF instance.',
        'POST',
        _INST1 + '/scale',
    ),
    (
        LCM_V1 + 'scale_to_level',
        ADMIN_OR_MEMBER,
        'Scale a VNF instance to a level.',
        'POST',
        _INST1 + '/scale_to_level',
    ),
    (
        LCM_V1 + 'change_flavour',
        ADMIN_OR_MEMBER,
        'Change the deployment flavour of a VNF instance.',
        'POST',
        _INST1 + '/change_flavour',
    ),
    (
        LCM_V1 + 'heal',
        ADMIN_OR_MEMBER,
        'Heal a VNF instance.',
        'POST',
        _INST1 + '/heal',
    ),
    (
        LCM_V1 + 'operate',
        ADMIN_OR_MEMBER,
        'Start or stop a VNF instance.',
        'POST',
        _INST1 + '/operate',
    ),
    (
        LCM_V1 + 'change_ext_conn',
        ADMIN_OR_MEMBER,
        'Change the external connectivity of a VNF instance.',
        'POST',
        _INST1 + '/change_ext_conn',
    ),
    (
        LCM_V1 + 'list_lcm_op_occs',
        ADMIN_OR_READER,
        'List VNF LCM operation occurrences.',
        'GET',
        _V1 + '/vnf_lcm_op_occs',
    ),
    (
        LCM_V1 + 'show_lcm_op_occs',
        ADMIN_OR_READER,
        'Show a VNF LCM operation occurrence.',
        'GET',
        _OCC1,
    ),
    (
        LCM_V1 + 'retry',
        ADMIN_OR_MEMBER,
        'Retry a failed operation.',
        'POST',
        _OCC1 + '/retry',
    ),
    (
        LCM_V1 + 'rollback',
        ADMIN_OR_MEMBER,
        'Roll back a failed operation.',
        'POST',
        _OCC1 + '/rollback',
    ),
    (
        LCM_V1 + 'fail',
        ADMIN_OR_MEMBER,
        'Mark a failed operation as finally failed.',
        'POST',
        _OCC1 + '/fail',
    ),
    (
        LCM_V1 + 'cancel',
        ADMIN_OR_MEMBER,
        'Cancel an operation.',
        'POST',
        _OCC1 + '/cancel',
    ),
    (
        LCM_V1 + 'subscription_create',
        ADMIN_OR_MEMBER,
        'Create a subscription.',
        'POST',
        _V1 + '/subscriptions',
    ),
    (
        LCM_V1 + 'subscription_list',
        ADMIN_OR_READER,
        'List subscriptions.',
        'GET',
        _V1 + '/subscriptions',
    ),
    (
        LCM_V1 + 'subscription_show',
        ADMIN_OR_READER,
        'Show a subscription.',
        'GET',
        _V1 + '/subscriptions/{subscriptionId}',
    ),
    (
        LCM_V1 + 'subscription_delete',
        ADMIN_OR_MEMBER,
        'Delete a subscription.',
        'DELETE',
        _V1 + '/subscriptions/{subscriptionId}',
    ),
    (
        PKG + 'api_versions',
        ANY,
        'Get API versions.',
        'GET',
        '/vnfpkgm/v1/api_versions',
    ),
    (PKG + 'create', ADMIN_OR_MEMBER, 'Create a VNF package.', 'POST', _PKGS),
    (PKG + 'index', ADMIN_OR_READER, 'List VNF packages.', 'GET', _PKGS),
    (PKG + 'show', ADMIN_OR_READER, 'Show a VNF package.', 'GET', _PKG),
    (
        PKG + 'patch',
        ADMIN_OR_MEMBER,
        'Update the operational state or user data of a VNF package.',
        'PATCH',
        _PKG,
    ),
    (PKG + 'delete', ADMIN_OR_MEMBER, 'Delete a VNF package.', 'DELETE', _PKG),
    (
        PKG + 'upload_package_content',
        ADMIN_OR_MEMBER,
        'Upload the content of a VNF package.',
        'PUT',
        _PKG + '/package_content',
    ),
    (
        PKG + 'upload_from_uri',
        ADMIN_OR_MEMBER,
        'Upload the content of a VNF package from a URI.',
        'POST',
        _PKG + '/package_content/upload_from_uri',
    ),
    (
        PKG + 'fetch_package_content',
        ADMIN_OR_READER,
        'Download the content of a VNF package.',
        'GET',
        _PKG + '/package_content',
    ),
    (
        PKG + 'get_vnf_package_vnfd',
        ADMIN_OR_READER,
        'Read the VNFD of a VNF package.',
        'GET',
        _PKG + '/vnfd',
    ),
    (
        PKG + 'fetch_artifact',
        ADMIN_OR_READER,
        'Download an artifact of a VNF package.',
        'GET',
        _PKG + '/artifacts/{artifactPath}',
    ),
    (
        FM + 'api_versions',
        ANY,
        'Get API versions.',
        'GET',
        '/vnffm/v1/api_versions',
    ),
    (FM + 'index', ADMIN_OR_READER, 'List alarms.', 'GET', _FM + '/alarms'),
    (FM + 'show', ADMIN_OR_READER, 'Show an alarm.', 'GET', _ALARM),
    (
        FM + 'update',
        ADMIN_OR_MEMBER,
        'Acknowledge an alarm (or take it back).',
        'PATCH',
        _ALARM,
    ),
    (
        FM + 'subscription_create',
        ADMIN_OR_MEMBER,
        'Create an FM subscription.',
        'POST',
        _FM_SUBSC,
    ),
    (
        FM + 'subscription_list',
        ADMIN_OR_READER,
        'List FM subscriptions.',
        'GET',
        _FM_SUBSC,
    ),
    (
        FM + 'subscription_show',
        ADMIN_OR_READER,
        'Show an FM subscription.',
        'GET',
        _FM_SUBSC + '/{subscriptionId}',
    ),
    (
        FM + 'subscription_delete',
        ADMIN_OR_MEMBER,
        'Delete an FM subscription.',
        'DELETE',
        _FM_SUBSC + '/{subscriptionId}',
    ),
    (
        PM + 'api_versions',
        ANY,
        'Get API versions.',
        'GET',
        '/vnfpm/v2/api_versions',
    ),
    (PM + 'create', ADMIN_OR_MEMBER, 'Create a PM job.', 'POST', _PM_JOBS),
    (PM + 'index', ADMIN_OR_READER, 'List PM jobs.', 'GET', _PM_JOBS),
    (PM + 'show', ADMIN_OR_READER, 'Show a PM job.', 'GET', _PM_JOB),
    (
        PM + 'update',
        ADMIN_OR_MEMBER,
        'Change the callbackUri or authentication of a PM job.',
        'PATCH',
        _PM_JOB,
    ),
    (PM + 'delete', ADMIN_OR_MEMBER, 'Delete a PM job.', 'DELETE', _PM_JOB),
    (
        PM + 'report_show',
        ADMIN_OR_READER,
        'Show a performance report of a PM job.',
        'GET',
        _PM_JOB + '/reports/{reportId}',
    ),
    (
        PM + 'create_threshold',
        ADMIN_OR_MEMBER,
        'Create a PM threshold.',
        'POST',
        _THRESHOLDS,
    ),
    (
        PM + 'index_threshold',
        ADMIN_OR_READER,
        'List PM thresholds.',
        'GET',
        _THRESHOLDS,
    ),
    (
        PM + 'show_threshold',
        ADMIN_OR_READER,
        'Show a PM threshold.',
        'GET',
        _THRESHOLD,
    ),
    (
        PM + 'update_threshold',
        ADMIN_OR_MEMBER,
        'Change the callbackUri or authentication of a PM threshold.',
        'PATCH',
        _THRESHOLD,
    ),
    (
        PM + 'delete_threshold',
        ADMIN_OR_MEMBER,
        'Delete a PM threshold.',
        'DELETE',
        _THRESHOLD,
    ),
    (
        ALERT + 'receive',
        ANY,
        'Receive the alerts of Alertmanager (authenticated by '
        '[fault_management] receiver credentials, not by Keystone).',
        'POST',
        '/alert',
    ),
    (
        PKG + 'subscription_create',
        ADMIN_OR_MEMBER,
        'Subscribe to VNF package notifications.',
        'POST',
        _PKG_SUBSC,
    ),
    (
        PKG + 'subscription_list',
        ADMIN_OR_READER,
        'List VNF package subscriptions.',
        'GET',
        _PKG_SUBSC,
    ),
    (
        PKG + 'subscription_show',
        ADMIN_OR_READER,
        'Show a VNF package subscription.',
        'GET',
        _PKG_SUBSC + '/{subscriptionId}',
    ),
    (
        PKG + 'subscription_delete',
        ADMIN_OR_MEMBER,
        'Delete a VNF package subscription.',
        'DELETE',
        _PKG_SUBSC + '/{subscriptionId}',
    ),
    ('create_vim', ADMIN_OR_MEMBER, 'Register a VIM.', 'POST', '/v1.0/vims'),
    (
        VIM_FOR_PROJECT,
        ADMIN,
        'Register a VIM for another project than the own (tenant_id).',
        'POST',
        '/v1.0/vims',
    ),
    (
        'get_vim',
        ADMIN_OR_READER,
        'List or show VIMs.',
        'GET',
        '/v1.0/vims/{vim_id}',
    ),
    (
        'update_vim',
        ADMIN_OR_MEMBER,
        'Update a VIM.',
        'PUT',
        '/v1.0/vims/{vim_id}',
    ),
    (
        'delete_vim',
        ADMIN_OR_MEMBER,
        'Delete a VIM.',
        'DELETE',
        '/v1.0/vims/{vim_id}',
    ),
]

_lock = threading.Lock()
_enforcer: policy.Enforcer | None = None


def list_rules() -> list[policy.RuleDefault]:
    """Every default rule (for oslopolicy-sample-generator)."""
    return _base_rules + [
        policy.DocumentedRuleDefault(
            name=name,
            check_str=check,
            description=desc,
            operations=[{'method': method, 'path': path}],
        )
        for name, check, desc, method, path in _API
    ]


def get_enforcer() -> policy.Enforcer:
    """The process-wide enforcer, rules loaded once."""
    global _enforcer
    if _enforcer is None:
        with _lock:
            if _enforcer is None:
                enforcer = policy.Enforcer(CONF)
                enforcer.register_defaults(list_rules())
                try:
                    enforcer.load_rules()
                except cfg.NotInitializedError:
                    # No configuration parsed (a library or test use):
                    # the defaults in code are the policy.
                    enforcer.set_rules(
                        policy.Rules({r.name: r.check for r in list_rules()}),
                        use_conf=False,
                    )
                # Loaded: stop looking for policy file changes per check.
                enforcer.use_conf = False
                _enforcer = enforcer
    return _enforcer


def reset() -> None:
    """Forget the enforcer (tests, a changed policy file)."""
    global _enforcer
    with _lock:
        _enforcer = None


def check(
    rule: str, target: Mapping, ctx: oslo_context.RequestContext
) -> bool:
    """Whether ``ctx`` passes ``rule`` on ``target``."""
    return get_enforcer().enforce(rule, target, ctx)
