"""The web app's layout (docs/DESIGN.md, "Layout"): packages by role, no import circle among its
modules, a game package that stays pure (no Flask, Socket.IO, Werkzeug or SQLite), so it can be read, tested and
reused without a server, and layers that hold at run time: web and live on game and storage, never back; storage
does file and database I/O only. The rule systems (rules/) sit under all of it: no web app, no server, no I/O.
Inside the game, rooms in one order (core, the bridge, the features, then views and planning; the command table
and the list of features on top), no folder of more than 20 modules and no file of more than 700 lines.

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
    assert sorted(edges["webapp.game.core.model"]) == []  # the bottom of core: it imports nothing of the web app


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


#: the most modules (``*.py`` but ``__init__.py``) one folder of the web app holds: past it, rooms by role
MAX_MODULES = 20
#: the most lines a file of the web app or of the rules holds (docs/DEVELOPING.md, "Conventions")
MAX_LINES = 700
#: the rule systems' files already longer when the limit came, each held to its length until it is split: one may
#: shrink (and leaves this list once within the limit), never grow, and no other file joins it
LONGER_ALREADY = {"rules/los.py": 1413, "rules/tesseris_ads/attack.py": 1334, "rules/phase_tn/turns.py": 1061,
                  "rules/savage_worlds/turns.py": 920, "rules/gurps_lite/attack.py": 870,
                  "rules/gurps_lite/turns.py": 815}
#: the game's rooms (docs/DESIGN.md "Layout"), bottom first, and the rooms each may import besides its own:
#: the features cross freely among themselves; views and planning stand on them and not on each other
GAME_ROOMS = {
    "core": set(),
    "bridge": {"core"},
    "fight": {"core", "bridge", "board", "tableside"},
    "board": {"core", "bridge", "fight", "tableside"},
    "tableside": {"core", "bridge", "fight", "board"},
    "views": {"core", "bridge", "fight", "board", "tableside"},
    "planning": {"core", "bridge", "fight", "board", "tableside"},
}
#: the game's top (``table``, built from ``features``): no room imports it
GAME_TOP = ("webapp.game.table", "webapp.game.features")


def crowded(root: Path, most: int = MAX_MODULES) -> dict[str, int]:
    """The folders of the package at ``root`` with more than ``most`` modules (``__init__.py`` not counted)."""
    counts = {}
    for folder in {root, *(p.parent for p in root.rglob("*.py"))}:
        n = sum(1 for p in folder.glob("*.py") if p.name != "__init__.py")
        if n > most:
            counts[folder.relative_to(root.parent).as_posix()] = n
    return counts


def long_files(roots: list[Path], most: int = MAX_LINES) -> dict[str, int]:
    """The files under ``roots`` over ``most`` lines, by their path from the checkout (``rules/los.py``)."""
    found = {}
    for root in roots:
        for path in root.rglob("*.py"):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > most:
                found[path.relative_to(root.parent).as_posix()] = n
    return found


def room_of(mod: str, game: str = "webapp.game") -> str | None:
    """The room of a module of the game (``webapp.game.fight.combat`` -> ``fight``); None for one on top."""
    rest = mod[len(game) + 1:].split(".") if mod.startswith(game + ".") else []
    return rest[0] if len(rest) > 1 else None


def against_the_rooms(edges: dict[str, set[str]], game: str = "webapp.game") -> list[tuple[str, str]]:
    """The imports of a room's module that go against the rooms' order (``GAME_ROOMS``): to a room it may not
    import, to the game package itself, or to the game's top (``GAME_TOP``)."""
    found = []
    top = {f"{game}.{name.rpartition('.')[2]}" for name in GAME_TOP}
    for mod, targets in edges.items():
        here = room_of(mod, game)
        if here is None:
            continue
        for target in targets:
            there = room_of(target, game)
            if target in top or target == game or (
                    there is not None and there != here and there not in GAME_ROOMS.get(here, set())):
                found.append((mod, target))
    return sorted(found)


def test_no_folder_of_the_web_app_holds_more_than_twenty_modules():
    assert crowded(WEBAPP) == {}


def test_no_file_of_the_web_app_or_the_rules_is_over_seven_hundred_lines():
    """No file of ``webapp/`` over ``MAX_LINES``; the rules' files listed in ``LONGER_ALREADY`` no longer than
    they were, and every other one within the limit."""
    found = long_files([WEBAPP, RULES])
    assert {path: n for path, n in found.items() if path not in LONGER_ALREADY} == {}
    assert {path: n for path, n in found.items() if n > LONGER_ALREADY[path]} == {}, "grown: split it instead"
    assert sorted(set(LONGER_ALREADY) - set(found)) == [], "within the limit now: take it off LONGER_ALREADY"


def test_the_game_rooms_point_one_way_core_bridge_features_then_views_and_planning():
    """docs/DESIGN.md "Layout": core imports nothing else of the game; the bridge only core; the features the
    bridge, core and each other; views and planning the features, the bridge and core, never each other; no room
    imports views or planning from below, nor the table or the list of features (type-only imports included).
    ``table`` itself, on top, may import any room."""
    edges, _ = import_graph(WEBAPP, types=True)
    assert {room_of(m) for m in edges} - {None} == set(GAME_ROOMS), "a room the order does not know"
    assert against_the_rooms(edges) == []


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


def test_the_size_checks_see_a_crowded_folder_and_a_long_file(tmp_path):
    root = _package(tmp_path, {"__init__.py": "", **{f"room/m{i}.py": "" for i in range(21)}, "room/__init__.py": "",
                               "short.py": "x = 1\n" * 3, "long.py": "x = 1\n" * 8})
    assert crowded(root) == {"pkg/room": 21}
    assert crowded(root, most=21) == {}
    assert long_files([root], most=5) == {"pkg/long.py": 8}


def test_the_rooms_check_sees_each_import_against_the_order(tmp_path):
    files = {"__init__.py": "", "table.py": "from .planning import plan\nfrom .fight import combat\n",
             "features.py": "from .views import recap\n"}
    for room in GAME_ROOMS:
        files[f"{room}/__init__.py"] = ""
    files.update({
        "core/model.py": "from ..bridge import fog\n",                         # core imports the bridge
        "bridge/fog.py": "from ..core import model\nfrom ..board import tokens\n",  # the bridge imports a feature
        "board/tokens.py": "from ..fight import combat\nfrom ..core.model import Game\n",
        "fight/combat.py": "from ..board import tokens\nfrom .. import table\n",  # the features cross; table: no
        "tableside/undo.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..views.recap import R\n",
        "views/recap.py": "from ..fight import combat\nfrom ..planning import plan\n",  # views import planning
        "planning/plan.py": "import pkg.features\nfrom ..bridge import fog\n",  # planning imports the list
    })
    root = _package(tmp_path, files)
    assert against_the_rooms(import_graph(root)[0], "pkg") == [
        ("pkg.bridge.fog", "pkg.board.tokens"), ("pkg.core.model", "pkg.bridge.fog"), ("pkg.fight.combat", "pkg.table"),
        ("pkg.planning.plan", "pkg.features"), ("pkg.views.recap", "pkg.planning.plan")]
    assert ("pkg.tableside.undo", "pkg.views.recap") in against_the_rooms(import_graph(root, types=True)[0], "pkg")


def _names_in_code(path: Path) -> set[str]:
    """The names a module's code reaches into (``name.something``; its comments and strings left out)."""
    import io
    import tokenize

    with path.open(encoding="utf-8") as f:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(f.read()).readline)
                  if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE)]
    return {t.string for i, t in enumerate(tokens[:-1]) if t.type == tokenize.NAME and tokens[i + 1].string == "."
            and (i == 0 or tokens[i - 1].string != ".")}


def test_the_command_table_and_the_hub_name_no_feature_module():
    """What a feature does around every command is declared in its FEATURE and read from the list (#66): the command
    table and the hub import from the game only the list, the model's room and the access matrix, and their code
    names no module of the features', the bridge's, the views' or planning's rooms."""
    edges, _ = import_graph(WEBAPP)
    allowed = ("webapp.game.features", "webapp.game.access", "webapp.game.table", "webapp.game.core")
    rooms = ("bridge", "fight", "board", "tableside", "views", "planning")
    modules = {p.stem for room in rooms for p in (WEBAPP / "game" / room).glob("*.py") if p.stem != "__init__"}
    for mod, path in (("webapp.game.table", WEBAPP / "game" / "table.py"), ("webapp.live.hub", WEBAPP / "live" / "hub.py")):
        reached = {t for t in edges[mod] if t.startswith("webapp.game") and not t.startswith(allowed)}
        assert reached == set(), f"{mod} imports {sorted(reached)}: declare it in the feature's FEATURE"
        named = _names_in_code(path) & modules
        assert named == set(), f"{path.name} names {sorted(named)}: declare it in the feature's FEATURE"
