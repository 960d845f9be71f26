"""Errors of the Kubernetes API server as vnfm reports them: named by
status, saying what was asked, with the server's message and causes and a
hint for the credentials."""

from __future__ import annotations

import json

import pytest

from vnfm.clients.kubernetes import errors

STATUS = {
    'kind': 'Status',
    'status': 'Failure',
    'message': 'Deployment.apps "web" is invalid',
    'reason': 'Invalid',
    'details': {
        'causes': [
            {'message': 'spec.replicas: must be >= 0'},
            {'field': 'spec.x'},
            {'message': 'spec.template: required'},
        ]
    },
    'code': 422,
}


@pytest.mark.parametrize(
    'body', [STATUS, json.dumps(STATUS), json.dumps(STATUS).encode()]
)
def test_the_message_and_causes_come_from_the_status_body(body):
    err = errors.from_status(422, body, 'create Deployment web')

    assert type(err) is errors.KubernetesError
    assert str(err) == (
        'Kubernetes API: create Deployment web: HTTP 422: Deployment.apps '
        '"web" is invalid (spec.replicas: must be >= 0; spec.template: '
        'required)'
    )
    assert err.http_status == 422
    assert err.causes == (
        'spec.replicas: must be >= 0',
        'spec.template: required',
    )


@pytest.mark.parametrize(
    'status,kind',
    [
        (401, errors.KubernetesForbidden),
        (403, errors.KubernetesForbidden),
        (404, errors.KubernetesNotFound),
        (409, errors.KubernetesConflict),
        (500, errors.KubernetesError),
    ],
)
def test_each_status_has_its_error(status, kind):
    err = errors.from_status(status, {'message': 'm'}, 'get Pod p')

    assert type(err) is kind
    assert isinstance(err, errors.KubernetesError)


def test_refused_credentials_and_missing_rights_say_what_to_check():
    refused = errors.from_status(401, {}, 'list Pods')
    forbidden = errors.from_status(403, {'message': 'nope'}, 'list Pods')

    assert str(refused) == (
        'Kubernetes API: list Pods: HTTP 401: no message (check accessInfo '
        'of the VIM: the credentials were refused)'
    )
    assert str(forbidden).endswith(
        '(check accessInfo of the VIM: the token or user has no rights for '
        'this)'
    )


def test_a_body_that_is_not_json_is_quoted_short():
    err = errors.from_status(502, '<html>' + 'x' * 1000, 'get Node n1')

    assert '<html>' in str(err)
    assert len(str(err)) < 400


def test_the_disruption_budget_an_eviction_names():
    err = errors.from_status(
        429,
        {
            'message': "Cannot evict pod as it would violate the pod's "
            'disruption budget.',
            'details': {
                'causes': [
                    {
                        'message': 'The disruption budget web-pdb needs 2 '
                        'healthy pods and has 2 currently'
                    }
                ]
            },
        },
        'evict Pod web-0',
    )

    assert errors.disruption_budget(err) == 'web-pdb'
    assert (
        errors.disruption_budget(
            errors.from_status(429, {'message': 'Too many requests'}, 'x')
        )
        is None
    )
