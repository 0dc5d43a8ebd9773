"""The log as the screens show it: each entry's html rendered once, the log card, the table screen's feed of rolls
and the newest attack's result card.

A move adds a line or two to a log whose twenty newest every screen shows: each entry's ``<li>`` is rendered once
per language and kept (``log_item``), and the card around them is built in Python (``log_section``).
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import ChainMap
from collections.abc import Callable
from itertools import islice
from types import SimpleNamespace
from typing import Any

import jinja2
from flask import current_app
from markupsafe import Markup

from ... import seams
from ...game.views import audience
from ...game.fight import defenses
from ...game.core.model import Actor, Game, LogEntry
from ...game.core.text import N_
from . import language, token_svg
from .templating import fragment_env
from .token_svg import escape


#: each log entry's ``<li>`` as rendered (``_log_entry.html``), by ``id(entry)`` and language: an entry never
#: changes once logged (``table._log`` appends new ones; an undo logs a line of its own, a reload makes new
#: entries) and its html depends on nothing but the entry and the reader's language, so a move renders its own
#: line, not the twenty shown. A weak reference to the entry is kept beside its html: an id reused by another entry
#: once this one is gone finds it dead; and the cache does not keep the entries alive (#57: 4,096 rolls of 100 dice,
#: 40 kB each in memory with their details, long after their games had let them go); an entry's html goes with it.
_log_items: dict[tuple[int, str], tuple[weakref.ref, jinja2.Template, Markup]] = {}
_log_items_lock = threading.Lock()
LOG_ITEMS_KEEP = 4096  # the oldest go first (a game shows its 20 newest)


def log_item(app) -> Callable[..., Markup]:
    """Each entry's html, rendered once (again if the template was reloaded); ``lang``: the reader's language,
    if the caller has it (default: looked up)."""
    env = fragment_env(app)
    template = env.get_template("_log_entry.html")

    def item(entry: LogEntry, lang: str | None = None) -> Markup:
        lang = lang or language.reader_language()
        found = _log_items.get((id(entry), lang))
        if found is not None and found[0]() is entry and found[1] is template:
            return found[2]
        # its context looks the globals up behind the entry (``Template.render`` would copy them all into it first),
        # the reader's ``_()`` before them (``language.template_words``)
        values = ChainMap({"entry": read_entry(entry, lang)}, language.template_words() or {}, env.globals)
        html = Markup(seams.render_values(env, template, values))  # Jinja's private render (a seam)
        key = (id(entry), lang)
        try:
            ref = weakref.ref(entry, lambda dead, key=key: _gone(key, dead))
        except TypeError:  # not a LogEntry (nothing else is drawn here): drawn, not kept
            return html
        with _log_items_lock:
            _log_items[key] = (ref, template, html)
            while len(_log_items) > LOG_ITEMS_KEEP:
                del _log_items[next(iter(_log_items))]
        return html

    return item


def _gone(key: tuple[int, str], dead: weakref.ref) -> None:
    """An entry's html leaves the cache with the entry (#72: the lines a game let go stayed until 4,096 newer ones
    pushed them out). No lock: the collector may call this inside ``item``'s; one dict operation, and a miss at
    worst."""
    if _log_items.get(key, (None,))[0] is dead:
        _log_items.pop(key, None)


def read_entry(entry: LogEntry, lang: str) -> Any:
    """A log entry as a reader of ``lang`` reads it: its line and its details' words (rolls, modifiers, the
    result card) in that language; an old game's English line as it was written."""
    if lang == "en" and not entry.detail:
        return entry
    return SimpleNamespace(seq=entry.seq, text=language.words(entry.text, lang), audience=entry.audience,
                           detail=language.words(entry.detail, lang), message=entry.message)


#: the log card's own words (``log_section``): message ids of the pages' domain, said by ``language.text``
LOG_TITLE, UNDO_TITLE, UNDO, LOG_ENTRIES, NOTHING_YET = (
    N_("Log"), N_("Take back the last action (the log keeps both)"), N_("Undo"), N_("Log entries, newest first"),
    N_("Nothing yet."))


def log_section(entries: list[LogEntry], gm: bool, oob: bool = False) -> Markup:
    """The log card (``#log``, ``_log.html`` on a page): ``entries`` (the newest first), each entry's html rendered
    once (``log_item``), under its heading; the GM's has the Undo button. Built here rather than by a template, as
    ``token_svg`` builds a token: every move redraws it, once per role and language at the table, and a template's
    own steps round a handful of words and the twenty entries were most of its cost (70 µs a time)."""
    say = language.text
    undo = (f' <form data-command="undo" class="inline"><button type="submit" title="{escape(say(UNDO_TITLE))}">'
            f'{escape(say(UNDO))}</button></form>') if gm else ""
    if entries:
        item, lang = log_item(current_app._get_current_object()), language.reader_language()
        lines = "".join([item(entry, lang) for entry in entries])
    else:
        lines = f'<li class="empty">{escape(say(NOTHING_YET))}</li>'
    return Markup(f'<section id="log" class="card log"{token_svg.OOB if oob else ""}>\n  <h2>{escape(say(LOG_TITLE))}'
                  f'{undo}</h2>\n  <ol reversed tabindex="0" aria-label="{escape(say(LOG_ENTRIES))}">\n  {lines}\n  '
                  '</ol>\n</section>')


#: how many of a player's newest log lines are searched for an attack by or on their tokens
PLAYER_RESULT_LOOKBACK = 200


FEED_LINES = 4  # the table screen's Rolls column: the newest events' lines
_ROUND_LINE = re.compile(r"^Round \d+$")


def screen_feed(game: Game, entries: list[LogEntry], limit: int = FEED_LINES, actor: Actor | None = None) -> list[dict]:
    """The table screen's newest rolls and attacks, one line per event, newest first: ``{"seq", "kind", "text",
    "dice"}``. A player's roll and an attack are their own lines ("Mira rolled 2d6: ...", the attack's
    line). The rules' own rolls (a running die, a Spirit roll, a Soak...) are shown by the event's lines
    that give the result (who, what for, the number: "Orc chief runs: Pace 6 + 1 = 7\""), with the dice
    beside them, never as bare dice ("running die: 1d6[1] = 1"). ``entries``: those this audience may read,
    newest first; taken-back events are left out. With the table screen's ``actor``, an attack on a token it
    sees by one it may not see is a line too, as its result card tells it ("Someone out of sight hits Ann":
    ``defenses.told_the_table``; #70), never naming the attacker."""
    undone = set(game.undone)
    events: dict[int, list[LogEntry]] = {}
    for entry in entries:
        if entry.seq not in undone:
            events.setdefault(entry.seq, []).append(entry)
    unseen = _unseen_attacks(game, actor, events, limit) if actor is not None and actor.role == "screen" else {}
    items: list[dict] = []
    said_in = language.words
    for seq in sorted(events.keys() | unseen.keys(), reverse=True):
        lines = events.get(seq, [])[::-1]  # in the order they were written
        own = [{"seq": seq, "kind": "attack", "text": said_in(unseen[seq]), "dice": []}] if seq in unseen else []
        dice = []
        for e in lines:
            detail = e.detail or {}
            if "card" in detail:
                own.append({"seq": seq, "kind": "attack", "text": said_in(e.text), "dice": []})
            elif "roll" in detail and "by" in detail:  # a roll someone made
                own.append({"seq": seq, "kind": "roll", "text": said_in(e.text), "dice": []})
            elif "roll" in detail:
                dice.append(said_in(detail["roll"].get("text") or e.text))
        if dice:
            words = [e.text for e in lines if not e.detail]
            said = [w for w in words if any(ch.isdigit() for ch in w) and not _ROUND_LINE.match(w)] or words
            own.append({"seq": seq, "kind": "roll", "text": " · ".join(map(said_in, said)) if said else dice.pop(0),
                        "dice": dice})
        items += own[::-1]
        if len(items) >= limit:
            break
    return items[:limit]


def _unseen_attacks(game: Game, actor: Actor, readable: dict, limit: int) -> dict:
    """The newest attacks (up to ``limit``) the table screen may not read for their attacker, on tokens it sees, by
    seq: their line as the screen is told it (``_screen_attacks``); none of an event whose attack line it reads
    (``readable``: the lines it may read, by seq)."""
    out: dict = {}
    for entry, told in _screen_attacks(game, actor):
        if (told is None or entry.seq in out
                or any("card" in (e.detail or {}) for e in readable.get(entry.seq, ()))):
            continue
        out[entry.seq] = told["text"]
        if len(out) >= limit:
            break
    return out


def last_attack(game: Game, actor: Actor) -> dict | None:
    """The newest attack this audience may read in the log, for the result card: the table screen's
    any attack; a player's, one made by or on one of their tokens (a phone shows its own fights)."""
    mine = {t.id for t in game.tokens.values() if t.owner == actor.player_id} if actor.role == "player" else None
    if actor.role == "screen" and (game.fog_on or any(t.hidden for t in game.tokens.values())):
        # an attack by a token the screen may not see is news too (#70): its card with the attacker unnamed
        return _screen_last_attack(game, actor)
    entries = audience.newest_log(game, actor)
    if mine is not None:  # a phone looks back a little way, not through a whole evening's log
        entries = islice(entries, PLAYER_RESULT_LOOKBACK)
    undone = set(game.undone)
    for entry in entries:
        card = entry.detail.get("card") if entry.detail else None
        if not card or entry.seq in undone:  # an undone attack is no one's news
            continue
        if mine is not None and card.get("attacker_id") not in mine and not any(t["id"] in mine for t in card["targets"]):
            continue
        return language.words({"seq": entry.seq, "text": entry.text, **card})
    return None


def _screen_last_attack(game: Game, actor: Actor) -> dict | None:
    """The table screen's result card when a token may be out of its sight (#70): the newest attack it may read, or
    an attack on a token it sees by one it may not see (the GM's line, or one naming the attacker), told with the
    attacker "someone out of sight" (``defenses.told_the_table``), whichever is newer."""
    found = next(_screen_attacks(game, actor), None)
    if found is None:
        return None
    entry, told = found
    return language.words({"seq": entry.seq, "text": entry.text, **entry.detail["card"]} if told is None
                          else {"seq": entry.seq, **told})


def _screen_attacks(game: Game, actor: Actor):
    """The attacks the table screen is told of, newest first: ``(entry, told)`` for each attack line of the log not
    taken back nor a player's own, ``told`` None where the screen may read the line itself, else the attack as it is
    told with the attacker "someone out of sight" (``defenses.told_the_table``; lines it can tell nothing of are
    left out)."""
    may_read = audience.may_read(game, actor)
    undone = set(game.undone)
    for entry in reversed(game.log):
        card = entry.detail.get("card") if entry.detail else None
        if not card or entry.seq in undone or entry.audience.startswith("player:"):
            continue
        if may_read(entry):
            yield entry, None
            continue
        told = defenses.told_the_table(game, actor, card)
        if told is not None:
            yield entry, told
