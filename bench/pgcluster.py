"""A throwaway PostgreSQL cluster for the tests and the benchmarks: ``initdb`` in a temporary folder, ``pg_ctl``
on a random loopback port, removed at the end. Debian's binaries (``apt-get install postgresql``, in
/usr/lib/postgresql/<version>/bin; scripts/test installs them) or any ``initdb`` on PATH.

PostgreSQL refuses to run as root (CI runs as root): then the cluster runs as the ``postgres`` user that Debian's
package makes (``runuser -u postgres``), its folder handed to that user. ``database()`` gives each test a database
of its own, copied from an empty template (``CREATE DATABASE ... TEMPLATE``: milliseconds), so tests stay
independent and may run side by side.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

HOST = "127.0.0.1"


def binaries() -> Path | None:
    """The folder of initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found:
        real = Path(os.path.realpath(found)).parent
        if (real / "pg_ctl").exists():
            return real
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return Path(versions[-1]).parent if versions else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Cluster:
    """A running cluster; ``url(name)`` connects to a database of it as the superuser ``tacmap``."""

    def __init__(self, durable: bool = False) -> None:
        bin_dir = binaries()
        if bin_dir is None:
            raise RuntimeError("PostgreSQL is not installed (scripts/test installs Debian's postgresql package)")
        self.bin = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="tacmap-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.user = None
        if os.geteuid() == 0:  # PostgreSQL will not run as root: as Debian's postgres user, owning the folder
            self.user = "postgres"
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
            os.chmod(self.folder, 0o700)
        self._run("initdb", "-D", str(self.data), "-U", "tacmap", "--auth=trust", "-E", "UTF8", "--no-sync",
                  "--locale=C")
        # durable (the benchmarks): PostgreSQL's defaults, every commit flushed to disk. Otherwise (the tests:
        # nothing here survives the run, and a killed tacmap process is not a crashed machine) no flushes.
        settings = ["-c", f"port={self.port}", "-c", f"listen_addresses={HOST}",
                    "-c", f"unix_socket_directories={self.folder}", "-c", "max_connections=200"]
        if not durable:
            settings += ["-c", "fsync=off", "-c", "full_page_writes=off"]
        self._settings = " ".join(settings)
        self.start_server()
        self._template = None

    def start_server(self) -> None:
        """Start the server (again, after ``stop_server``), on the same port and data."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-t", "60",
                  "-o", self._settings, "start")

    def stop_server(self) -> None:
        """Stop the server as an administrator's restart does (``-m fast``: its connections are ended); the cluster
        stays, ``start_server`` brings it back."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def _run(self, tool: str, *args: str) -> None:
        argv = [str(self.bin / tool), *args]
        if self.user:
            argv = ["runuser", "-u", self.user, "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=self.folder)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed: {done.stdout}{done.stderr}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://tacmap@{HOST}:{self.port}/{database}"

    def _admin(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(statement)

    def database(self) -> str:
        """A new, empty database of its own (copied from a template made once): its URL."""
        if self._template is None:
            self._template = "tacmap_template"
            self._admin(f"CREATE DATABASE {self._template}")
        name = "t_" + uuid.uuid4().hex[:16]
        for attempt in range(50):  # a copy waits for nobody to be connected to the template
            try:
                self._admin(f"CREATE DATABASE {name} TEMPLATE {self._template}")
                break
            except Exception:
                if attempt == 49:
                    raise
                time.sleep(0.1)
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except RuntimeError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)
