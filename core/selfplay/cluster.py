"""Self-play on a dask.distributed cluster instead of this machine's process pool.

The runner takes any ``concurrent.futures.Executor``; this module supplies one backed by a dask scheduler
(``tcp://host:8786``, ``tls://...``) or by a :class:`distributed.LocalCluster` started here (``local:N``). Dask is
an optional extra (``pip install 'lits-board-studio[cluster]'``): nothing here imports it until a cluster is used.

Correctness on a cluster rests on three choices:
- submissions are not pure (``pure=False``): two identical game tasks must both run, never share one result;
- every worker loads the compiled engine once when it joins (a worker plugin), not once per task;
- results depend only on each task's seed, so a game re-run elsewhere after a worker died gives the same result.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

ENV_VAR = "LITS_CLUSTER"
INSTALL_HINT = "install the cluster extra: python3 -m pip install 'lits-board-studio[cluster]'"
_LOCAL_RE = re.compile(r"local(?::(\d+))?")
_REMOTE_RE = re.compile(r"(tcp|tls|ucx|inproc)://[^\s/]+(:\d+)?/?")
MAX_LOCAL_WORKERS = 256


class ClusterError(ValueError):
    """A cluster address that cannot be used, said in one line for the user."""


@dataclass(frozen=True)
class ClusterSpec:
    """``local`` with a worker count, or the address of a running scheduler."""

    address: str | None
    local_workers: int = 0

    @property
    def is_local(self) -> bool:
        return self.address is None

    def describe(self) -> str:
        return f"a local dask cluster of {self.local_workers} workers" if self.is_local else f"dask at {self.address}"


def parse_cluster(text: str) -> ClusterSpec:
    """``local``, ``local:N`` or ``tcp://host:port`` (also ``tls://``); anything else is refused with the forms."""
    value = text.strip()
    local = _LOCAL_RE.fullmatch(value)
    if local:
        n = int(local.group(1)) if local.group(1) else (os.cpu_count() or 1)
        if not 1 <= n <= MAX_LOCAL_WORKERS:
            raise ClusterError(f"cannot use cluster {text!r}: a local cluster has 1 to {MAX_LOCAL_WORKERS} workers, "
                               f"not {n}")
        return ClusterSpec(None, n)
    if _REMOTE_RE.fullmatch(value):
        return ClusterSpec(value.rstrip("/"))
    raise ClusterError(f"cannot use cluster {text!r}: give local:N (N workers on this machine) "
                       "or a scheduler address such as tcp://10.0.0.5:8786")


def cluster_from(arg: str | None) -> ClusterSpec | None:
    """The ``--cluster`` argument, else ``$LITS_CLUSTER``, else None (this machine's process pool)."""
    text = arg if arg else os.environ.get(ENV_VAR, "").strip()
    return parse_cluster(text) if text else None


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"dask.distributed is not installed; {INSTALL_HINT}") from None
    return distributed


def _warm_worker_engine() -> None:
    """Load (or compile) the kernels in this worker process before its first game."""
    from core.selfplay.worker import warm_up

    warm_up()


class _EngineWarmUp:
    """Worker plugin: each worker loads the compiled engine once, when it starts (or joins later)."""

    name = "lits-engine-warm-up"
    idempotent = True

    def setup(self, worker: Any) -> None:
        _warm_worker_engine()

    def teardown(self, worker: Any) -> None:
        return None


class DaskSession:
    """A connected client with its executor; a context manager that also stops a cluster it started itself."""

    def __init__(self, spec: ClusterSpec, connect_timeout: float = 30.0) -> None:
        distributed = _import_distributed()
        self.spec = spec
        self._cluster: Any = None
        try:
            if spec.is_local:
                self._cluster = distributed.LocalCluster(
                    n_workers=spec.local_workers, threads_per_worker=1, processes=True,
                    host="127.0.0.1", dashboard_address=None, silence_logs=40)
                address = self._cluster.scheduler_address
            else:
                address = spec.address
            self.client = distributed.Client(address, timeout=connect_timeout, set_as_default=False)
        except OSError as exc:
            self.close()
            raise ClusterError(f"cannot reach the dask scheduler at {spec.address}: {exc}") from None
        plugin_cls = type("EngineWarmUp", (_EngineWarmUp, distributed.WorkerPlugin), {})
        self.client.register_plugin(plugin_cls())
        self.executor: cf.Executor = self.client.get_executor(pure=False)

    def worker_count(self) -> int:
        """Threads across the cluster: how many games can run at once."""
        info = self.client.scheduler_info()
        return max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def __enter__(self) -> DaskSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


CLUSTER_HELP = ("run the games on a dask cluster: local:N starts N worker processes here, tcp://HOST:8786 uses a "
                f"running scheduler (default: ${ENV_VAR}, else this machine's process pool)")


@contextmanager
def cluster_executor(arg: str | None) -> Iterator[tuple[cf.Executor | None, int]]:
    """``(executor, worker threads)`` for ``--cluster``/``$LITS_CLUSTER``, or ``(None, 0)`` for the local pool."""
    spec = cluster_from(arg)
    if spec is None:
        yield None, 0
        return
    with DaskSession(spec) as session:
        yield session.executor, session.worker_count()
