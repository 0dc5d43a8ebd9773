"""Where the templates and static files are.

In the repo they sit at the top (``templates/``, ``static/``); a regular
install copies them into this package as ``_templates`` and ``_static``
(see pyproject.toml), so both ways find them.
"""

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def asset_dir(name: str) -> Path:
    installed = _HERE / f"_{name}"
    return installed if installed.is_dir() else _HERE.parent / name


TEMPLATES = asset_dir("templates")
STATIC = asset_dir("static")
