"""How this process was started, and the commands to write for the person who started it (issue #71).

A GM who followed the README has one command, ``python3 scripts/tacmap-start`` (Windows: ``py -3
scripts\\tacmap-start``): it makes ``.venv`` inside the checkout and runs tacmap from there, and no ``tacmap`` is on
their PATH. So whatever tells someone what to type (the console's lines, ``--help``, the pages' refusals, the data
folder's repairs) names the command this process was started by:

- ``$TACMAP_LAUNCHER``, set by scripts/tacmap-start before it starts tacmap to how it was run (``python3
  scripts/tacmap-start``): options with no subcommand before them are serve's (``... --port 5001``), the other
  subcommands are named (``... export GAME FILE``), ``--setup EXTRA`` installs an extra of pyproject.toml;
- else the ``tacmap`` command (pyproject's script, the one-file build of packaging/tacmap_main.py): ``tacmap``, or
  the path it was started by when the PATH does not find that same file (``.venv/bin/tacmap``, ``./tacmap``);
- else ``python -m webapp.cli`` (or ``webapp.entry``) as it was run;
- else (tests, an app made in another program) ``tacmap``.

No Flask here: storage, the console and the pages all ask it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

#: the variable scripts/tacmap-start sets to how it was run
ENV = "TACMAP_LAUNCHER"
#: the ``-m`` modules that run the tacmap command
MODULES = ("webapp.cli", "webapp.entry")


def by_script() -> bool:
    """Whether a launcher that serves by default started this process ($TACMAP_LAUNCHER: scripts/tacmap-start)."""
    return bool(os.environ.get(ENV, "").strip())


def launcher() -> str:
    """The command that started this process, as its user types it: ``python3 scripts/tacmap-start``,
    ``tacmap``, ``.venv/bin/tacmap``, ``python3 -m webapp.cli``."""
    given = " ".join(os.environ.get(ENV, "").split())
    if given:
        return given
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if getattr(sys, "frozen", False):  # the one-file build: the file itself
        return _typed(argv0 or sys.executable)
    if os.path.basename(argv0).lower() in ("tacmap", "tacmap.exe", "tacmap-script.py"):  # the console script
        return _typed(argv0)
    for module in MODULES:
        if _runs(argv0, module):
            return f"{_typed(sys.executable)} -m {module}"
    return "tacmap"


def serve_command(*options: str) -> str:
    """The command that starts the server with ``options``: ``python3 scripts/tacmap-start --port 5001``,
    ``tacmap serve --port 5001``."""
    return " ".join([launcher(), *([] if by_script() else ["serve"]), *map(quoted, options)])


def command(name: str, *args: str) -> str:
    """The command that runs subcommand ``name`` with ``args``: ``python3 scripts/tacmap-start export ID FILE``,
    ``tacmap export ID FILE``."""
    if name == "serve":
        return serve_command(*args)
    return " ".join([launcher(), name, *map(quoted, args)])


def install_command(extra: str, alone: str) -> str:
    """How to install an optional part (an extra of pyproject.toml: ``redis``, ``postgresql``) where this tacmap
    runs: the start script's ``--setup EXTRA`` for its .venv, else pip (or ``alone``, the library by itself)."""
    if by_script():
        return f"{launcher()} --setup {extra}"
    return f"pip install 'tacmap[{extra}]' (or {alone})"


def quoted(word: str) -> str:
    """One word of a command as a shell takes it (quoted when it holds spaces or a shell's special characters)."""
    return subprocess.list2cmdline([word]) if os.name == "nt" else shlex.quote(word)


def _runs(argv0: str, module: str) -> bool:
    """Whether ``argv0`` is the file of ``module`` (what ``python -m module`` puts there)."""
    if not argv0:
        return False
    path = os.path.normcase(os.path.abspath(argv0))
    return path.endswith(os.path.normcase(os.path.join(*module.split("."))) + ".py")


def _same(found: str, path: str) -> bool:
    def plain(p: str) -> str:
        if os.name == "nt" and p.lower().endswith(".exe"):
            p = p[:-4]
        return os.path.normcase(os.path.realpath(p))

    return plain(found) == plain(path)


def _typed(path: str) -> str:
    """``path`` as its user types it: its bare name when the PATH finds that same file, else the path (relative to
    the current folder when it is inside it)."""
    name = os.path.basename(path)
    found = shutil.which(name)
    if found and _same(found, path):
        return quoted(name)
    full = os.path.abspath(path)
    try:
        shown = os.path.relpath(full)
    except ValueError:  # another drive (Windows)
        shown = full
    if shown.startswith(os.pardir):
        shown = full
    elif os.path.dirname(shown) == "":
        shown = os.path.join(os.curdir, shown)  # ./tacmap: a shell looks for a bare name on the PATH only
    return quoted(shown)
