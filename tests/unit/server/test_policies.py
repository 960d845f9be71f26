"""The policy defaults: readers read, members change, in their project;
administrators everywhere."""

from __future__ import annotations

import pytest
from oslo_context import context
from oslo_policy import policy

from vnfm.common import context as vnfm_context
from vnfm.server import policies

LCM = policies.LCM
PKG = policies.PKG
FM = policies.FM


@pytest.fixture(autouse=True)
def _fresh_enforcer():
    policies.reset()
    yield
    policies.reset()


def _ctx(project: str, *roles: str) -> context.RequestContext:
    # Keystone expands implied roles into the token: member → reader.
    return context.RequestContext(project_id=project, roles=list(roles))


READ_RULES = [
    LCM + 'index',
    LCM + 'show',
    LCM + 'lcm_op_occ_show',
    PKG + 'show',
    PKG + 'fetch_package_content',
    PKG + 'subscription_list',
    PKG + 'subscription_show',
    'get_vim',
    FM + 'index',
    FM + 'show',
    FM + 'subscription_list',
    FM + 'subscription_show',
]
WRITE_RULES = [
    LCM + 'create',
    LCM + 'instantiate',
    LCM + 'delete',
    LCM + 'lcm_op_occ_retry',
    PKG + 'create',
    PKG + 'delete',
    PKG + 'subscription_create',
    PKG + 'subscription_delete',
    'create_vim',
    'delete_vim',
    FM + 'update',
    FM + 'subscription_create',
    FM + 'subscription_delete',
]
OWN = {'project_id': 'p1'}
FOREIGN = {'project_id': 'p2'}


@pytest.mark.parametrize('rule', READ_RULES)
def test_reader_reads_its_project_only(rule):
    reader = _ctx('p1', 'reader')
    assert policies.check(rule, OWN, reader)
    assert not policies.check(rule, FOREIGN, reader)


@pytest.mark.parametrize('rule', WRITE_RULES)
def test_reader_changes_nothing(rule):
    assert not policies.check(rule, OWN, _ctx('p1', 'reader'))


@pytest.mark.parametrize('rule', READ_RULES + WRITE_RULES)
def test_member_acts_in_its_project_only(rule):
    member = _ctx('p1', 'member', 'reader')
    assert policies.check(rule, OWN, member)
    assert not policies.check(rule, FOREIGN, member)


@pytest.mark.parametrize('rule', READ_RULES + WRITE_RULES)
def test_admin_acts_everywhere(rule):
    assert policies.check(rule, FOREIGN, _ctx('p1', 'admin'))


def test_a_role_without_reader_gets_nothing():
    # A token with only a custom role: not even reading.
    assert not policies.check(
        LCM + 'index', OWN, _ctx('p1', 'heat_stack_owner')
    )


@pytest.mark.parametrize('rule', [LCM + 'api_versions', PKG + 'api_versions'])
def test_api_versions_need_no_role(rule):
    assert policies.check(rule, OWN, _ctx('p1'))


def test_a_vim_for_another_project_is_admin_only():
    rule = policies.VIM_FOR_PROJECT
    assert not policies.check(rule, FOREIGN, _ctx('p1', 'member', 'reader'))
    assert policies.check(rule, FOREIGN, _ctx('p1', 'admin'))


def _changes() -> list[str]:
    """Every rule of a route that changes something (not a GET), from the
    policy table itself."""
    return [
        rule.name
        for rule in policies.list_rules()
        if isinstance(rule, policy.DocumentedRuleDefault)
        and any(op['method'] != 'GET' for op in rule.operations)
        and rule.check_str != policies.ANY
    ]


@pytest.mark.parametrize('rule', _changes())
def test_no_change_is_open_to_a_reader(rule):
    """change_flavour was owner-level (any role of the project)."""
    assert not policies.check(rule, OWN, _ctx('p1', 'reader'))
    assert not policies.check(rule, OWN, _ctx('p1', 'heat_stack_owner'))


def test_policies_have_operations_and_project_default():
    rules = {r.name: r for r in policies.list_rules()}
    create = rules[policies.LCM + 'create']
    assert create.operations == [
        {'method': 'POST', 'path': '/vnflcm/v2/vnf_instances'}
    ]
    policies.reset()
    # Keystone puts the implied role reader in a member's token.
    member = vnfm_context.RequestContext(
        user_id='u', project_id='p', roles=['member', 'reader']
    )
    rule = policies.LCM + 'show'
    assert policies.check(rule, {'project_id': 'p'}, member)
    assert not policies.check(rule, {'project_id': 'other'}, member)
    assert policies.check(
        rule, {'project_id': 'other'}, vnfm_context.get_admin_context()
    )
