"""Each screen part walked from the events that change it to its template and the context values that template reads.

A part is declared once (``webapp.live.screens.parts.DECLARED``): its template, its audiences, its events, what it reads and its
sharing key. Checked here, for every part: each event type of the game's features changes parts; each part's template
is there; each value it declares it reads is one the context makes (``context._MAKERS``) or the fan-out gives every
audience (``Fanout.shown_to_all``: the join link, the devices); and the names its template reads (its source parsed,
its ``{% include %}``s followed) are its declared reads, or what every template has (Flask's and Jinja's globals, the
context processors' values, ``context._GIVEN``, the ``oob`` render gives). A template that starts reading a new value
without its part saying so fails here: the part's sharing key (``render.view_key``) holds what its html depends on
per audience, and a value read but not declared is one nobody asked about. An app test: the names of the app's
Jinja filters and globals are the app's.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from jinja2 import meta, nodes

from tests.helpers import make_app
from webapp.game.features import FEATURES
from webapp.live.screens import context, parts
from webapp.live.screens.fanout import Fanout
from webapp.live.screens.templating import fragment_env

EVENTS = [kind for feature in FEATURES for kind in feature.events]
NAMES = [part.name for part in parts.DECLARED]
#: what ``render.fragments`` puts in front of every fragment's context: ``oob``, and each token drawn once per update
RENDER_GIVES = {"oob", "shared_token"}
#: what the fan-out gives every audience's fragments besides the context (``Fanout.shown_to_all``'s makers)
SHOWN_TO_ALL = set(Fanout.shown_to_all(SimpleNamespace(links=None, devices=None), "game"))
#: parts no event names: added where their company goes (``changes_for``: the devices with the players card;
#: ``render.fragments``: the picture with the walls when new squares are seen)
ADDED_ALONG = {"turn_device", "picture"}


@pytest.fixture(scope="module")
def env_and_globals(tmp_path_factory):
    """The fragments' Jinja environment and the names every template has without its part reading them."""
    app = make_app(tmp_path_factory.mktemp("data"), DEMO=False)
    env = fragment_env(app)
    with app.test_request_context():
        processed: dict = {}
        app.update_template_context(processed)
    return env, set(env.globals) | set(processed) | set(context._GIVEN) | RENDER_GIVES


def template_reads(env, name: str, outer: frozenset = frozenset(), seen: tuple = ()) -> set[str]:
    """The names template ``name`` reads from its context, and those of the templates it includes (which see the
    names the including template sets)."""
    if name in seen:
        return set()
    tree = env.parse(env.loader.get_source(env, name)[0])
    # a name set anywhere in the template (``set``, ``for``, a macro's parameters) is its own: Jinja's
    # find_undeclared_variables counts one set inside an ``if`` or a loop as read from the context
    own = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")} | outer
    names = set(meta.find_undeclared_variables(tree)) - own
    for included in meta.find_referenced_templates(tree):
        assert included is not None, f"{name}: an include whose name is worked out at render time: name it"
        names |= template_reads(env, included, frozenset(own), (*seen, name))
    return names


@pytest.mark.parametrize("kind", EVENTS)
def test_every_event_of_a_feature_changes_screen_parts(kind):
    changed = parts.BY_EVENT.get(kind)
    assert changed, f"event {kind!r}: no part declares it (events= of a Part in webapp/live/screens/parts.py)"
    assert changed <= parts.EVERYTHING


def test_each_part_is_declared_once():
    assert len(NAMES) == len(set(NAMES)) == len(parts.PARTS)
    assert parts.EVERYTHING == set(NAMES) and parts.IN_MAP <= parts.EVERYTHING


def test_every_part_is_changed_by_some_event():
    named = {name for kind, changed in parts.BY_EVENT.items() if kind not in parts.REDRAW_ALL for name in changed}
    assert set(NAMES) - named == ADDED_ALONG


@pytest.mark.parametrize("name", NAMES)
def test_the_part_s_template_is_there(name, env_and_globals):
    env, _ = env_and_globals
    template = parts.PARTS[name].template
    assert template in env.list_templates(), f"{name}: no templates/{template}"


@pytest.mark.parametrize("name", NAMES)
def test_what_the_part_declares_it_reads_is_made_for_it(name):
    part = parts.PARTS[name]
    unknown = set(part.reads) - set(context._MAKERS) - SHOWN_TO_ALL
    assert not unknown, f"{name} reads {sorted(unknown)}: no maker in webapp/live/screens/context.py makes them"
    assert len(part.reads) == len(set(part.reads)), name
    keyed = {value.value for value in part.key or () if value.value}
    assert keyed <= set(part.reads), f"{name}: its sharing key reads what it does not declare"


@pytest.mark.parametrize("name", NAMES)
def test_the_part_s_template_reads_what_the_part_declares(name, env_and_globals):
    env, every_template_has = env_and_globals
    part = parts.PARTS[name]
    read = template_reads(env, part.template) - every_template_has
    undeclared = read - set(part.reads)
    assert not undeclared, (
        f"{part.template} reads {sorted(undeclared)}, which part {name!r} does not declare: add them to its reads= in "
        "webapp/live/screens/parts.py, and to its key= if they differ between audiences")
    keyed = {value.value for value in part.key or () if value.value}
    stale = set(part.reads) - read - keyed
    assert not stale, f"part {name!r} declares it reads {sorted(stale)}, which {part.template} does not read"


def test_a_part_s_key_is_made_of_known_values():
    for part in parts.DECLARED:
        for value in part.key or ():
            assert value.how == "role" or value.value in context._MAKERS, (part.name, value)
