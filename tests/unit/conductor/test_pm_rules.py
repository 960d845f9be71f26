"""The conductors keep the rule directory in step with the PM jobs: a
file per job that promtool accepts, rewritten only when it changes,
removed with its job; Prometheus reloaded after a change, again next
round if it failed."""

from __future__ import annotations

import http.server
import shutil
import threading
from collections.abc import Iterator

import pytest

from tests.unit.server.fm_helpers import instance_with_vnfcs
from vnfm.conductor import pm_rules
from vnfm.db import pm as pm_db
from vnfm.db import registry
from vnfm_testbed import prereqs


class _Prometheus(http.server.BaseHTTPRequestHandler):
    statuses: list = []
    posts: list = []

    def do_POST(self):  # noqa: N802 (http.server API)
        self.posts.append(self.path)
        self.send_response(self.statuses.pop(0) if self.statuses else 200)
        self.send_header('Content-Length', '0')
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def rules(tmp_path, conf, db_url) -> Iterator:
    """A rule directory and a fake Prometheus, configured."""
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Prometheus)
    _Prometheus.statuses, _Prometheus.posts = [], []
    threading.Thread(
        target=server.serve_forever, args=(0.05,), daemon=True
    ).start()
    directory = tmp_path / 'rules'
    directory.mkdir()
    conf('rule_dir', str(directory), 'performance_management')
    conf(
        'prometheus_url',
        f'http://127.0.0.1:{server.server_address[1]}',
        'performance_management',
    )
    yield directory
    server.shutdown()
    server.server_close()


def _job(instance_id: str) -> dict:
    return pm_db.job_create(
        {
            'object_type': 'Vnf',
            'object_instance_ids': [instance_id],
            'criteria': {'collectionPeriod': 15, 'reportingPeriod': 30},
            'measurements': ['VCpuUsageMeanVnf', 'VMemoryUsageMeanVnf'],
        },
        {'callback_uri': 'http://198.18.0.1/cb', 'interface': registry.VNFPM},
    )


def test_jobs_and_thresholds_become_rule_files_promtool_accepts(rules, conf):
    if shutil.which('promtool') is None:
        prereqs.missing("Debian's prometheus (promtool) is not installed")
    conf('promtool', shutil.which('promtool'), 'performance_management')
    inst = instance_with_vnfcs()
    job = _job(inst['id'])
    threshold = pm_db.threshold_create(
        {
            'object_type': 'Vnf',
            'object_instance_id': inst['id'],
            'criteria': {
                'performanceMetric': 'VCpuUsageMeanVnf',
                'thresholdType': 'SIMPLE',
                'simpleThresholdDetails': {
                    'thresholdValue': 0.5,
                    'hysteresis': 0.1,
                },
            },
        },
        {'callback_uri': 'http://198.18.0.1/cb', 'interface': registry.VNFPM},
    )

    changed = pm_rules.RuleSync().round()

    path = rules / f'vnfm-pm-{job["id"]}.yaml'
    threshold_path = rules / f'vnfm-pm-threshold-{threshold["id"]}.yaml'
    assert changed
    assert 'function_type: vnfpm_threshold' in threshold_path.read_text()
    assert 'function_type: vnfpm' in path.read_text()
    assert _Prometheus.posts == ['/-/reload']


def test_only_changes_are_written_and_reloaded(rules, conf):
    conf('promtool', 'no-such-promtool', 'performance_management')
    sync = pm_rules.RuleSync()
    job = _job(instance_with_vnfcs()['id'])

    first, second = sync.round(), sync.round()
    pm_db.job_delete(job)
    third = sync.round()

    assert (first, second, third) == (True, False, True)
    assert list(rules.iterdir()) == []
    assert _Prometheus.posts == ['/-/reload', '/-/reload']


def test_a_refused_file_is_not_written(rules, conf, tmp_path):
    tool = tmp_path / 'promtool'
    tool.write_text('#!/bin/sh\necho "no" >&2; exit 1\n')
    tool.chmod(0o755)
    conf('promtool', str(tool), 'performance_management')
    _job(instance_with_vnfcs()['id'])

    changed = pm_rules.RuleSync().round()

    assert not changed
    assert list(rules.iterdir()) == []
    assert _Prometheus.posts == []


def test_a_failed_reload_is_tried_again_next_round(rules, conf):
    conf('promtool', 'no-such-promtool', 'performance_management')
    _Prometheus.statuses = [500]
    sync = pm_rules.RuleSync()
    _job(instance_with_vnfcs()['id'])

    sync.round()
    sync.round()
    sync.round()

    assert _Prometheus.posts == ['/-/reload', '/-/reload']


def test_without_a_rule_dir_nothing_is_done(conf, db_url):
    conf('rule_dir', None, 'performance_management')

    assert pm_rules.RuleSync().round() is False
