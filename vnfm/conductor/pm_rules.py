"""Keep ``[performance_management] rule_dir`` in step with the PM jobs:
one Prometheus rule file per job (``vnfm-pm-<job id>.yaml``) and per
threshold (``vnfm-pm-threshold-<id>.yaml``), see
``vnfm.objects.pm_rules``, rewritten when it or its instance's Pods
change, removed with it; then Prometheus reloads.

Each conductor runs a round every ``rule_sync_interval`` seconds; a round
only writes what differs, so several conductors sharing the directory
agree. A file is checked by promtool (when it is found) before it
replaces the one Prometheus reads, and is swapped in whole (rename).
A reload that failed is tried again next round.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from vnfm.clients import prometheus
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import pm as pm_db
from vnfm.objects import pm_rules

LOG = logging.getLogger(__name__)

PREFIX = 'vnfm-pm-'


class RuleSync:
    """The rule files of one conductor process."""

    def __init__(self) -> None:
        self._reload_pending = False
        self._warned_no_promtool = False

    def round(self) -> bool:
        """Make the rule directory match the PM jobs; whether it changed."""
        conf = CONF.performance_management
        if not conf.rule_dir:
            return False
        directory = Path(conf.rule_dir)
        wanted = rule_files()
        changed = False
        for name, text in wanted.items():
            changed |= self._write(directory / name, text)
        for path in directory.glob(f'{PREFIX}*.yaml'):
            if path.name not in wanted:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    LOG.info('PM rule file %s removed', path)
                    changed = True
        self._reload_pending |= changed
        if self._reload_pending and conf.prometheus_url:
            self._reload(conf.prometheus_url, conf.reload_timeout)
        return changed

    def _write(self, path: Path, text: str) -> bool:
        with contextlib.suppress(FileNotFoundError):
            if path.read_text() == text:
                return False
        fd, temp = tempfile.mkstemp(prefix='.', dir=path.parent)
        try:
            with os.fdopen(fd, 'w') as out:
                out.write(text)
            self._check(temp)
            os.chmod(temp, 0o644)  # Prometheus runs as another user
            os.replace(temp, path)
        except prometheus.PrometheusError as e:
            LOG.error('PM rule file %s not written: %s', path, e)
            return False
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
        LOG.info('PM rule file %s written', path)
        return True

    def _check(self, temp: str) -> None:
        conf = CONF.performance_management
        tool = prometheus.promtool(conf.promtool)
        if tool is None:
            if not self._warned_no_promtool:
                LOG.warning(
                    'promtool (%s) not found: PM rule files are written '
                    'unchecked',
                    conf.promtool,
                )
                self._warned_no_promtool = True
            return
        prometheus.check_rules(tool, temp, conf.reload_timeout)

    def _reload(self, url: str, timeout: float) -> None:
        try:
            prometheus.reload(url, timeout)
        except prometheus.PrometheusError as e:
            LOG.warning('%s; tried again next round', e)
            return
        self._reload_pending = False


def rule_files() -> dict[str, str]:
    """The rule files of the PM jobs and thresholds, by file name."""
    instances: dict[str, Any] = {}

    def instance(instance_id: str) -> Any:
        if instance_id not in instances:
            try:
                instances[instance_id] = db.instance_get(instance_id)
            except exceptions.NotFound:
                instances[instance_id] = None  # gone: no rules
        return instances[instance_id]

    files = {}
    for job in pm_db.job_list():
        present = {
            i: instance(i)
            for i in job['object_instance_ids']
            if instance(i) is not None
        }
        group = pm_rules.rule_group(job, present)
        files[f'{PREFIX}{job["id"]}.yaml'] = _dump(group)
    interval = CONF.performance_management.threshold_interval
    for threshold in pm_db.threshold_list():
        found = instance(threshold['object_instance_id'])
        if found is not None:
            group = pm_rules.threshold_group(threshold, found, interval)
            files[f'{PREFIX}threshold-{threshold["id"]}.yaml'] = _dump(group)
    return files


def _dump(group: dict) -> str:
    return yaml.safe_dump(group, sort_keys=False, width=1000)
