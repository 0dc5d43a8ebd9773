"""The Jinja environment the live fragments are rendered in: the app's, with templates that include without copying.

A fragment's context is lazy (``webapp.live.screens.context.Lazy``): Jinja's own ``{% include %}`` in a loop would copy it
into a dict and so compute every value; ``_SharedTemplate`` looks its locals up in front of it instead.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import tempfile
from collections import ChainMap
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket
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


#: the templates compiled in this process, by key (``Compiled``): code objects are immutable, any app may run them
_IN_MEMORY: dict[str, tuple[str, object]] = {}


class Compiled(jinja2.BytecodeCache):
    """Where an app's Jinja keeps its compiled templates besides its own environment: in this process's memory,
    shared by every app it makes (the app tests make thousands), and in ``folder`` (the data folder's
    ``compiled/``), so the first pages after a restart do not compile them again: a GM page's first request
    compiled some fifty templates, 0.6 s of the loop's time, on every start. A template is taken only while its
    source is unchanged (Jinja's checksum of it, and its Python version in the file's header), by what decides
    its compiled code (the environment's syntax, extensions and filters: ``_compiled_by``). A folder that cannot
    be written is no error: the templates are compiled as before."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def get_bucket(self, environment, name, filename, source) -> Bucket:
        bucket = Bucket(environment, self.get_cache_key(f"{_compiled_by(environment)}\0{name}", filename),
                        self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        kept = _IN_MEMORY.get(bucket.key)
        if kept is not None and kept[0] == bucket.checksum:
            bucket.code = kept[1]
            return
        try:
            with open(self.folder / f"{bucket.key}.jinja", "rb") as f:
                bucket.load_bytecode(f)  # checks the header and the checksum, else leaves it empty
        except (OSError, ValueError, EOFError, pickle.UnpicklingError):
            bucket.reset()
        if bucket.code is not None:
            _IN_MEMORY[bucket.key] = (bucket.checksum, bucket.code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        _IN_MEMORY[bucket.key] = (bucket.checksum, bucket.code)
        try:
            self.folder.mkdir(exist_ok=True)
            f = tempfile.NamedTemporaryFile("wb", dir=self.folder, suffix=".tmp", delete=False)
        except OSError:
            return
        try:
            with f:
                bucket.write_bytecode(f)
            os.replace(f.name, self.folder / f"{bucket.key}.jinja")  # whole or not at all (another process reads)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(f.name)


def _compiled_by(env: jinja2.Environment) -> str:
    """What of an environment its compiled templates depend on, as text."""
    def named(value):
        return getattr(value, "__qualname__", value)

    return repr((env.block_start_string, env.block_end_string, env.variable_start_string, env.variable_end_string,
                 env.comment_start_string, env.comment_end_string, env.line_statement_prefix,
                 env.line_comment_prefix, env.trim_blocks, env.lstrip_blocks, env.newline_sequence,
                 env.keep_trailing_newline, env.optimized, env.is_async, named(env.autoescape), named(env.finalize),
                 sorted(env.extensions), getattr(env, "newstyle_gettext", None), sorted(env.filters),
                 sorted(env.tests)))


def precompile(app, run) -> int:
    """Every template of ``app`` compiled into its bytecode cache (``Compiled``) by ``run(work, *args)`` (a native
    thread of ``webapp.live.server.geometry.runner``), one at a time: the count of those compiled.

    Jinja compiles a template at its first use, on the loop: pure Python, 20-120 ms for one of the fight's
    fragments on a small machine, and 2 s for all of them, so every table waited while a server's first fog or
    first attack was drawn (#69: another table's move 100-200 ms beside a big map's first fog on). Compiled here
    at the start, off the loop, the first use only takes the compiled code. Only the compiled code is made here
    (the environment's own template cache is the loop's); a template already compiled (the data folder's
    ``compiled/``, after the first start) costs a read."""
    env, cache = app.jinja_env, app.jinja_env.bytecode_cache
    if not isinstance(cache, Compiled):
        return 0
    count = 0
    for name in env.list_templates():
        try:
            count += run(_compile_into, env, cache, name)
        except (jinja2.TemplateError, OSError):  # said where the template is used, as before
            continue
    return count


def _compile_into(env: jinja2.Environment, cache: Compiled, name: str) -> bool:
    """``name`` compiled into ``cache`` unless it is there already: whether it was compiled."""
    source, filename, _ = env.loader.get_source(env, name)
    bucket = cache.get_bucket(env, name, filename, source)
    if bucket.code is not None:
        return False
    bucket.code = env.compile(source, name, filename)
    cache.set_bucket(bucket)
    return True
