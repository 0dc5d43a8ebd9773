"""The data folder is the GM's alone: every key of every game is in it, in clear.

On POSIX the folder is created 0700 and every file in it 0600 (the database,
its WAL and shared-memory files, the secret key, pictures, repairs); a file
found open to the group or others is narrowed to its owner when tacmap opens
it (the owner's own bits are left as they are: a read-only file stays
read-only). On Windows nothing is changed: a file there inherits the access
list of the user's profile folder, and ``chmod`` only sets the read-only flag.
"""

from __future__ import annotations

import os
from pathlib import Path

POSIX = os.name == "posix"
FILE_MODE = 0o600
DIR_MODE = 0o700


def make_dir(path: Path) -> None:
    """``path`` and its missing parents; the folders made here are the owner's only."""
    path = Path(path)
    missing = []
    at = path
    while not at.exists() and at != at.parent:
        missing.append(at)
        at = at.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        if POSIX:
            os.chmod(folder, DIR_MODE)  # whatever the umask let through


def narrow(path: Path) -> None:
    """A file or folder open to the group or others becomes its owner's only (POSIX)."""
    if not POSIX:
        return
    try:
        mode = os.stat(path).st_mode & 0o777
        if mode & 0o077:
            os.chmod(path, mode & 0o700)
    except OSError:
        pass  # not ours to change: the checks that follow say what is wrong with it


def create_file(path: Path) -> None:
    """An empty file, the owner's only, unless it exists already (then it is narrowed)."""
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        narrow(path)


def sqlite_file(path: Path) -> None:
    """A SQLite database about to be opened: created (or narrowed to) 0600 first, with its WAL and
    shared-memory files, which take the database's permissions when SQLite creates them."""
    for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        narrow(extra)
    try:
        create_file(path)
    except OSError:
        pass  # SQLite's own error says what is wrong when it opens it


def opener(path, flags):
    """For ``open(..., opener=opener)``: a new file is created 0600."""
    return os.open(path, flags, FILE_MODE)


def write_bytes(path: Path, data: bytes) -> None:
    with open(path, "wb", opener=opener) as f:
        f.write(data)
