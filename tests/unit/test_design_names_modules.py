"""docs/DESIGN.md's "Layout" names every module of the web app, in its room, and names none that is gone.

The convention the layout block keeps (its first fenced block): a line whose first word ends in ``/`` opens that
folder, inside the last folder opened above it with less indentation; every other line, and the rest of a
folder's own line, belongs to the last folder opened above it with less indentation. A module is named as
``name.py`` on a line of its own folder; a name written with a path before it (``webapp/entry.py``) is a
mention, not a naming. Only the ``webapp/`` part is checked, and ``__init__.py`` is left out on both sides."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "DESIGN.md"
WEBAPP = ROOT / "webapp"
#: ``name.py`` standing alone: not after a ``/`` (a path) or a dot
NAME = re.compile(r"(?<![\w/.])([A-Za-z_]\w*)\.py\b")


def layout_block(text: str) -> str:
    """The first fenced block under the ``## Layout`` heading."""
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```", 2)[1]


def named_modules(text: str) -> dict[str, set[str]]:
    """For each folder of the layout block (``webapp/game/core``), the modules named on its lines (``model``)."""
    named: dict[str, set[str]] = {}
    stack: list[tuple[int, str]] = []  # (indentation, folder path) of the folders open at this line
    for line in layout_block(text).splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        first, _, rest = line.strip().partition(" ")
        if first.endswith("/"):
            folder = "/".join([*(stack[-1][1:] if stack else ()), first.rstrip("/")])
            stack.append((indent, folder))
            named.setdefault(folder, set())
            line = rest
        if not stack:
            continue
        for name in NAME.findall(line):
            if name != "__init__":
                named.setdefault(stack[-1][1], set()).add(name)
    return {folder: names for folder, names in named.items() if folder == "webapp" or folder.startswith("webapp/")}


def modules(root: Path) -> dict[str, set[str]]:
    """For each folder of the package at ``root`` (``webapp/game/core``), its modules but ``__init__``."""
    found: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        folder = path.parent.relative_to(root.parent).as_posix()
        found.setdefault(folder, set())
        if path.name != "__init__.py":
            found[folder].add(path.stem)
    return found


def mismatches(text: str, actual: dict[str, set[str]]) -> tuple[list[str], list[str]]:
    """``(unnamed, gone)``: the modules the layout does not name in their folder, and the names it gives that
    are no module of that folder (``webapp/game/core/model.py``)."""
    named = named_modules(text)
    unnamed = sorted(f"{folder}/{name}.py" for folder, names in actual.items() for name in names
                     if name not in named.get(folder, ()))
    gone = sorted(f"{folder}/{name}.py" for folder, names in named.items() for name in names
                  if name not in actual.get(folder, ()))
    gone += sorted(f"{folder}/" for folder in named if folder not in actual)
    return unnamed, gone


def test_design_names_every_module_of_the_web_app_in_its_room_and_none_that_is_gone():
    unnamed, gone = mismatches(DESIGN.read_text(encoding="utf-8"), modules(WEBAPP))
    assert unnamed == [], "modules docs/DESIGN.md's Layout does not name on a line of their folder"
    assert gone == [], "names in docs/DESIGN.md's Layout that are no module of their folder"


# --- the check itself catches what it is for ------------------------------------------------------------------


def test_the_check_reads_rooms_by_indentation_and_leaves_paths_and_other_blocks_out():
    text = ("# x\n\n## Layout\n\n```\nrules/   pure: board.py\nwebapp/  the app\n  game/   pure: table.py (a\n"
            "            mention of webapp/entry.py)\n    core/ model.py, text.py\n"
            "          feature.py\n    access.py  on top\n  seams.py  seams\n```\n\n```\n  other.py\n```\n")
    assert named_modules(text) == {"webapp": {"seams"}, "webapp/game": {"table", "access"},
                                   "webapp/game/core": {"model", "text", "feature"}}


def test_the_check_fails_on_a_new_module_it_does_not_name_and_on_a_name_that_is_gone():
    text = DESIGN.read_text(encoding="utf-8")
    actual = modules(WEBAPP)
    assert mismatches(text, actual) == ([], [])
    # a module added to a room, not named
    assert mismatches(text, {**actual, "webapp/game/core": actual["webapp/game/core"] | {"newthing"}}) == (
        ["webapp/game/core/newthing.py"], [])
    # a module taken away, still named
    assert mismatches(text, {**actual, "webapp/live/foes": actual["webapp/live/foes"] - {"fairness"}}) == (
        [], ["webapp/live/foes/fairness.py"])
    # a name taken out of the text: the module is unnamed (foeplay.py of planning, not live/foes' one)
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if "foeplay.py (Play the foes" in line)
    lines[at] = lines[at].replace("foeplay.py", "foeplay")
    assert mismatches("".join(lines), actual) == (["webapp/game/planning/foeplay.py"], [])
    # a module named in the wrong room: unnamed in its own, gone from the other
    moved = text.replace("    views/        read from a game's state and log: audience.py",
                         "    views/        read from a game's state and log: audience.py, fog.py")
    moved = moved.replace(", fog.py (what each audience sees)", "")
    assert moved.count("fog.py") == text.count("fog.py")
    assert mismatches(moved, actual) == (["webapp/game/bridge/fog.py"], ["webapp/game/views/fog.py"])
    # a room that no longer exists
    gone = text.replace("    foes/         the foes, live", "    foe/          the foes, live")
    assert mismatches(gone, actual)[1] == ["webapp/live/foe/fairness.py", "webapp/live/foe/foeplay.py",
                                           "webapp/live/foe/forecasting.py", "webapp/live/foe/suggesting.py",
                                           "webapp/live/foe/"]
