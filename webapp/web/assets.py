"""Where the templates and static files are.

In the repo they sit at the top (``templates/``, ``static/``); a regular
install copies them into the ``webapp`` package as ``_templates`` and ``_static``
(see pyproject.toml), so both ways find them.
"""

from pathlib import Path

_WEBAPP = Path(__file__).resolve().parents[1]  # the webapp package


def asset_dir(name: str) -> Path:
    installed = _WEBAPP / f"_{name}"
    return installed if installed.is_dir() else _WEBAPP.parent / name


TEMPLATES = asset_dir("templates")
STATIC = asset_dir("static")
