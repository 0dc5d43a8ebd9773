"""Real servers and real Socket.IO clients on 127.0.0.1, for the live figures.

Every server is a subprocess on a random loopback port, killed when its ``with`` ends (errors
included) and at exit; every wait has a deadline; every client is closed before its server goes.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import socketio

REPO = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
_running: dict[int, subprocess.Popen] = {}


def _kill_all_at_exit() -> None:
    for proc in list(_running.values()):
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


atexit.register(_kill_all_at_exit)


def exit_cleanly_on_sigterm() -> None:
    """A SIGTERM unwinds like Ctrl-C (so every ``with`` kills its server) instead of ending at once."""
    def stop(signum, _frame):
        raise SystemExit(128 + signum)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)


_T0 = time.monotonic()


def progress(message: str) -> None:
    """A line on stderr, so the table on stdout stays clean."""
    print(f"[{time.monotonic() - _T0:6.1f} s] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Child:
    """A subprocess this run started: killed when its ``with`` ends, and at exit if it did not (``_running``)."""

    proc: subprocess.Popen | None = None

    def _track(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        _running[proc.pid] = proc

    def __exit__(self, *exc) -> None:
        self.kill()

    def kill(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
            _running.pop(self.proc.pid, None)


class Server(Child):
    """A server subprocess; ``with Server(...) as s``: started and answering, then killed."""

    def __init__(self, name: str, argv: list[str], port: int, ready_path: str) -> None:
        self.name, self.argv, self.port, self.ready_path = name, argv, port, ready_path
        self.url = f"http://{HOST}:{port}"
        self.proc: subprocess.Popen | None = None
        self._log = tempfile.TemporaryFile()

    @classmethod
    def tacmap(cls, data_dir: str, database: str | None = None) -> "Server":
        """tacmap on ``data_dir``; ``database``: its games in that PostgreSQL database instead (``--database``)."""
        port = free_port()
        return cls("tacmap", [sys.executable, "-m", "webapp.cli", "serve", "--host", HOST, "--port", str(port),
                              "--data-dir", data_dir, "--no-demo", "--dice-seed", "bench",
                              *(["--database", database] if database else [])], port, "/help/")

    @classmethod
    def bare(cls) -> "Server":
        port = free_port()
        return cls("bare broadcast", [sys.executable, str(REPO / "bench" / "bare_broadcast.py"),
                                      "--host", HOST, "--port", str(port)], port, "/")

    def __enter__(self) -> "Server":
        return self.start().ready()

    def start(self) -> "Server":
        """The process started, not waited for (``ready``): servers started together come up side by side."""
        env = dict(os.environ, PYTHONHASHSEED="0")
        self._track(subprocess.Popen(self.argv, cwd=REPO, stdout=self._log, stderr=subprocess.STDOUT, env=env))
        return self

    def ready(self) -> "Server":
        """Once it answers (30 s at most: then it is killed and this raises)."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.log()[-2000:]}")
            try:
                urllib.request.urlopen(self.url + self.ready_path, timeout=1).read()
                return self
            except OSError:
                time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"{self.name} did not answer in 30 s")

    def log(self) -> str:
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process so far (all its threads, ended ones too)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def api(self, method: str, path: str, body=None, token: str | None = None):
        req = urllib.request.Request(self.url + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")


def started(stack, *servers: Server) -> tuple[Server, ...]:
    """Start ``servers`` together (each ``kill``ed when ``stack``, an ExitStack, unwinds) and wait until each
    answers: they come up side by side instead of one after the other."""
    for server in servers:
        stack.callback(server.kill)
        server.start()
    return tuple(server.ready() for server in servers)


class Arrivals:
    """When each client first saw each change (``update`` with a new seq), on one clock."""

    def __init__(self) -> None:
        self.cond = threading.Condition()

    def wait(self, clients: list["Client"], seq: int, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not all(seq in c.seen for c in clients):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True


def sio_client() -> socketio.Client:
    """A benchmark's python-socketio client, not reconnecting, that reads the server's text frames without
    websocket-client's UTF-8 check: written in Python, it took 1.2 s of this process's CPU for each 3 MB update
    (every wall of the biggest map to a screen when fog goes off, #69: 6 s of the 7 s measured there were the
    benchmark's own), where a browser checks them in C. The server's frames are its JSON, valid UTF-8."""
    return socketio.Client(reconnection=False, websocket_extra_options={"skip_utf8_validation": True})


def in_arrival_order(sio: socketio.Client) -> socketio.Client:
    """Handle a client's messages in its reading thread, one at a time in arrival order, as a page does
    (one JS thread). python-socketio starts a thread per message by default, which can reorder them and
    costs the benchmark's process a thread start per message it receives."""
    trigger_event = sio.eio._trigger_event

    def trigger(event, *args, **kwargs):
        if event == "message":
            kwargs["run_async"] = False
        return trigger_event(event, *args, **kwargs)

    sio.eio._trigger_event = trigger
    return sio


class Client:
    """One screen: a python-socketio client that notes the time and size of each change it is sent."""

    def __init__(self, url: str, auth: dict, arrivals: Arrivals, language: str | None = None) -> None:
        self.url, self.auth, self.arrivals = url, auth, arrivals
        self.language = language  # the device's Accept-Language (#37: updates are drawn per language)
        self.seen: dict[int, tuple[float, int]] = {}  # seq -> (perf_counter, bytes of html)
        self.changes = 0  # updates that brought changes (one may cover several seqs)
        self.sio = in_arrival_order(sio_client())
        self.sio.on("update", self._update)

    def _update(self, data) -> None:
        t = time.perf_counter()
        seq, before = data.get("seq"), data.get("from_seq")
        if before is None or before == seq or seq in self.seen:  # a fresh copy or presence: not a change
            return
        with self.arrivals.cond:
            self.changes += 1
            # commands stored together (one commit) come as one update from from_seq to seq: each has arrived
            for s in range(max(before + 1, seq - 1000), seq + 1):
                self.seen.setdefault(s, (t, len(data.get("html", ""))))
            self.arrivals.cond.notify_all()

    def connect(self) -> "Client":
        headers = {"Accept-Language": self.language} if self.language else {}
        self.sio.connect(self.url, auth=self.auth, transports=["websocket"], wait_timeout=15, headers=headers)
        return self

    def call(self, payload: dict, timeout: float = 15.0):
        return self.sio.call("command", payload, timeout=timeout)

    def close(self) -> None:
        try:
            self.sio.disconnect()
        except Exception:  # the server may be gone already
            pass


class Loop:
    """One asyncio event loop in a thread of its own, for many cheap screens (``AsyncClient``)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="bench-screens", daemon=True)
        self.thread.start()

    def run(self, coro, timeout: float = 15.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        """Cancel what still runs on the loop (the tasks of screens whose server went first), then stop and close
        it: a loop dropped with tasks pending prints "Task was destroyed but it is pending!" and tracebacks."""
        async def cancel_the_rest():
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        if self.loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(cancel_the_rest(), self.loop).result(5)
            except Exception:  # noqa: BLE001 (what could not be cancelled in time goes with the loop)
                pass
            self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.thread.is_alive() and not self.loop.is_closed():
            self.loop.close()


def aiohttp_missing() -> str | None:
    """Why ``AsyncClient`` cannot run here (aiohttp, the bench extra, not installed), or None."""
    try:
        import aiohttp  # noqa: F401  (python-socketio's AsyncClient speaks websocket through it)
    except ImportError:
        return "the asyncio screens need aiohttp: pip install -e '.[bench]'"
    return None


class AsyncClient(Client):
    """A screen as ``Client``, but python-socketio's ``AsyncClient`` (aiohttp's websocket) on a shared
    event loop: a message costs the benchmark's process a few tens of microseconds instead of a thread
    switch and websocket-client's pure-Python frame reading, so ten or fifty screens do not take the
    core the server needs. Used where the figure is the server's capacity (throughput), not a page's
    latency."""

    def __init__(self, url: str, auth: dict, arrivals: Arrivals, loop: Loop) -> None:
        missing = aiohttp_missing()
        if missing:
            raise RuntimeError(missing)
        self.url, self.auth, self.arrivals, self.loop = url, auth, arrivals, loop
        self.seen = {}
        self.changes = 0
        self.sio = socketio.AsyncClient(reconnection=False)
        self.sio.on("update", self._on_update)

    async def _on_update(self, data) -> None:
        self._update(data)

    def connect(self) -> "AsyncClient":
        self.loop.run(self.sio.connect(self.url, auth=self.auth, transports=["websocket"], wait_timeout=15))
        return self

    def call(self, payload: dict, timeout: float = 15.0):
        return self.loop.run(self.sio.call("command", payload, timeout=timeout), timeout + 1)

    def close(self) -> None:
        try:
            self.loop.run(self.sio.disconnect(), 5)
        except Exception:  # the server may be gone already
            pass


def connect_all(clients: list[Client]) -> list[Client]:
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda c: c.connect(), clients))
    return clients


def close_all(clients: list[Client]) -> None:
    """Disconnect them all at once: websocket-client waits up to 3 s for each close handshake."""
    if clients:
        with ThreadPoolExecutor(len(clients)) as pool:
            list(pool.map(lambda c: c.close(), clients))


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of the values."""
    s = sorted(values)
    return s[max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))]
