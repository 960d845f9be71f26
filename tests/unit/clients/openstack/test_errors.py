"""Errors of the OpenStack clients: operation failures with their own
titles; a failed stack says which resource failed and why."""

from __future__ import annotations

from vnfm.clients.openstack import errors
from vnfm.common import exceptions


def test_a_failed_stack_carries_the_resource_and_the_reason():
    err = errors.StackFailed(
        'Stack vnf-1 CREATE_FAILED: VDU1: No valid host was found.',
        resource='VDU1',
        reason='No valid host was found.',
    )

    assert (err.resource, err.reason) == ('VDU1', 'No valid host was found.')
    assert err.to_problem()['title'] == 'Heat Stack Failed'
    assert err.to_problem()['detail'].startswith('Stack vnf-1 CREATE_FAILED')


def test_openstack_errors_fail_the_operation():
    for err in (
        errors.OpenStackError('x'),
        errors.BadVimConnection('x'),
        errors.StackFailed('x', None, None),
    ):
        assert isinstance(err, exceptions.OperationFailed)
        assert isinstance(err, errors.OpenStackError)
    assert errors.BadVimConnection('x').title == 'Bad VIM Connection'
