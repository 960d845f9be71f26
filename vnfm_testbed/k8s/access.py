"""API clients and ServiceAccount tokens (for RBAC tests) of a LocalCluster."""

from __future__ import annotations

import base64

from kubernetes import client
from kubernetes.client.rest import ApiException

from vnfm_testbed import procs
from vnfm_testbed.k8s.cluster import ClusterError
from vnfm_testbed.k8s.cluster import LocalCluster


def api_client(
    cluster: LocalCluster, token: str | None = None
) -> client.ApiClient:
    """An ApiClient for ``cluster`` with ``token`` (default: the admin's)."""
    conf = client.Configuration()
    conf.host = cluster.endpoint
    conf.ssl_ca_cert = str(cluster.ca_cert_path)
    conf.verify_ssl = True
    conf.api_key = {'authorization': token or cluster.admin_token}
    conf.api_key_prefix = {'authorization': 'Bearer'}
    return client.ApiClient(conf)


def _create(call: object, *args: object) -> None:
    try:
        call(*args)  # type: ignore[operator]
    except ApiException as e:
        if e.status != 409:
            raise


def service_account_token(
    cluster: LocalCluster,
    namespace: str,
    name: str,
    cluster_role: str | None = None,
    timeout: float = 30.0,
) -> str:
    """Create a ServiceAccount, maybe bound to a role; return its token."""
    with api_client(cluster) as api:
        core, rbac = client.CoreV1Api(api), client.RbacAuthorizationV1Api(api)
        _create(core.create_namespace, {'metadata': {'name': namespace}})
        _create(
            core.create_namespaced_service_account,
            namespace,
            {'metadata': {'name': name}},
        )
        secret = f'{name}-token'
        _create(
            core.create_namespaced_secret,
            namespace,
            {
                'metadata': {
                    'name': secret,
                    'annotations': {
                        'kubernetes.io/service-account.name': name
                    },
                },
                'type': 'kubernetes.io/service-account-token',
            },
        )
        if cluster_role:
            _create(
                rbac.create_namespaced_role_binding,
                namespace,
                {
                    'metadata': {'name': f'{name}-{cluster_role}'},
                    'roleRef': {
                        'apiGroup': 'rbac.authorization.k8s.io',
                        'kind': 'ClusterRole',
                        'name': cluster_role,
                    },
                    'subjects': [
                        {
                            'kind': 'ServiceAccount',
                            'name': name,
                            'namespace': namespace,
                        }
                    ],
                },
            )
        token: list[str] = []

        def filled() -> bool:
            data = core.read_namespaced_secret(secret, namespace).data or {}
            if 'token' in data:
                token.append(base64.b64decode(data['token']).decode())
            return bool(token)

        if not procs.wait_for(filled, timeout):
            raise ClusterError(
                f'token of ServiceAccount {namespace}/{name} was never issued'
            )
        return token[0]
