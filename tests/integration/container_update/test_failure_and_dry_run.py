"""A failed update and its rollback; the dry run."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.conf import CONF

from .conftest import Cnf
from .conftest import files_of
from .manifests import configmap
from .manifests import controller
from .manifests import env_from
from .manifests import pod
from .manifests import secret
from .manifests import set_image
from .manifests import spec

pytestmark = pytest.mark.timeout(180, func_only=True)
USES_ALL = spec(
    envFrom=[env_from('ConfigMap', 'cm-a'), env_from('Secret', 'sec-a')]
)
WEB = controller('Deployment', 'web', USES_ALL)
HELPER = pod('helper', USES_ALL)


def _files(value: str, web: dict = WEB) -> dict[str, bytes]:
    return files_of(
        {
            'Files/all.yaml': [
                configmap('cm-a', k=value),
                secret('sec-a', password=value),
                web,
                HELPER,
            ]
        }
    )


@pytest.fixture(autouse=True)
def _state_path(tmp_path: object) -> object:
    # Secrets kept for rollback are encrypted with the key in state_path.
    CONF.set_override('state_path', str(tmp_path))
    yield
    CONF.clear_override('state_path')


def test_unpullable_image_fails_then_rollback_restores(
    deploy: Callable[..., Cnf],
) -> None:
    cnf = deploy(_files('v1'))
    web_pods = cnf.owner_uids('web-')
    broken = _files('v2', set_image(WEB, 'registry.example/no-such-image:1'))

    with pytest.raises(k8s.WorkloadFailed) as e:
        cnf.update(broken)
    assert 'no-such-image' in e.value.detail
    assert cnf.get('ConfigMap', 'cm-a')['data'] == {'k': 'v2'}
    # What the update overwrote is kept, the Secret only encrypted.
    snap = cnf.work['snapshot']
    assert snap['configs'][f'ConfigMap/{cnf.namespace}/cm-a'] == {
        'content': {'data': {'k': 'v1'}, 'binaryData': {}, 'immutable': False}
    }
    # (a Fernet token: its base64 may contain any text, 'v1' included).
    sealed = snap['configs'][f'Secret/{cnf.namespace}/sec-a']
    assert list(sealed) == ['sealed']
    assert crypto.decrypt(sealed['sealed'])['data'] == {'password': 'djE='}

    changes = cnf.rollback(broken)

    assert cnf.get('ConfigMap', 'cm-a')['data'] == {'k': 'v1'}
    secret_data = cnf.get('Secret', 'sec-a')['data']
    assert secret_data == {'password': 'djE='}  # base64 of 'v1'
    deployment = cnf.get('Deployment', 'web')
    template = deployment['spec']['template']
    assert template['spec']['containers'][0]['image'] == 'nginx'
    assert 'vnfm.io/config-hash' not in (
        template['metadata'].get('annotations') or {}
    )
    # The Deployment is back on its first ReplicaSet: its Pod never left.
    assert cnf.owner_uids('web-') == web_pods
    helper = cnf.get('Pod', 'helper')
    assert helper['spec']['containers'][0]['image'] == 'nginx'
    assert (
        changes['changedInfo']['metadata']['vnfm_container_update'][
            'rolledBack'
        ]
        is True
    )


def test_dry_run_reports_and_changes_nothing(
    deploy: Callable[..., Cnf],
) -> None:
    cnf = deploy(_files('v1'))
    before = cnf.uids()
    version = cnf.get('ConfigMap', 'cm-a')['metadata']['resourceVersion']
    web_pod = next(n for n in before if n.startswith('web-'))

    changes = cnf.update(
        _files('v2', set_image(WEB, 'tomcat')), metadata={'vnfm_dry_run': True}
    )

    assert cnf.uids() == before
    assert (
        cnf.get('ConfigMap', 'cm-a')['metadata']['resourceVersion'] == version
    )
    assert set(changes) == {'changedInfo'}
    report = changes['changedInfo']['metadata']['vnfm_container_update']
    assert report['dryRun'] is True
    assert [
        (c['kind'], c['name'], c['action'])
        for c in report['configMapsAndSecrets']
    ] == [('ConfigMap', 'cm-a', 'patch'), ('Secret', 'sec-a', 'patch')]
    restarts = {w['name']: w['restartedPods'] for w in report['workloads']}
    assert restarts == {'helper': ['helper'], 'web': [web_pod]}
    # No content in reports: neither the new value nor its base64 (not a
    # substring test: a Pod's random name may hold 'v2').
    assert not {'v2', 'djI='} & set(_leaves(report))
    assert cnf.work == {}


def _leaves(value: object) -> list:
    """Every scalar in a JSON-like value, keys included."""
    if isinstance(value, dict):
        return [*value, *(x for v in value.values() for x in _leaves(v))]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return [value]


def test_refused_change_changes_nothing(deploy: Callable[..., Cnf]) -> None:
    cnf = deploy(_files('v1'))
    before = cnf.uids()
    renamed = files_of(
        {
            'Files/all.yaml': [
                configmap('cm-renamed', k='v2'),
                secret('sec-a', password='v1'),
                WEB,
                HELPER,
            ]
        }
    )

    with pytest.raises(
        exceptions.OperationFailed, match='kind, namespace and name'
    ):
        cnf.update(renamed)

    assert cnf.uids() == before
    assert cnf.get('ConfigMap', 'cm-a')['data'] == {'k': 'v1'}
