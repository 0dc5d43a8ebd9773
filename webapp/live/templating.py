"""The Jinja environment the live fragments are rendered in: the app's, with templates that include without copying.

A fragment's context is lazy (``webapp.live.context.Lazy``): Jinja's own ``{% include %}`` in a loop would copy it
into a dict and so compute every value; ``_SharedTemplate`` looks its locals up in front of it instead.
"""

from __future__ import annotations

from collections import ChainMap

import jinja2
from jinja2.utils import missing

class _SharedTemplate(jinja2.Template):
    """A template whose ``{% include %}`` in a loop or a ``with`` block looks its locals up before the
    including template's context instead of copying that context into a new dict (Jinja's way), which
    would compute every lazy value of it."""

    def new_context(self, vars=None, shared=False, locals=None):
        if shared and locals and vars is not None:
            vars, locals = ChainMap({k: v for k, v in locals.items() if v is not missing}, vars), None
        return super().new_context(vars, shared, locals)


def fragment_env(app) -> jinja2.Environment:
    """The app's Jinja environment (loader, globals, filters, autoescape) with ``_SharedTemplate``;
    its own template cache, made once per app."""
    env = app.extensions.get("tacmap_fragment_env")
    if env is None:
        env = app.jinja_env.overlay(cache_size=400)
        env.template_class = _SharedTemplate
        app.extensions["tacmap_fragment_env"] = env
    return env
