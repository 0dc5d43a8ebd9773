"""The web app's layout (docs/DESIGN.md, "Layout"): packages by role, no import circle among its
modules, a game package that stays pure (no Flask, Socket.IO, Werkzeug or SQLite), so it can be read, tested and
reused without a server, and layers that hold at run time: web and live on game and storage, never back; storage
does file and database I/O only. The rule systems (rules/) sit under all of it: no web app, no server, no I/O.

An import counts wherever it is written, inside a function too (a lazy import hides a circle, it does not
remove it). The imports under ``if TYPE_CHECKING:`` never run, so they make no circle; they still point only
down the layers (a type-only import of the hub in storage is storage knowing the live side all the same). What
storage loads is also checked by importing it in a fresh interpreter: a dynamic import shows there."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEBAPP = ROOT / "webapp"
RULES = ROOT / "rules"
#: what the game package must not import: the web server, the live transport and the database
NOT_IN_GAME = ("flask", "flask_socketio", "flask_wtf", "flask_talisman", "socketio", "engineio",
               "simple_websocket", "werkzeug", "sqlite3", "jinja2", "markupsafe")
#: what the rule systems must not import: the web app, the web server, and the modules that reach files, databases,
#: processes or the network (they are handed everything they read, dice included)
NOT_IN_RULES = NOT_IN_GAME + ("webapp", "gevent", "psycopg", "socket", "ssl", "select", "selectors", "asyncio",
                              "http", "urllib", "requests", "os", "shutil", "subprocess", "tempfile", "pathlib",
                              "glob", "io", "mmap", "pickle", "shelve", "dbm", "zipfile", "tarfile")
#: the web app's layers, bottom first: a module imports only from its own layer or below
LAYERS = {"game": 0, "storage": 1, "live": 2, "web": 3}


def module_name(root: Path, path: Path) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST, types: bool = False):
    """Every Import and ImportFrom node that runs; those under ``if TYPE_CHECKING:`` only with ``types``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if not types and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def import_graph(root: Path, types: bool = False) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """``(edges, outside)``: for each module of the package at ``root``, the package's modules it imports
    and the top-level names of everything else it imports; ``types``: the type-only imports too."""
    paths = {module_name(root, p): p for p in root.rglob("*.py")}
    edges: dict[str, set[str]] = {m: set() for m in paths}
    outside: dict[str, set[str]] = {m: set() for m in paths}
    for mod, path in paths.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8")), types):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    (edges[mod].add(alias.name) if alias.name in paths else outside[mod].add(alias.name.split(".")[0]))
                continue
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base not in paths:
                outside[mod].add(base.split(".")[0])
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                edges[mod].add(sub if sub in paths else base)
    return edges, outside


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: the strongly connected groups of more than one module, or a module that imports
    itself (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in edges.get(v, ()):
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_module_of_the_web_app_is_in_an_import_circle():
    edges, _ = import_graph(WEBAPP)
    assert circles(edges) == []


def test_the_game_package_imports_no_web_server_transport_or_database():
    _, outside = import_graph(WEBAPP)
    found = {mod: sorted(names & set(NOT_IN_GAME)) for mod, names in outside.items()
             if mod.startswith("webapp.game") and names & set(NOT_IN_GAME)}
    assert found == {}


def test_a_feature_module_of_the_game_imports_the_model_never_the_command_table():
    edges, _ = import_graph(WEBAPP)
    assert sorted(m for m, targets in edges.items() if "webapp.game.table" in targets and m.startswith("webapp.game")) == []
    assert sorted(edges["webapp.game.core.model"]) == []  # the bottom: it imports nothing of the web app


def upward(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The imports that point up the layers (``LAYERS``): storage importing live, game importing storage..."""
    found = []
    for mod, targets in edges.items():
        here = mod.split(".")[1] if mod.count(".") else None
        for target in targets:
            there = target.split(".")[1] if target.count(".") else None
            if here in LAYERS and there in LAYERS and LAYERS[there] > LAYERS[here]:
                found.append((mod, target))
    return sorted(found)


def test_the_packages_depend_one_way_web_and_live_on_game_and_storage_never_back():
    edges, _ = import_graph(WEBAPP)
    assert upward(edges) == []


def test_a_type_only_import_points_down_the_layers_too():
    """Under ``if TYPE_CHECKING:`` as well: the game does not even name a type of storage, live or web, and
    storage none of live or web (a hub handed to storage to commit through is the live side's work in storage)."""
    edges, outside = import_graph(WEBAPP, types=True)
    assert upward(edges) == []
    assert {mod: sorted(names & set(NOT_IN_GAME)) for mod, names in outside.items()
            if mod.startswith("webapp.game") and names & set(NOT_IN_GAME)} == {}


def test_storage_loads_nothing_of_live_or_web_at_run_time():
    """Every module of webapp/storage imported in a fresh interpreter: no module of live or web is loaded, nor the
    web server's libraries (storage does file and database I/O only). A dynamic import (``importlib``), which
    the checks of the source do not see, shows here."""
    code = ("import importlib, pkgutil, sys\n"
            "import webapp.storage as storage\n"
            "for found in pkgutil.walk_packages(storage.__path__, 'webapp.storage.'):\n"
            "    importlib.import_module(found.name)\n"
            "print('\\n'.join(sorted(m for m in sys.modules if m.startswith(('webapp.live', 'webapp.web', 'flask',"
            " 'socketio', 'engineio', 'werkzeug', 'jinja2')))))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []


def test_the_rules_import_no_web_app_server_or_io():
    """rules/ is the rule systems alone: given a game's facts and dice, it answers; it never reaches the web app,
    a server, a file, a database or the network (type-only imports included)."""
    _, outside = import_graph(RULES, types=True)
    found = {mod: sorted(names & set(NOT_IN_RULES)) for mod, names in outside.items() if names & set(NOT_IN_RULES)}
    assert found == {}


def test_no_module_of_the_rules_is_in_an_import_circle():
    edges, _ = import_graph(RULES)
    assert circles(edges) == []


def test_the_top_of_the_web_app_keeps_at_most_a_dozen_modules():
    top = sorted(p.name for p in WEBAPP.glob("*.py"))
    assert len(top) <= 12, top
    assert {p.name for p in WEBAPP.iterdir() if (p / "__init__.py").is_file()} >= {"game", "live", "web", "storage"}


# --- the checks themselves catch what they are for -------------------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_lazy_import_inside_a_function_still_makes_a_circle(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from . import b\n",
        "b.py": "def f():\n    from .a import thing\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import D\n",
        "d.py": "from .c import x\n",
        "sub/__init__.py": "",
        "sub/e.py": "from .. import a\nfrom ..sub import f\n",
        "sub/f.py": "import pkg.sub.e\n",
    })
    edges, _ = import_graph(root)
    assert circles(edges) == [["pkg.a", "pkg.b"], ["pkg.sub.e", "pkg.sub.f"]]  # c <-> d only under TYPE_CHECKING


def test_the_purity_check_sees_a_lazy_flask_import(tmp_path):
    root = _package(tmp_path, {"__init__.py": "", "game.py": "import json\n\ndef page():\n    from flask import request\n"})
    _, outside = import_graph(root)
    assert outside["pkg.game"] == {"json", "flask"}


def test_the_layer_check_sees_a_type_only_import_up_the_layers(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "storage/__init__.py": "",
        "storage/pictures.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..live.hub import Hub\n",
        "live/__init__.py": "",
        "live/hub.py": "from ..storage import pictures\n",
    })
    assert upward(import_graph(root)[0]) == []  # it never runs: no circle, no run-time dependency
    assert upward(import_graph(root, types=True)[0]) == [("pkg.storage.pictures", "pkg.live.hub")]


def test_the_rules_check_sees_a_lazy_file_read_and_the_web_app(tmp_path):
    root = _package(tmp_path, {"__init__.py": "", "dice.py": "import random\n\ndef roll():\n    import os.path\n",
                               "sheet.py": "from webapp.game import model\n"})
    _, outside = import_graph(root, types=True)
    assert {m: names & set(NOT_IN_RULES) for m, names in outside.items() if names & set(NOT_IN_RULES)} == {
        "pkg.dice": {"os"}, "pkg.sheet": {"webapp"}}
