"""ETSI's OpenAPI documents as the schema fuzzing uses them: loaded from
``tests/etsi_openapi`` (unchanged copies, kept in the repository) and
corrected where they are wrong or where vnfm differs on purpose. Each
correction names its reason; doc/source/conformance.rst lists the same.

/vnflcm/v2: SOL003 V3.3.1, VNF LCM API 2.0.0 (OpenAPI 3.0, one file).
/vnfpkgm/v1: SOL005 V2.4.1, VNF package management API 1.0.0 (Swagger 2.0,
ETSI TST010's harvest), the nearest document to the V2.6.1 shapes vnfm
serves there (doc/source/design.rst section 1).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path

ETSI_OPENAPI = Path(__file__).resolve().parents[1] / 'etsi_openapi'
LCM_DOC = (
    'itential-bundled-sol003-v3.3.1/'
    'SOL003-VNFLifecycleManagement-API-2.0.0.json'
)
PKG_DOC = (
    'tst010-api-tests-v2.4.1-swagger/SOL005-VNFPackageManagement-API.json'
)
JSON = 'application/json'
PROBLEM_JSON = 'application/problem+json'
ZIP = 'application/zip'
METHODS = ('get', 'put', 'post', 'delete', 'patch')
Fix = Callable[[dict], None]

# Operations of SOL003 V3.3.1 that vnfm does not serve (Tacker's v2 API
# has none of them either): they answer 404, checked apart.
UNSERVED_LCM = (
    '/vnf_instances/{vnfInstanceId}/create_snapshot',
    '/vnf_instances/{vnfInstanceId}/revert_to_snapshot',
    '/vnf_snapshots',
    '/vnf_snapshots/{vnfSnapshotInfoId}',
    '/vnf_snapshots/{vnfSnapshotInfoId}/vnf_state_snapshot',
)


def load(relpath: str, fixes: list[tuple[str, Fix]]) -> dict:
    """One ETSI document with ``fixes`` applied."""
    doc = json.loads((ETSI_OPENAPI / relpath).read_text())
    for _reason, fix in fixes:
        fix(doc)
    return doc


def operations(doc: dict) -> Iterator[tuple[str, str, dict]]:
    """(path, method, operation) of every operation."""
    for path, item in doc['paths'].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def responses(doc: dict) -> Iterator[tuple[str, str, str, dict]]:
    """(path, method, status, response) of every operation, references to
    shared responses resolved (a fix changes a shared one in place)."""
    shared = doc.get('components', {}).get('responses', {})
    for path, method, op in operations(doc):
        for status, resp in op.get('responses', {}).items():
            ref = resp.get('$ref', '')
            yield (
                path,
                method,
                status,
                (shared[ref.rsplit('/', 1)[-1]] if ref else resp),
            )


def remove_paths(*paths: str) -> Fix:
    """Take ``paths`` out of the fuzzing."""

    def fix(doc: dict) -> None:
        for path in paths:
            doc['paths'].pop(path, None)

    return fix


# --- SOL003 V3.3.1 (OpenAPI 3.0) ---------------------------------------------
def problem_details_media_type(doc: dict) -> None:
    """Errors are application/problem+json (SOL013 6.4, IETF RFC 7807);
    the document declares application/json for them."""
    for _path, _method, status, resp in responses(doc):
        content = resp.get('content', {})
        if status[0] in '45' and JSON in content:
            content.setdefault(PROBLEM_JSON, content[JSON])


def lists_are_arrays(*paths: str) -> Fix:
    """The 200 of GET ``paths`` is declared as one object; SOL003 5.4.12.3.2
    and 5.4.18.3.2 (and the document's own description) say an array."""

    def fix(doc: dict) -> None:
        for path, method, status, resp in responses(doc):
            if path in paths and method == 'get' and status == '200':
                media = resp['content'][JSON]
                if media['schema'].get('type') != 'array':
                    media['schema'] = {
                        'type': 'array',
                        'items': media['schema'],
                    }

    return fix


def op_occ_one_of(doc: dict) -> None:
    """VnfLcmOpOcc: the document makes exactly one of changedInfo and
    modificationsTriggeredByVnfPkgChange required on every op occurrence;
    SOL003 5.5.2.13 wants each only on a COMPLETED MODIFY_INFO or
    CHANGE_VNFPKG (and neither elsewhere)."""
    for path, method, status, resp in responses(doc):
        if (
            path.startswith('/vnf_lcm_op_occs')
            and method == 'get'
            and status == '200'
        ):
            schema = resp['content'][JSON]['schema']
            schema.get('items', schema).pop('oneOf', None)


def empty_accepted(doc: dict) -> None:
    """PATCH /vnf_instances/{id} 202: "the response body shall be empty"
    says the document, yet it declares a JSON body."""
    for _path, method, status, resp in responses(doc):
        if method == 'patch' and status == '202':
            resp.pop('content', None)


def unprocessable(doc: dict) -> None:
    """Task resources answer 422 when a well-formed request names what
    cannot be done (a flavour the VNFD lacks, a package not ONBOARDED:
    SOL013 6.4); the document lists 422 only for POST /vnf_instances and
    /subscriptions, though SOL013 allows it for every method with a body."""
    template = doc['paths']['/vnf_instances']['post']['responses']['422']
    for _path, _method, op in operations(doc):
        if 'requestBody' in op:
            op['responses'].setdefault('422', copy.deepcopy(template))


LCM_FIXES: list[tuple[str, Fix]] = [
    ('operations vnfm does not serve', remove_paths(*UNSERVED_LCM)),
    ('422 for requests that cannot be processed', unprocessable),
    ('errors are application/problem+json', problem_details_media_type),
    (
        'lists are arrays',
        lists_are_arrays('/vnf_lcm_op_occs', '/subscriptions'),
    ),
    ('VnfLcmOpOcc oneOf', op_occ_one_of),
    ('PATCH 202 has no body', empty_accepted),
]


# --- SOL005 V2.4.1 (Swagger 2.0, TST010 harvest) -----------------------------
def unwrap(schema: dict) -> dict:
    """``{"properties": {"VnfPkgInfo": S}}`` -> S: the harvest wraps every
    body in an object keyed by its type name; on the wire (SOL005 9.5.2,
    and every NFVO) the body is the type itself."""
    if schema.get('type') == 'array':
        return {**schema, 'items': unwrap(schema['items'])}
    props = schema.get('properties', {})
    if len(props) == 1:
        ((name, inner),) = props.items()
        if name[:1].isupper():
            return inner
    return schema


def unwrap_bodies(doc: dict) -> None:
    """Request and response bodies without the type-name wrapper."""
    for _path, _method, op in operations(doc):
        for param in op.get('parameters', []):
            if param.get('in') == 'body':
                param['schema'] = unwrap(param['schema'])
        for resp in op.get('responses', {}).values():
            if 'schema' in resp:
                resp['schema'] = unwrap(resp['schema'])


def media_types(doc: dict) -> None:
    """Errors are application/problem+json (SOL013 6.4); downloads are
    application/zip or text/plain (SOL005 9.4.4.3.2, 9.4.5.3.1) and
    artifacts any type (9.4.7.3.1, vnfm: application/octet-stream); the
    document declares application/json for all of them."""
    doc['produces'] = [JSON, PROBLEM_JSON]
    downloads = {
        '/vnf_packages/{vnfPkgId}/vnfd': ['text/plain', ZIP],
        '/vnf_packages/{vnfPkgId}/package_content': [ZIP],
        '/vnf_packages/{vnfPkgId}/artifacts/{artifactPath}': [
            'application/octet-stream'
        ],
    }
    for path, method, op in operations(doc):
        if method == 'get' and path in downloads:
            op['produces'] = [*downloads[path], PROBLEM_JSON]


def zip_upload(doc: dict) -> None:
    """PUT package_content: the body is the zip itself (SOL005 9.4.5.3.3,
    what python-tackerclient sends), not a multipart form."""
    op = doc['paths']['/vnf_packages/{vnfPkgId}/package_content']['put']
    op['consumes'] = [ZIP]
    op['parameters'] = [
        p for p in op['parameters'] if p['in'] != 'formData'
    ] + [
        {
            'name': 'body',
            'in': 'body',
            'required': True,
            'schema': {'type': 'string', 'format': 'binary'},
        }
    ]


def create_errors(doc: dict) -> None:
    """POST /vnf_packages declares only 201; SOL005 9.4.2.3.1 has the
    usual errors (400, 401, 403, 406, ...) like every other method."""
    ops = doc['paths']['/vnf_packages']
    errors = {s: r for s, r in ops['get']['responses'].items() if s[0] in '45'}
    for status, resp in errors.items():
        ops['post']['responses'].setdefault(status, copy.deepcopy(resp))


def notification_endpoints(doc: dict) -> None:
    """The document lists the subscriber's notification endpoints as paths
    of the NFVO."""
    for path in [p for p in doc['paths'] if p.startswith('/URI_is')]:
        del doc['paths'][path]


def unsupported_media_type(doc: dict) -> None:
    """A body of a type the operation does not take is a 415 (IETF RFC
    7231 6.5.13); the document types Content-Type as any string but lists
    no answer for a wrong one."""
    for _path, _method, op in operations(doc):
        params = op.get('parameters', [])
        if any(p['in'] in ('body', 'formData') for p in params):
            op['responses'].setdefault(
                '415', copy.deepcopy(op['responses']['400'])
            )


def onboarding_error_state(doc: dict) -> None:
    """PackageOnboardingStateType has ERROR in the SOL005 versions vnfm
    serves (2.6.1, and 3.7.1): a package whose
    onboarding failed is listed as ERROR; the V2.4.1 document predates it."""
    old = ['CREATED', 'UPLOADING', 'PROCESSING', 'ONBOARDED']

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if node.get('enum') == old:
                node['enum'] = [*old, 'ERROR']
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc)


def _filter_of(schema: dict) -> dict | None:
    """The PkgmNotificationsFilter inside a (request or response) body."""
    schema = schema.get('items', schema)
    return schema.get('properties', {}).get('filter')


def pkgm_filter(doc: dict) -> None:
    """PkgmNotificationsFilter (SOL005 9.5.3.2): notificationTypes is a
    list (0..N), not one string; vnfdId, vnfPkgId, operationalState and
    usageState are attributes of the filter, the document nests them in
    the items of vnfProductsFromProviders."""
    for _path, _method, op in operations(doc):
        bodies = [
            p['schema'] for p in op.get('parameters', []) if 'schema' in p
        ]
        bodies += [
            r['schema'] for r in op['responses'].values() if 'schema' in r
        ]
        for body in bodies:
            found = _filter_of(body)
            if found is None or 'vnfdId' in found['properties']:
                continue
            props = found['properties']
            props['notificationTypes'] = {
                'type': 'array',
                'items': props['notificationTypes'],
            }
            provider = props['vnfProductsFromProviders']['items']
            for name in (
                'vnfdId',
                'vnfPkgId',
                'operationalState',
                'usageState',
            ):
                props[name] = provider['properties'].pop(name)


def pkgm_subscription_created(doc: dict) -> None:
    """POST /subscriptions 201 is the PkgmSubscription created (SOL005
    9.4.8.3.1), not an array; and 422 when its callbackUri does not answer
    the test GET with 204 (9.4.10.3.2; SOL013 6.4 allows 422 wherever a
    body is taken)."""
    post = doc['paths']['/subscriptions']['post']['responses']
    post['201']['schema'] = post['201']['schema']['items']
    post.setdefault('422', copy.deepcopy(post['400']))


PKG_FIXES: list[tuple[str, Fix]] = [
    ("the subscriber's endpoints", notification_endpoints),
    ('the 201 of a new subscription', pkgm_subscription_created),
    ('bodies wrapped in their type name', unwrap_bodies),
    ('the subscription filter', pkgm_filter),
    ('media types of errors and downloads', media_types),
    ('the upload is a zip body', zip_upload),
    ('POST /vnf_packages errors', create_errors),
    ('415 for a wrong Content-Type', unsupported_media_type),
    ('packages whose onboarding failed', onboarding_error_state),
]
