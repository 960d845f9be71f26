"""Unit tests of vnfm_testbed.prereqs: no silent skip in CI or run-tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vnfm_testbed import prereqs

ROOT = Path(__file__).resolve().parents[2]
# Every skip in the tree: those that follow the rule, and those that are
# not about a missing prerequisite at all.
ALLOWED_SKIPS = {
    # The rule itself.
    'vnfm_testbed/prereqs.py': 2,
    # An unreachable database: fails when required() (CI, run-tests).
    'vnfm_testbed/db.py': 1,
    # SQLite serialises writers and has no row locks: neither the race nor
    # the lock-order deadlock can happen there at all.
    'tests/unit/db/test_api.py': 2,
}
_SKIP = re.compile(r'pytest\.skip\(|\bskipif\b|importorskip|mark\.skip\b')


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ('CI', prereqs.STRICT_ENV, 'VNFM_SKIP_K8S'):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _outcome() -> str:
    try:
        prereqs.missing('no etcd', opt_out='VNFM_SKIP_K8S')
    except pytest.skip.Exception as e:
        return f'skip: {e.msg}'
    except pytest.fail.Exception as e:
        return f'fail: {e.msg}'
    raise AssertionError('missing() returned')


def test_developer_machine_skips(env: pytest.MonkeyPatch) -> None:
    assert _outcome() == 'skip: no etcd'


@pytest.mark.parametrize('var', ['CI', prereqs.STRICT_ENV])
def test_ci_and_run_tests_fail(env: pytest.MonkeyPatch, var: str) -> None:
    env.setenv(var, 'true' if var == 'CI' else '1')
    assert _outcome().startswith('fail: no etcd (a missing prerequisite')
    assert 'VNFM_SKIP_K8S=1 skips' in _outcome()


def test_opt_out_skips_under_run_tests(env: pytest.MonkeyPatch) -> None:
    env.setenv(prereqs.STRICT_ENV, '1')
    env.setenv('VNFM_SKIP_K8S', '1')
    assert _outcome() == 'skip: no etcd (VNFM_SKIP_K8S is set)'


def test_opt_out_is_refused_in_ci(env: pytest.MonkeyPatch) -> None:
    env.setenv('CI', 'true')
    env.setenv('VNFM_SKIP_K8S', '1')
    assert _outcome().endswith('VNFM_SKIP_K8S is set, which CI does not allow')


@pytest.mark.parametrize('value', ['', '0', 'false'])
def test_ci_false_is_not_ci(env: pytest.MonkeyPatch, value: str) -> None:
    env.setenv('CI', value)
    assert not prereqs.strict()


def test_every_skip_in_the_tree_is_known() -> None:
    # A new skip must follow the rule (call prereqs.missing) or be listed
    # here with why it is not about a missing prerequisite.
    found = {}
    for top in ('tests', 'vnfm_testbed'):
        for path in (ROOT / top).rglob('*.py'):
            rel = path.relative_to(ROOT).as_posix()
            count = len(_SKIP.findall(path.read_text()))
            if count and rel != 'tests/testbed/test_prereqs.py':
                found[rel] = count
    assert found == ALLOWED_SKIPS


def test_run_tests_requires_prerequisites() -> None:
    script = (ROOT / 'tools' / 'run-tests').read_text()
    assert f'export VNFM_REQUIRE_DBS=1 {prereqs.STRICT_ENV}=1' in script
    assert '${VNFM_SKIP_K8S:-0}' in script
