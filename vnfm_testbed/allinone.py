"""vnfm-all (API and conductor in one process, SQLite, the in-process bus)
as a test daemon that can be killed and started again on the same state.
"""

from __future__ import annotations

import base64
import os
import signal
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from vnfm_testbed import procs


class VnfmAll:
    """One vnfm-all on a state directory kept across restarts."""

    def __init__(
        self,
        workdir: Path,
        *,
        conf: dict[str, dict[str, object]] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.extra_conf = conf or {}
        self.env = {**os.environ, **(env or {})}
        self.env.pop('OS_TRANSPORT_URL', None)
        self.api_port = procs.free_port()
        self.crypto_key = base64.urlsafe_b64encode(os.urandom(32)).decode()
        self.log = self.workdir / 'vnfm-all.log'
        self.pid = 0
        # Hook processes (sessions of their own) left by a killed vnfm-all.
        self.orphans: list[procs.Proc] = []

    @property
    def api_url(self) -> str:
        """Root URL of the API."""
        return f'http://127.0.0.1:{self.api_port}'

    @property
    def database(self) -> Path:
        """The SQLite file in state_path."""
        return self.workdir / 'state' / 'vnfm.sqlite'

    def start(self, host: str, timeout: float = 60.0) -> None:
        """Start vnfm-all as conductor ``host``; wait until it answers."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        conf = self.workdir / f'{host}.conf'
        conf.write_text(procs.ini(self._sections(host)))
        self.pid = procs.spawn(
            [procs.bin_path('vnfm-all'), '--config-file', str(conf)],
            self.log,
            env=self.env,
            die_with_parent=True,
        )

        def ready() -> bool:
            if not procs.is_running(self.pid):
                raise RuntimeError(
                    'vnfm-all exited during start-up:\n' + self.log_tail()
                )
            return procs.api_answers(self.api_url)

        if not procs.wait_for(ready, timeout):
            raise RuntimeError(
                f'vnfm-all not ready after {timeout}s:\n' + self.log_tail()
            )

    def _sections(self, host: str) -> dict[str, dict[str, object]]:
        sections: dict[str, dict[str, object]] = {
            'DEFAULT': {'host': host, 'state_path': self.workdir / 'state'},
            'crypto': {'keys': self.crypto_key},
            'api': {'host_ip': '127.0.0.1', 'port': self.api_port},
            'conductor': dict(procs.FAST_LEASES),
            'infra': {'enabled_infra_drivers': 'noop'},
        }
        for section, opts in self.extra_conf.items():
            sections.setdefault(section, {}).update(opts)
        return sections

    def kill(self) -> None:
        """SIGKILL the process group; wait until it is gone."""
        self.orphans += procs.kill_group(self.pid, signal.SIGKILL)

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL if it lingers), and the hook
        processes a killed predecessor left."""
        procs.stop_all([self.pid] if self.pid else [], others=self.orphans)
        self.orphans = []

    def log_tail(self, lines: int = 60) -> str:
        """The last ``lines`` of its log."""
        return procs.tail(self.log, lines)

    def sql(self, query: str, params: Sequence[object] = ()) -> list[tuple]:
        """Run ``query`` on its SQLite database; return the rows."""
        with sqlite3.connect(self.database, timeout=10) as conn:
            return conn.execute(query, params).fetchall()
