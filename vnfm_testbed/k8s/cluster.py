"""A real Kubernetes 1.20 control plane on loopback, with a fake kubelet."""

from __future__ import annotations

import json
import shutil
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vnfm_testbed import procs
from vnfm_testbed.k8s import certs
from vnfm_testbed.k8s import clusterfiles
from vnfm_testbed.k8s import daemons
from vnfm_testbed.k8s import k8sbuild

ADMIN_USER = 'vnfm-admin'
NOACCESS_USER = 'vnfm-noaccess'
DEFAULT_FAILING_IMAGES = (
    r'(^|/)[^/]*\.invalid(:\d+)?/|(^|/)no-such-image([:@]|$)'
)
# How often a daemon that exits while the cluster starts is started again.
MAX_RESTARTS = 3


class ClusterError(RuntimeError):
    """The local cluster failed to start or is not in the expected state."""


class DaemonFailed(ClusterError):
    """A daemon exited while the cluster started, and kept exiting."""

    def __init__(
        self, daemon: str, daemon_proc: procs.Daemon, restarts: int
    ) -> None:
        self.daemon = daemon
        self.returncode = daemon_proc.popen.returncode
        self.output_tail = daemon_proc.output_tail()
        super().__init__(
            f'{daemon} exited ({daemon_proc.exit_reason()}; restarted '
            f'{restarts} times); the end of {daemon_proc.log_path}:\n'
            f'{self.output_tail or "(empty)"}'
        )


class LocalCluster:
    """Runs etcd, the control plane and a simulated kubelet.

    Daemons it starts are judged alive by waiting on them (their exit
    status is kept); those of a cluster loaded from ``state.json`` by pid
    and start time. Each daemon leads a session: stopping it stops its
    process group and descendants.
    """

    def __init__(
        self,
        state_dir: str | Path,
        nodes: int = 2,
        pod_ready_delay: float = 0.2,
        failing_image_pattern: str = DEFAULT_FAILING_IMAGES,
        extra_users: Mapping[str, Sequence[str]] | None = None,
        name: str = 'vnfm',
        die_with_parent: bool = False,
    ) -> None:
        self.state_dir = Path(state_dir).resolve()
        self.nodes = nodes
        self.pod_ready_delay = pod_ready_delay
        self.failing_image_pattern = failing_image_pattern
        self.extra_users = dict(extra_users or {})
        self.name = name
        self.die_with_parent = die_with_parent
        # Daemons this process started, and every daemon's identity.
        self.daemons: dict[str, procs.Daemon] = {}
        self.procs: dict[str, procs.Proc] = {}
        self.restarts: dict[str, int] = {}
        self.complete = False
        self.ports: dict[str, int] = {}
        self.tokens: dict[str, str] = {}
        self.binaries: k8sbuild.K8sBinaries | None = None
        self.startup_seconds = 0.0

    # -- paths and facts ----------------------------------------------------

    @property
    def endpoint(self) -> str:
        """HTTPS URL of the API server."""
        return f'https://127.0.0.1:{self.ports["apiserver"]}'

    @property
    def ca_cert_path(self) -> Path:
        """PEM file of the cluster CA (signed the API server's cert)."""
        return self.state_dir / 'pki' / 'ca.crt'

    @property
    def kubeconfig_path(self) -> Path:
        """Kubeconfig for clients, with the admin token."""
        return self.state_dir / 'admin.kubeconfig'

    @property
    def token_file(self) -> Path:
        """The API server's static token file."""
        return self.state_dir / 'tokens.csv'

    @property
    def admin_token(self) -> str:
        """Bearer token of a system:masters user."""
        return self.tokens[ADMIN_USER]

    @property
    def pids(self) -> dict[str, int]:
        """Process id of each daemon."""
        return {d: p.pid for d, p in self.procs.items()}

    @property
    def kubectl(self) -> Path:
        """The kubectl 1.20 installed by tools/build-k8s.sh."""
        assert self.binaries is not None
        return self.binaries.kubectl

    def user_token(self, user: str) -> str:
        """Bearer token of a static user (``vnfm-noaccess`` has no rights)."""
        return self.tokens[user]

    def describe(self) -> dict[str, Any]:
        """JSON-able description of the running cluster."""
        return {
            'name': self.name,
            'endpoint': self.endpoint,
            'ca_cert_path': str(self.ca_cert_path),
            'bearer_token': self.admin_token,
            'kubeconfig_path': str(self.kubeconfig_path),
            'token_file': str(self.token_file),
            'kubectl': str(self.kubectl),
            'state_dir': str(self.state_dir),
            'nodes': self.nodes,
            'pids': dict(self.pids),
            'ports': dict(self.ports),
            'users': {
                u: t
                for u, t in self.tokens.items()
                if not u.startswith('system:')
            },
            'startup_seconds': round(self.startup_seconds, 2),
            'restarts': dict(self.restarts),
        }

    # -- lifecycle ----------------------------------------------------------

    def start(self, timeout: float = 60.0) -> LocalCluster:
        """Start everything, wait until Pods can run; a daemon that exits
        meanwhile is started again (up to MAX_RESTARTS times within
        ``timeout``); on failure stop every process it started."""
        if self.procs:
            raise ClusterError(f'cluster {self.name} is started already')
        self.binaries = k8sbuild.ensure_built()
        self.restarts = {}
        begin = time.monotonic()
        deadline = begin + timeout
        try:
            self._prepare()
            self._start_store_and_apiserver()
            # The scheduler and kubelet retry, so they start at once; the
            # controller manager gives up if /healthz is not OK within 10 s,
            # which a loaded machine can miss, so it waits for /readyz.
            self._start_scheduler_and_kubelet()
            self._wait(self._apiserver_ready, deadline, 'API server /readyz')
            self._spawn(
                'kube-controller-manager',
                daemons.controller_manager(self.binaries, self._layout()),
            )
            self._wait(
                lambda: self._has_token('default'),
                deadline,
                'default ServiceAccount token',
            )
            self._wait(
                self._nodes_ready, deadline, f'{self.nodes} Ready nodes'
            )
        except BaseException as e:
            left = self._stop_processes()
            if left:
                e.args = (*e.args, f'pids {left} survived SIGKILL')
            raise
        self.startup_seconds = time.monotonic() - begin
        self.complete = True
        self._save_state()
        return self

    def stop(self) -> None:
        """Stop all daemons with their process groups and descendants."""
        left = self._stop_processes()
        if left:
            raise ClusterError(f'pids {left} survived SIGKILL')

    def _stop_processes(self) -> list[int]:
        mine = list(self.daemons.values())
        others = [p for d, p in self.procs.items() if d not in self.daemons]
        left = procs.stop_daemons(mine, others=others)
        self.daemons.clear()
        self.procs.clear()
        self.complete = False
        state = self.state_dir / 'state.json'
        if state.exists():
            state.unlink()
        return left

    def running(self) -> bool:
        """Tell whether the cluster started and every daemon is alive."""
        return (
            self.complete
            and bool(self.procs)
            and all(self._alive(d) for d in self.procs)
        )

    def _alive(self, daemon: str) -> bool:
        if daemon in self.daemons:
            return self.daemons[daemon].running()
        return self.procs[daemon].alive()

    def memory_kib(self) -> dict[str, int]:
        """Resident memory of each daemon in KiB."""
        return {d: procs.rss_kib(pid) for d, pid in self.pids.items()}

    def __enter__(self) -> LocalCluster:
        return self if self.complete else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @classmethod
    def load(cls, state_dir: str | Path) -> LocalCluster:
        """Rebuild the handle of a cluster started by ``vnfm-localk8s up``."""
        data = json.loads((Path(state_dir) / 'state.json').read_text())
        cluster = cls(state_dir, nodes=data['nodes'], name=data['name'])
        cluster.procs = {
            d: procs.Proc(pid, start)
            for d, (pid, start) in data.get('procs', {}).items()
        }
        cluster.ports, cluster.tokens = data['ports'], data['tokens']
        cluster.complete = data.get('complete', False)
        cluster.restarts = data.get('restarts', {})
        cluster.startup_seconds = data.get('startup_seconds', 0.0)
        cluster.binaries = k8sbuild.K8sBinaries(
            Path(data['bin_dir']), Path(data['kubectl']), Path(data['etcd'])
        )
        return cluster

    # -- internals ----------------------------------------------------------

    def _save_state(self) -> None:
        assert self.binaries is not None
        data = {
            'name': self.name,
            'nodes': self.nodes,
            'complete': self.complete,
            'procs': {d: [p.pid, p.start] for d, p in self.procs.items()},
            'ports': self.ports,
            'tokens': self.tokens,
            'startup_seconds': self.startup_seconds,
            'restarts': self.restarts,
            'bin_dir': str(self.binaries.bin_dir),
            'kubectl': str(self.binaries.kubectl),
            'etcd': str(self.binaries.etcd),
        }
        # Renamed into place: `up` may be killed while it writes.
        path = self.state_dir / 'state.json'
        certs.write_private(
            path.with_suffix('.tmp'), json.dumps(data, indent=2).encode()
        )
        path.with_suffix('.tmp').replace(path)

    def _layout(self) -> daemons.Layout:
        return daemons.Layout(
            self.state_dir,
            etcd_port=self.ports['etcd'],
            etcd_peer_port=self.ports['etcd_peer'],
            apiserver_port=self.ports['apiserver'],
            **self._apiserver_addresses(),
        )

    def _apiserver_addresses(self) -> dict[str, str]:
        """The API server's advertised and bind addresses (Layout's
        defaults: loopback)."""
        return {}

    def _prepare(self) -> None:
        if self.state_dir.exists():
            shutil.rmtree(self.state_dir)
        (self.state_dir / 'logs').mkdir(parents=True)
        self.ports = self._choose_ports()
        clusterfiles.write_pki(
            self.state_dir / 'pki',
            f'{self.name}-localk8s-ca',
            self._serving_names(),
        )
        users = {
            ADMIN_USER: ['system:masters'],
            # All controllers share this identity (daemons.py says why).
            'system:kube-controller-manager': ['system:masters'],
            'system:kube-scheduler': [],
            'vnfm-sim-kubelet': ['system:masters'],
            NOACCESS_USER: [],
            **{u: list(g) for u, g in self.extra_users.items()},
        }
        self.tokens = clusterfiles.write_tokens(self.token_file, users)
        for file, user in (
            ('admin.kubeconfig', ADMIN_USER),
            ('cm.kubeconfig', 'system:kube-controller-manager'),
            ('scheduler.kubeconfig', 'system:kube-scheduler'),
            ('kubelet.kubeconfig', 'vnfm-sim-kubelet'),
        ):
            clusterfiles.write_kubeconfig(
                self.state_dir / file,
                self.name,
                self.endpoint,
                self.ca_cert_path,
                user,
                self.tokens[user],
            )

    def _choose_ports(self) -> dict[str, int]:
        """Ports of etcd and the API server: free ones on the host."""
        return {
            k: procs.free_port() for k in ('etcd', 'etcd_peer', 'apiserver')
        }

    def _serving_names(self) -> list[str]:
        """Names and addresses besides loopback in the API server's
        certificate."""
        return []

    def _spawn(
        self, daemon: str, argv: list[str], env: dict[str, str] | None = None
    ) -> None:
        log = self.state_dir / 'logs' / f'{daemon}.log'
        started = procs.Daemon(
            argv, log, env=env, die_with_parent=self.die_with_parent
        )
        self.daemons[daemon], self.procs[daemon] = started, started.proc
        # Recorded at once: `down` stops what a killed `up` left behind.
        self._save_state()

    def _start_store_and_apiserver(self) -> None:
        bins, lay = self.binaries, self._layout()
        assert bins is not None
        self._spawn('etcd', daemons.etcd(bins, lay))
        self._spawn('kube-apiserver', daemons.apiserver(bins, lay))

    def _start_scheduler_and_kubelet(self) -> None:
        bins, lay = self.binaries, self._layout()
        assert bins is not None
        self._spawn('kube-scheduler', daemons.scheduler(bins, lay))
        argv = daemons.kubelet(
            lay,
            self.nodes,
            self.name,
            self.pod_ready_delay,
            self.failing_image_pattern,
        )
        self._spawn('kubelet', argv, env=daemons.python_env())

    def _wait(self, predicate: Any, deadline: float, what: str) -> None:
        def check() -> bool:
            for daemon in list(self.procs):
                if not self._alive(daemon):
                    self._restart(daemon, deadline)
            return bool(predicate())

        if not procs.wait_for(
            check, max(0.0, deadline - time.monotonic()), interval=0.1
        ):
            raise ClusterError(
                f'timed out waiting for {what}; see {self.state_dir / "logs"}'
            )

    def _restart(self, daemon: str, deadline: float) -> None:
        """Start ``daemon`` again if the cluster is starting and it may."""
        dead = self.daemons.get(daemon)
        if dead is None:
            raise ClusterError(f'{daemon} (pid {self.pids[daemon]}) is gone')
        count = self.restarts.get(daemon, 0)
        if (
            self.complete
            or count >= MAX_RESTARTS
            or time.monotonic() >= deadline
        ):
            raise DaemonFailed(daemon, dead, count)
        self.restarts[daemon] = count + 1
        with open(dead.log_path, 'a') as log:
            log.write(
                f'--- vnfm-localk8s: {daemon} exited '
                f'({dead.exit_reason()}); restart {count + 1} ---\n'
            )
        self._spawn(daemon, dead.argv, env=dead.env)

    def get(self, path: str) -> tuple[int, bytes]:
        """GET ``path`` with the admin token: (status, body)."""
        return self.request('GET', path)

    def request(
        self, method: str, path: str, body: Any = None
    ) -> tuple[int, bytes]:
        """``method`` ``path`` with the admin token and ``body`` as JSON:
        (status, body); status 0 when the apiserver did not answer."""
        ctx = ssl.create_default_context(cafile=str(self.ca_cert_path))
        headers = {'Authorization': f'Bearer {self.admin_token}'}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers['Content-Type'] = 'application/json'
        req = urllib.request.Request(
            self.endpoint + path, data=data, headers=headers, method=method
        )
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=5) as resp:  # nosec B310
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return 0, b''

    def create_namespace(self, name: str, timeout: float = 30.0) -> str:
        """Create namespace ``name`` and wait until Pods can be created in
        it; its name.

        The ServiceAccount admission refuses Pods until the namespace's
        ``default`` ServiceAccount exists and has its token, and the
        controllers make both a moment after the namespace: until then the
        ServiceAccount is 404, which is waited out like a missing token.
        """
        status, body = self.request(
            'POST', '/api/v1/namespaces', {'metadata': {'name': name}}
        )
        if status != 201:
            raise ClusterError(
                f'creating namespace {name}: HTTP {status} {body[:200]!r}'
            )
        self._wait(
            lambda: self._has_token(name),
            time.monotonic() + timeout,
            f'the default ServiceAccount token of namespace {name}',
        )
        return name

    def _apiserver_ready(self) -> bool:
        return self.get('/readyz')[0] == 200

    def _has_token(self, namespace: str) -> bool:
        status, body = self.get(
            f'/api/v1/namespaces/{namespace}/serviceaccounts/default'
        )
        return status == 200 and bool(json.loads(body).get('secrets'))

    def _nodes_ready(self) -> bool:
        status, body = self.get('/api/v1/nodes')
        if status != 200:
            return False
        ready = [
            n
            for n in json.loads(body)['items']
            if not n['spec'].get('taints')
            and any(
                c['type'] == 'Ready' and c['status'] == 'True'
                for c in n.get('status', {}).get('conditions', [])
            )
        ]
        return len(ready) >= self.nodes
