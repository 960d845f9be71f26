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

from vnfm.testing import certs
from vnfm.testing import clusterfiles
from vnfm.testing import daemons
from vnfm.testing import k8sbuild
from vnfm.testing import procs

ADMIN_USER = "vnfm-admin"
NOACCESS_USER = "vnfm-noaccess"
DEFAULT_FAILING_IMAGES = (
    r"(^|/)[^/]*\.invalid(:\d+)?/|(^|/)no-such-image([:@]|$)"
)
_DAEMONS = (
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kubelet",
)


class ClusterError(RuntimeError):
    """The local cluster failed to start or is not in the expected state."""


class LocalCluster:
    """Runs etcd, the control plane and a simulated kubelet; stops by pid."""

    def __init__(
        self,
        state_dir: str | Path,
        nodes: int = 2,
        pod_ready_delay: float = 0.2,
        failing_image_pattern: str = DEFAULT_FAILING_IMAGES,
        extra_users: Mapping[str, Sequence[str]] | None = None,
        name: str = "vnfm",
        die_with_parent: bool = False,
    ) -> None:
        self.state_dir = Path(state_dir).resolve()
        self.nodes = nodes
        self.pod_ready_delay = pod_ready_delay
        self.failing_image_pattern = failing_image_pattern
        self.extra_users = dict(extra_users or {})
        self.name = name
        self.die_with_parent = die_with_parent
        self.pids: dict[str, int] = {}
        self.ports: dict[str, int] = {}
        self.tokens: dict[str, str] = {}
        self.binaries: k8sbuild.K8sBinaries | None = None
        self.startup_seconds = 0.0

    # -- paths and facts ----------------------------------------------------

    @property
    def endpoint(self) -> str:
        """HTTPS URL of the API server."""
        return f"https://127.0.0.1:{self.ports['apiserver']}"

    @property
    def ca_cert_path(self) -> Path:
        """PEM file of the cluster CA (signed the API server's cert)."""
        return self.state_dir / "pki" / "ca.crt"

    @property
    def kubeconfig_path(self) -> Path:
        """Kubeconfig for clients, with the admin token."""
        return self.state_dir / "admin.kubeconfig"

    @property
    def token_file(self) -> Path:
        """The API server's static token file."""
        return self.state_dir / "tokens.csv"

    @property
    def admin_token(self) -> str:
        """Bearer token of a system:masters user."""
        return self.tokens[ADMIN_USER]

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
            "name": self.name,
            "endpoint": self.endpoint,
            "ca_cert_path": str(self.ca_cert_path),
            "bearer_token": self.admin_token,
            "kubeconfig_path": str(self.kubeconfig_path),
            "token_file": str(self.token_file),
            "kubectl": str(self.kubectl),
            "state_dir": str(self.state_dir),
            "nodes": self.nodes,
            "pids": dict(self.pids),
            "ports": dict(self.ports),
            "users": {
                u: t
                for u, t in self.tokens.items()
                if not u.startswith("system:")
            },
            "startup_seconds": round(self.startup_seconds, 2),
        }

    # -- lifecycle ----------------------------------------------------------

    def start(self, timeout: float = 60.0) -> LocalCluster:
        """Start everything, wait until Pods can run; stop all on failure."""
        self.binaries = k8sbuild.ensure_built()
        begin = time.monotonic()
        deadline = begin + timeout
        try:
            self._prepare()
            self._start_store_and_apiserver()
            # The scheduler and kubelet retry, so they start at once; the
            # controller manager gives up if /healthz is not OK within 10 s,
            # which a loaded machine can miss, so it waits for /readyz.
            self._start_scheduler_and_kubelet()
            self._wait(self._apiserver_ready, deadline, "API server /readyz")
            self._spawn(
                "kube-controller-manager",
                daemons.controller_manager(self.binaries, self._layout()),
            )
            self._wait(
                lambda: self._has_token("default"),
                deadline,
                "default ServiceAccount token",
            )
            self._wait(
                self._nodes_ready, deadline, f"{self.nodes} Ready nodes"
            )
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - begin
        self._save_state()
        return self

    def stop(self) -> None:
        """Stop all daemons (kubelet first, etcd last)."""
        for daemon in reversed(_DAEMONS):
            pid = self.pids.get(daemon)
            if pid:
                procs.stop(pid, daemons.marker(daemon))
        self.pids.clear()
        state = self.state_dir / "state.json"
        if state.exists():
            state.unlink()

    def running(self) -> bool:
        """Tell whether every daemon is still alive."""
        return bool(self.pids) and all(
            procs.is_running(pid, daemons.marker(d))
            for d, pid in self.pids.items()
        )

    def memory_kib(self) -> dict[str, int]:
        """Resident memory of each daemon in KiB."""
        return {d: procs.rss_kib(pid) for d, pid in self.pids.items()}

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @classmethod
    def load(cls, state_dir: str | Path) -> LocalCluster:
        """Rebuild the handle of a cluster started by ``vnfm-localk8s up``."""
        data = json.loads((Path(state_dir) / "state.json").read_text())
        cluster = cls(state_dir, nodes=data["nodes"], name=data["name"])
        cluster.pids, cluster.ports, cluster.tokens = (
            data["pids"],
            data["ports"],
            data["tokens"],
        )
        cluster.startup_seconds = data.get("startup_seconds", 0.0)
        cluster.binaries = k8sbuild.K8sBinaries(
            Path(data["bin_dir"]), Path(data["kubectl"]), Path(data["etcd"])
        )
        return cluster

    # -- internals ----------------------------------------------------------

    def _save_state(self) -> None:
        assert self.binaries is not None
        data = {
            "name": self.name,
            "nodes": self.nodes,
            "pids": self.pids,
            "ports": self.ports,
            "tokens": self.tokens,
            "startup_seconds": self.startup_seconds,
            "bin_dir": str(self.binaries.bin_dir),
            "kubectl": str(self.binaries.kubectl),
            "etcd": str(self.binaries.etcd),
        }
        path = self.state_dir / "state.json"
        certs.write_private(path, json.dumps(data, indent=2).encode())

    def _layout(self) -> daemons.Layout:
        return daemons.Layout(
            self.state_dir,
            etcd_port=self.ports["etcd"],
            etcd_peer_port=self.ports["etcd_peer"],
            apiserver_port=self.ports["apiserver"],
        )

    def _prepare(self) -> None:
        if self.state_dir.exists():
            shutil.rmtree(self.state_dir)
        (self.state_dir / "logs").mkdir(parents=True)
        self.ports = {
            k: procs.free_port() for k in ("etcd", "etcd_peer", "apiserver")
        }
        clusterfiles.write_pki(
            self.state_dir / "pki", f"{self.name}-localk8s-ca"
        )
        users = {
            ADMIN_USER: ["system:masters"],
            # All controllers share this identity (daemons.py says why).
            "system:kube-controller-manager": ["system:masters"],
            "system:kube-scheduler": [],
            "vnfm-sim-kubelet": ["system:masters"],
            NOACCESS_USER: [],
            **{u: list(g) for u, g in self.extra_users.items()},
        }
        self.tokens = clusterfiles.write_tokens(self.token_file, users)
        for file, user in (
            ("admin.kubeconfig", ADMIN_USER),
            ("cm.kubeconfig", "system:kube-controller-manager"),
            ("scheduler.kubeconfig", "system:kube-scheduler"),
            ("kubelet.kubeconfig", "vnfm-sim-kubelet"),
        ):
            clusterfiles.write_kubeconfig(
                self.state_dir / file,
                self.name,
                self.endpoint,
                self.ca_cert_path,
                user,
                self.tokens[user],
            )

    def _spawn(
        self, daemon: str, argv: list[str], env: dict[str, str] | None = None
    ) -> None:
        log = self.state_dir / "logs" / f"{daemon}.log"
        self.pids[daemon] = procs.spawn(
            argv, log, env=env, die_with_parent=self.die_with_parent
        )

    def _start_store_and_apiserver(self) -> None:
        bins, lay = self.binaries, self._layout()
        assert bins is not None
        self._spawn("etcd", daemons.etcd(bins, lay))
        self._spawn("kube-apiserver", daemons.apiserver(bins, lay))

    def _start_scheduler_and_kubelet(self) -> None:
        bins, lay = self.binaries, self._layout()
        assert bins is not None
        self._spawn("kube-scheduler", daemons.scheduler(bins, lay))
        argv = daemons.kubelet(
            lay,
            self.nodes,
            self.name,
            self.pod_ready_delay,
            self.failing_image_pattern,
        )
        self._spawn("kubelet", argv, env=daemons.python_env())

    def _wait(self, predicate: Any, deadline: float, what: str) -> None:
        def check() -> bool:
            dead = [
                d
                for d, pid in self.pids.items()
                if not procs.is_running(pid, daemons.marker(d))
            ]
            if dead:
                raise ClusterError(
                    f"{', '.join(dead)} exited; see {self.state_dir / 'logs'}"
                )
            return bool(predicate())

        if not procs.wait_for(
            check, max(0.0, deadline - time.monotonic()), interval=0.1
        ):
            raise ClusterError(
                f"timed out waiting for {what}; see {self.state_dir / 'logs'}"
            )

    def get(self, path: str) -> tuple[int, bytes]:
        """GET ``path`` with the admin token: (status, body)."""
        return self.request("GET", path)

    def request(
        self, method: str, path: str, body: Any = None
    ) -> tuple[int, bytes]:
        """``method`` ``path`` with the admin token and ``body`` as JSON:
        (status, body); status 0 when the apiserver did not answer."""
        ctx = ssl.create_default_context(cafile=str(self.ca_cert_path))
        headers = {"Authorization": f"Bearer {self.admin_token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(
            self.endpoint + path, data=data, headers=headers, method=method
        )
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=5) as resp:  # nosec B310
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return 0, b""

    def create_namespace(self, name: str, timeout: float = 30.0) -> str:
        """Create namespace ``name`` and wait until Pods can be created in
        it; its name.

        The ServiceAccount admission refuses Pods until the namespace's
        ``default`` ServiceAccount exists and has its token, and the
        controllers make both a moment after the namespace: until then the
        ServiceAccount is 404, which is waited out like a missing token.
        """
        status, body = self.request(
            "POST", "/api/v1/namespaces", {"metadata": {"name": name}}
        )
        if status != 201:
            raise ClusterError(
                f"creating namespace {name}: HTTP {status} {body[:200]!r}"
            )
        self._wait(
            lambda: self._has_token(name),
            time.monotonic() + timeout,
            f"the default ServiceAccount token of namespace {name}",
        )
        return name

    def _apiserver_ready(self) -> bool:
        return self.get("/readyz")[0] == 200

    def _has_token(self, namespace: str) -> bool:
        status, body = self.get(
            f"/api/v1/namespaces/{namespace}/serviceaccounts/default"
        )
        return status == 200 and bool(json.loads(body).get("secrets"))

    def _nodes_ready(self) -> bool:
        status, body = self.get("/api/v1/nodes")
        if status != 200:
            return False
        ready = [
            n
            for n in json.loads(body)["items"]
            if not n["spec"].get("taints")
            and any(
                c["type"] == "Ready" and c["status"] == "True"
                for c in n.get("status", {}).get("conditions", [])
            )
        ]
        return len(ready) >= self.nodes
