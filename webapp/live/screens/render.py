"""Render what an audience sees, for the page and for live updates.

The page and the live update use the same partial templates: a partial
rendered with ``oob=True`` carries ``hx-swap-oob`` and replaces its twin on
the page. SVG partials are wrapped in ``<template><svg>`` so the browser
parses them as SVG (htmx's out-of-band swap docs).

One update goes to many audiences: the context is lazy (a fragment computes
only what its template reads), and a part whose html is the same for several
audiences (``view_key``) is rendered once per update and sent to each.

Here: an update's fragments put together for one audience (``fragments``) and
the rendering itself. The parts (each declared once: its template, the events
that change it, what it reads, its sharing key) are in :mod:`webapp.live.screens.parts`,
the lazy context and a token's drawing in :mod:`webapp.live.screens.context`, the log card and its entries in
:mod:`webapp.live.screens.logcard`, the Jinja environment in :mod:`webapp.live.screens.templating`.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping

import jinja2
from flask import current_app, g, has_request_context, request
from markupsafe import Markup

from ... import seams
from ...game.bridge import fog
from ...game.core.model import Actor, Game
from . import language
from .context import Lazy, context, draw_token, token_view
from .logcard import log_section
from .parts import EVERYTHING, IN_MAP, PARTS, SHOWS_ONLY
from .parts import changes_for  # noqa: F401 - the hub asks ``render.changes_for``
from .templating import fragment_env as _fragment_env


#: what Flask's own context processor gives that belongs to the request and app context of the moment
PER_CONTEXT = ("g", "request")


def flask_values(app) -> tuple[Mapping, ...]:
    """What ``render_template`` adds to every context: its context processors' values and the Jinja
    globals (``url_for``, ``csrf_field``...), to be looked up after the context's own; before the globals, the
    reader's language's ``gettext`` and ``ngettext`` (``language.template_words``: what Flask-Babel's would
    give, without its lookups on every ``_()``).

    The processors' values are kept per app and language (a live update asked each processor again for each
    language it is drawn in, a tenth of its drawing): besides Flask's ``g`` and ``request`` (read now), what the
    app's processors give depends on the reader's language only (the language chooser's; the others give
    functions: ``csrf_token``, the room's names). ``test_flask_values_kept`` checks that against a fresh call."""
    lang = language.reader_language()
    kept = app.extensions.setdefault("tacmap_flask_values", {})
    processed = kept.get(lang)
    if processed is None:
        fresh: dict = {}
        app.update_template_context(fresh)
        processed = kept[lang] = {k: v for k, v in fresh.items() if k not in PER_CONTEXT}
    now = _context_values()
    said = language.template_words()  # the templates' _() in the reader's language, its catalog found once
    return (now, processed, said, _fragment_env(app).globals) if said else (now, processed, _fragment_env(app).globals)


def _context_values() -> dict:
    """Flask's own processor's values (``g``, ``request``) for the contexts of the moment."""
    out = {"g": g._get_current_object()}
    if has_request_context():
        out["request"] = request._get_current_object()
    return out


def _render(name: str, ctx: Mapping) -> str:
    """``render_template`` without copying the context: only the names the template reads are computed.

    ``ctx`` holds Flask's values too (``flask_values``); ``template_rendered`` is sent as Flask sends it."""
    app = current_app._get_current_object()
    env = _fragment_env(app)
    return seams.render_fragment(app, env, env.get_template(name), ctx)  # Flask's private render (a seam)


def view_key(name: str, ctx: Mapping, actor: Actor, game: Game) -> tuple | None:
    """What part ``name`` shows depends on for this audience: its name and the values of its declared key
    (``parts.Part.key``, ``parts.By``); audiences with the same key get the same html, rendered once per update.
    None: no key declared, so it is rendered for this audience alone.

    Each key holds every value the part's template reads that can differ between audiences (the part declares
    what its template reads beside it); anything else it reads is the game's, the same for all."""
    if name.startswith("token:"):  # draw_token: movable and mine (the GM's, the owner's), the rest is the token's
        token = game.tokens.get(name.split(":", 1)[1])
        return (name, token_view(actor, token)) if token is not None else (name, actor.role, None)
    part = PARTS.get(name)
    if part is None or part.key is None:
        return None
    return (name, *(value(ctx, actor) for value in part.key))


#: parts whose html depends on nothing but their ``view_key``'s values (no ``id``s: the value itself) besides the
#: template and, for the fog, the map's grid: the same key gives the same html in any update, so it is kept from one
#: update to the next (a move with fog redrew every audience's fog layer, unchanged by most moves, each time)
_KEPT_PARTS = frozenset({"fog", *SHOWS_ONLY})
_kept: dict[tuple, tuple[jinja2.Template, str, bytes]] = {}
_kept_lock = threading.Lock()
KEPT_KEEP = 1024  # the oldest go first


def _kept_render(key: tuple, template: str, values: Mapping, digests: dict | None, ctx: Lazy) -> str:
    """``_render(template, values)`` for a part of ``_KEPT_PARTS`` whose view key (with its language) is ``key``:
    the html kept from an earlier update when the key and the template are the same (its digest with it)."""
    loaded = _fragment_env(current_app._get_current_object()).get_template(template)
    if key[0] == "fog":  # drawn on the map's grid (squares or hexes)
        key = (*key, ctx["drawing"].grid)
    found = _kept.get(key)
    if found is None or found[0] is not loaded:
        html = _render(template, values)
        found = (loaded, html, _digest(html))
        with _kept_lock:
            _kept[key] = found
            while len(_kept) > KEPT_KEEP:
                del _kept[next(iter(_kept))]
    if digests is not None:
        digests[found[1]] = found[2]
    return found[1]


def _digest(html: str) -> bytes:
    """What a quiet audience's record of what it was sent holds of an html (``fragments``' ``sent``)."""
    return hashlib.blake2b(html.encode("utf-8", "surrogatepass"), digest_size=12).digest()


def fragments(game: Game, actor: Actor, changes, online: set[str] | None = None, extra: Mapping | None = None,
              renders: dict | None = None, since: int | None = None, sent: dict | None = None,
              between: Callable[[], None] | None = None) -> str:
    """The out-of-band fragments that bring this audience's screen up to date.

    ``since``: the seq the screens were at (the update's ``from_seq``); with fog, a move that brought no
    token into this audience's view and took none out sends the moved token alone, when this process
    sent the audience the update that brought it to ``since`` (else the whole tokens layer).

    ``renders``: one dict per update, shared by all the audiences it goes to; a part whose
    ``view_key`` is in it is not rendered again (the dict keeps each render's context alive,
    so the objects a key names by ``id`` stay the same objects for the whole update).

    ``sent``: part name -> a digest of the html this audience's screens were last sent for it; a part
    whose html is the same is left out (and the dict kept up to date), so a change this audience cannot
    see sends it nothing at all (an empty string), not an update that says something happened.

    ``between``: called after each part is drawn (a replay's moment, drawn from a game of its own: the other
    tables' turn between two parts, #72)."""
    changes = set(changes)
    if renders is None:
        flask = flask_values(current_app._get_current_object())
    else:  # the same for every audience of the update reading one language (view keys hold more: no clash)
        said = ("flask values", language.reader_language())  # a context processor may speak (the language chooser)
        flask = renders.get(said) or renders.setdefault(said, flask_values(current_app._get_current_object()))
    ctx = context(game, actor, online, extra, fallback=flask, shared=renders)
    switched = "seen_map" in changes  # fog switched on or off (parts.py's seen_map)
    if switched:
        changes.discard("seen_map")
        if actor.role == "gm":  # the GM sees every wall, the whole picture and every token either way
            changes |= {"fog", "lighting"}
        else:
            changes.add("map")
    if "fog" in changes and not fog.enabled(game) and not switched:
        changes.discard("fog")
    elif "fog" in changes and actor.role != "gm":
        # what this audience sees may have changed: when tokens came into view or left it, the whole
        # layer goes (a token that left the view is not in it), and what they know of the fight
        shown = frozenset(t.id for t in ctx["tokens"])
        if not fog.same_tokens_shown(game, actor, since, shown):
            changes = {c for c in changes if not c.startswith("token:")} | {"tokens", "combat", "turn_bar", "attack"}
        fog.tokens_shown(game, actor, shown)
        if fog.walls_stale(game, actor):  # new squares seen: their walls and doors come too, and the picture
            changes |= {"walls", "picture"}
    if "map" in changes:  # the map holds the walls, the fog, the picture and the tokens
        changes = {c for c in changes if not c.startswith("token:") and c not in ("walls", "fog", "tokens", "picture")}
    out: list[str] = []
    if renders is None:
        oob = ctx.with_values({"oob": True})
    else:  # each token of a layer is drawn once per update for the audiences that see it alike
        lang = language.reader_language()

        def shared_token(token) -> Markup:
            key = ("layer token", id(token), token_view(actor, token), lang)
            found = renders.get(key)
            if found is None:
                found = renders[key] = (draw_token(ctx, token), ctx)
            return found[0]
        oob = ctx.with_values({"oob": True, "shared_token": shared_token})
    svg: list[str] = []
    whole_map = "map" in changes or ("gm_map" in changes and actor.role == "gm")
    if whole_map:
        changes = {c for c in changes if c not in IN_MAP and c != "gm_map" and not c.startswith("token:")} | {"map"}
    if sent is not None and "map" in changes:  # a fresh map replaces every part drawn inside it
        for name in [n for n in sent if n in IN_MAP or n.startswith("token:")]:
            del sent[name]

    digests = None if renders is None else renders.setdefault("digests", {})  # html -> its digest, this update

    def new_to_them(name: str, html: str) -> bool:
        if sent is None:
            return True
        digest = None if digests is None else digests.get(html)  # a shared render: the same str, hashed once
        if digest is None:
            digest = _digest(html)
            if digests is not None:
                digests[html] = digest
        if sent.get(name) == digest:
            return False
        sent[name] = digest
        return True

    def render(name: str, template: str | None, values: Mapping, draw: Callable[[], str] | None = None) -> str:
        """Part ``name``'s html: ``template`` rendered with ``values``, or what ``draw()`` makes (a token), once per
        update for the audiences with the same ``view_key`` in one language."""
        make = draw or (lambda: _render(template, values))
        if between is not None:
            made = make

            def make() -> str:
                html = made()
                between()
                return html
        key = view_key(name, ctx, actor, game) if renders is not None else None
        if key is None:
            return make()
        key = (*key, language.reader_language())  # the same part in another language is another html
        found = renders.get(key)
        if found is None:
            if name in _KEPT_PARTS:  # its html may be the last update's: kept across updates
                html = _kept_render(key, template, values, digests, ctx)
            else:
                html = make()
            found = renders[key] = (html, ctx)
        return found[0]

    for name in sorted(changes):
        if name == "board_list_due":  # below: with the rest of this audience's update, if any
            continue
        if name.startswith("token:"):
            if ctx["preparing"]:  # the GM looks at another map: the active map's tokens are not on it
                continue
            token = game.tokens.get(name.split(":", 1)[1])
            if token is not None and fog.may_see(game, actor, token):
                html = render(name, None, oob, lambda: draw_token(ctx, token, oob=True))
                if new_to_them(name, html):
                    svg.append(html)
            continue
        part = PARTS[name]
        template, is_svg = part.template, part.svg
        if actor.role not in part.audiences:
            continue
        if name == "tokens":
            html = render(name, template, oob.with_values({"tokens": ctx["map_tokens"]}))
        elif name == "log":  # its template calls log_section too: here without the template's steps
            html = render(name, template, oob, lambda: log_section(ctx["log"], actor.role == "gm", oob=True))
        else:
            html = render(name, template, oob)
        if name in ("walls", "map", "gm_map"):
            fog.walls_drawn(game, actor)
        if name in ("tokens", "map") and actor.role != "gm" and fog.enabled(game):
            fog.tokens_shown(game, actor, frozenset(t.id for t in ctx["tokens"]))
        if new_to_them(name, html):
            (svg if is_svg else out).append(html)
    if "board_list_due" in changes and actor.role == "player" and (out or svg):
        # a player's list is due again only with something else of the update that they see: a change hidden from
        # them (a foe moving in the fog) marks nothing, so it sends them nothing at all (#25, #61)
        html = render("board_list_due", PARTS["board_list_due"].template, oob)
        if new_to_them("board_list_due", html):
            out.append(html)
    if svg:
        out.append("<template><svg>" + "".join(svg) + "</svg></template>")
    if sent is not None and "map" in changes and not ctx["preparing"]:
        note_shown(game, actor, sent, online, extra)  # what the fresh map holds, part by part
    return "\n".join(out)


def note_shown(game: Game, actor: Actor, sent: dict, online: set[str] | None = None,
               extra: Mapping | None = None) -> None:
    """Fill ``sent`` (see :func:`fragments`) with every part this audience's screens show now, as if each
    had just been sent: for a screen that is up to date (a page opened now, a map drawn whole)."""
    parts = (set(EVERYTHING) - {"map", "gm_map", "seen_map"}) | {f"token:{t.id}" for t in fog.visible_tokens(game, actor)}
    fragments(game, actor, parts, online=online, extra=extra, sent=sent)


def attack_preview(game: Game, actor: Actor, view: dict, echo: bool = False) -> str:
    """The card that shows an attack before it is rolled (its line is drawn on the map by attack.js);
    ``echo``: the GM's copy of a player's preview, its choices read, not picked."""
    tokens = {t.id: t for t in fog.visible_tokens(game, actor)}
    view = language.words(view)  # the rules' words of it (options, modifiers, outcomes) in the asker's language
    values = {"view": view, "tokens": tokens, "actor": actor, "game": game, "echo": echo}
    return _render("_attack_preview.html", Lazy({}, values, *flask_values(current_app._get_current_object())))


def board_list(game: Game, actor: Actor) -> str:
    """A player's list of the board (#61, ``_board_list.html``) as the page draws it, for a phone that shows it. Drawn
    with the few values it reads, not the whole lazy context: each ``_()`` in a loop makes Jinja copy its context
    (``Context.derived``), and a copy of the lazy one computes every value in it (the log, the fog layer...)."""
    ctx = context(game, actor)
    values = {name: ctx[name] for name in ("board_list", "combat_view", "tokens", "game", "actor")} | {"oob": False}
    return _render("_board_list.html", Lazy({}, values, *flask_values(current_app._get_current_object())))
