"""Schema fuzzing: schemathesis drives ETSI's OpenAPI documents against a
running vnfm (the ``services`` fixture: vnfm-api and two conductors).

/vnflcm/v2 is checked against SOL003 V3.3.1 (VNF LCM API 2.0.0) and
/vnfpkgm/v1 against SOL005 V2.4.1 (packages API 1.0.0, the nearest ETSI
document to the V2.6.1 shapes vnfm serves). Every operation gets a bounded,
derandomized set of examples, positive and negative; every answer must be
free of 5xx and conform to the document (status code, Content-Type, headers
and body). Path ids hit real objects (a package, instances, op
occurrences) as well as unknown ones.

Where a document is wrong, or vnfm differs on purpose, the document is
corrected before the run (tests/integration/etsi_documents.py, each
correction with its reason; doc/source/conformance.rst lists the same).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import hypothesis
import pytest
import schemathesis
from hypothesis import strategies as st
from schemathesis import checks as st_checks

from tests.integration import etsi_documents
from vnfm.csar.build import build_csar
from vnfm_testbed import procs

pytestmark = pytest.mark.timeout(300)

MAX_EXAMPLES = 25
HEAVY_EXAMPLES = 8
HEAVY = r'/(instantiate|change_flavour|change_ext_conn|change_vnfpkg)$'
OUTBOUND = {'callbackUri', 'tokenEndpoint', 'addressInformation'}
OFFERED = {etsi_documents.ZIP, 'text/plain'}
CHECKS = [
    st_checks.not_a_server_error,
    st_checks.status_code_conformance,
    st_checks.content_type_conformance,
    st_checks.response_headers_conformance,
    st_checks.response_schema_conformance,
]
# A request the document forbids gets a 4xx. Not for /vnfpkgm/v1: its
# document marks Accept and Content-Type required where HTTP (and vnfm)
# takes an absent Accept as "anything" and ignores a Range it cannot read.
LCM_CHECKS = [*CHECKS, st_checks.negative_data_rejection]


# --- state the ids point at -------------------------------------------------
class Seeds:
    """Real objects for path ids: a package, instances, op occurrences.
    ``ensure()`` re-creates what an earlier example deleted."""

    def __init__(
        self, api: Any, zip_path: Path, vnfd_id: str, marker: Path
    ) -> None:
        self.api, self.zip_path, self.vnfd_id = api, zip_path, vnfd_id
        self.marker = marker
        self.dirty = True  # a DELETE example may have removed one
        self.ids: dict[str, list[str]] = {
            'vnfPkgId': [],
            'vnfInstanceId': [],
            'vnfLcmOpOccId': [],
            'subscriptionId': [],
        }

    def ensure(self) -> None:
        """Make sure each kind of object has live members."""
        if not self.dirty:
            return
        self.dirty = False
        if not self._alive('/vnfpkgm/v1/vnf_packages', 'vnfPkgId'):
            self.ids['vnfPkgId'] = [self.api.onboard(self.zip_path)['id']]
        if not self._alive('/vnflcm/v2/vnf_instances', 'vnfInstanceId'):
            self._seed_instances()

    def _alive(self, base: str, kind: str) -> bool:
        ids = self.ids[kind]
        return bool(ids) and all(
            self.api.request('GET', f'{base}/{i}').status_code == 200
            for i in ids
        )

    def _seed_instances(self) -> None:
        api = self.api
        self.marker.touch()
        # An example may have disabled the package: instances need it on.
        api.request(
            'PATCH',
            f'/vnfpkgm/v1/vnf_packages/{self.ids["vnfPkgId"][0]}',
            version=None,
            json={'operationalState': 'ENABLED'},
        )
        created = api.create_instance(self.vnfd_id, 'fuzz-new')
        done = api.create_instance(self.vnfd_id, 'fuzz-instantiated')
        failed = api.create_instance(self.vnfd_id, 'fuzz-failed')
        op_done = api.start(done, 'instantiate', api.instantiate_request())
        op_failed = api.start(
            failed,
            'instantiate',
            api.instantiate_request(
                fail_hook='instantiate_end', fail_marker=str(self.marker)
            ),
        )
        api.wait_op(op_done, 'COMPLETED')
        api.wait_op(op_failed, 'FAILED_TEMP')
        self.ids['vnfInstanceId'] = [created, done, failed]
        self.ids['vnfLcmOpOccId'] = [op_done, op_failed]

    def pick(self, case: Any, data: st.DataObject) -> None:
        """Point some of the case's path ids at real objects."""
        for name in list(case.path_parameters or {}):
            real = self.ids.get(name)
            if real and data.draw(st.booleans(), label=f'real {name}'):
                case.path_parameters[name] = data.draw(
                    st.sampled_from(real), label=name
                )
                self.dirty |= case.method.upper() == 'DELETE'


@pytest.fixture(scope='module')
def seeds(api: Any, tmp_path_factory: pytest.TempPathFactory) -> Seeds:
    """A package of its own (the fuzz may disable or delete it) and the
    instances and op occurrences made from it."""
    root = tmp_path_factory.mktemp('fuzz')
    vnfd_id = str(uuid.uuid4())
    src = api.package_variant(
        api.SAMPLES / 'noop_vnf', root / 'src', vnfd_id, fail_marker=True
    )
    zip_path = root / 'fuzz.zip'
    zip_path.write_bytes(build_csar(str(src)))
    return Seeds(api, zip_path, vnfd_id, root / 'fail-marker')


def settings(max_examples: int) -> hypothesis.settings:
    """Bounded and derandomized: the same examples on every run."""
    return hypothesis.settings(
        max_examples=max_examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(hypothesis.HealthCheck),
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
    )


def confine(body: Any, url: str) -> None:
    """Point every URI vnfm would connect to (callbackUri, an OAuth 2.0
    tokenEndpoint, a package's addressInformation) at ``url``: test
    traffic stays on loopback."""
    stack = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key in OUTBOUND & value.keys():
                value[key] = url
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


# The upload body is the zip, sent as it was generated.
schemathesis.serializer.alias(etsi_documents.ZIP, 'application/octet-stream')
# Loaded at collection: each operation is a test of its own. The largest
# request bodies take hypothesis long to build: fewer examples there.
lcm = schemathesis.openapi.from_dict(
    etsi_documents.load(etsi_documents.LCM_DOC, etsi_documents.LCM_FIXES)
)
lcm_light = lcm.exclude(path_regex=HEAVY)
lcm_heavy = lcm.include(path_regex=HEAVY)
pkg = schemathesis.openapi.from_dict(
    etsi_documents.load(etsi_documents.PKG_DOC, etsi_documents.PKG_FIXES)
)


@pytest.fixture(scope='module')
def refused_url() -> str:
    """A loopback URL nothing listens on."""
    return f'http://127.0.0.1:{procs.free_port()}/fuzz'


def run(
    case: Any,
    base: str,
    fuzz: tuple[Seeds, str],
    data: st.DataObject,
    headers: dict[str, str],
    checks: list,
) -> None:
    """Send ``case`` (some ids real, the version header right, Accept one
    the document offers, outbound URIs on loopback) and check the answer
    against the document."""
    seeds, refused = fuzz
    seeds.ensure()
    seeds.pick(case, data)
    confine(case.body, refused)
    case.headers = {**(case.headers or {}), **headers}
    # The documents type Accept as any string: a random one only ever
    # gets a 406. Keep the media types the document enumerates.
    if case.headers.get('Accept') not in OFFERED:
        case.headers['Accept'] = etsi_documents.JSON
    case.call_and_validate(base_url=base, checks=checks, timeout=30)


@pytest.fixture(scope='module')
def fuzz(seeds: Seeds, refused_url: str) -> tuple[Seeds, str]:
    """What every example needs besides the case."""
    return seeds, refused_url


def fuzz_test(
    schema: Any,
    prefix: str,
    headers: dict[str, str],
    max_examples: int,
    checks: list,
) -> Any:
    """A test of every operation of ``schema`` served under ``prefix``."""

    @schema.parametrize()
    @schema.given(data=st.data())
    @settings(max_examples)
    def test(
        case: Any, data: st.DataObject, api: Any, fuzz: tuple[Seeds, str]
    ) -> None:
        run(case, api.base + prefix, fuzz, data, headers, checks)

    return test


V2 = {'Version': '2.0.0'}
test_vnflcm_v2 = fuzz_test(
    lcm_light, '/vnflcm/v2', V2, MAX_EXAMPLES, LCM_CHECKS
)
test_vnflcm_v2_large_bodies = fuzz_test(
    lcm_heavy, '/vnflcm/v2', V2, HEAVY_EXAMPLES, LCM_CHECKS
)
test_vnfpkgm_v1 = fuzz_test(pkg, '/vnfpkgm/v1', {}, MAX_EXAMPLES, CHECKS)


@pytest.mark.parametrize('path', etsi_documents.UNSERVED_LCM)
def test_unserved_operations_are_404(api: Any, path: str) -> None:
    # Left out of the fuzzing: SOL003 operations vnfm does not serve.
    url = path.replace('{vnfInstanceId}', str(uuid.uuid4())).replace(
        '{vnfSnapshotInfoId}', str(uuid.uuid4())
    )
    method = 'GET' if 'snapshots' in path else 'POST'
    r = api.lcm(method, url, json={})
    assert r.status_code == 404, r.text
    assert r.headers['Content-Type'] == etsi_documents.PROBLEM_JSON
