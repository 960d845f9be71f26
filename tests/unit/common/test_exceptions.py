"""vnfm.common.exceptions: the named conditions answer exactly as the HTTP
errors they specialise, so naming a condition changes no response."""

from __future__ import annotations

import pytest

from vnfm.common import exceptions

NAMED = [
    (exceptions.OpInProgress, exceptions.Conflict),
    (exceptions.InstanceStateConflict, exceptions.Conflict),
    (exceptions.OpStateConflict, exceptions.Conflict),
    (exceptions.ConcurrentUpdate, exceptions.Conflict),
    (exceptions.AlreadyExists, exceptions.Conflict),
    (exceptions.OperationNotSupported, exceptions.Conflict),
    (exceptions.PackageStateConflict, exceptions.Conflict),
    (exceptions.PackageInUse, exceptions.Conflict),
    (exceptions.VimInUse, exceptions.Conflict),
    (exceptions.FlavourNotInVnfd, exceptions.UnprocessableEntity),
    (exceptions.VimTypeNotServed, exceptions.UnprocessableEntity),
    (exceptions.PackageNotOnboarded, exceptions.UnprocessableEntity),
    (exceptions.PackageDisabled, exceptions.UnprocessableEntity),
]


@pytest.mark.parametrize(('named', 'http_error'), NAMED)
def test_a_named_condition_is_its_http_error(named, http_error):
    error = named('VNF instance i-1 is busy.')
    assert isinstance(error, http_error)
    assert (
        error.to_problem()
        == http_error('VNF instance i-1 is busy.').to_problem()
    )


def test_a_handler_of_one_condition_lets_the_others_pass():
    with pytest.raises(exceptions.OpInProgress):
        try:
            raise exceptions.OpInProgress('op o-1 runs.')
        except exceptions.ConcurrentUpdate:
            pytest.fail('a lost race handler caught an op in progress')
