"""The HTTP side: blueprints (lobby, the game pages, the JSON API, map files, hand-outs, the recap, the rules
help), the access gate before every request, security headers and CSRF, sessions, languages, error pages, and where
the assets are; ``sheet`` (character sheets: their page, editor and form) and ``room`` (room mode: its routes, the
organiser's page, its words). docs/DESIGN.md "Layout" names each module."""

from __future__ import annotations

import time

from flask import current_app, session

from ..game.tableside import keys
from ..live.hub import Hub

ROLES = ("gm", "player", "screen")


def hub() -> Hub:
    return current_app.extensions["tacmap"]


def remember_key(role: str, game_id: str, key: str) -> None:
    """Keep a browser's key for a game in its session (on the server: webapp/web/sessions.py)."""
    keys = dict(session.get(role) or {})
    keys[game_id] = key
    session[role] = keys
    session.permanent = True


def remembered_key(role: str, game_id: str) -> str | None:
    return (session.get(role) or {}).get(game_id)


def unlock(game_id: str, stored: str) -> None:
    """This browser session gave the GM password (or set it): its GM key works until the session ends."""
    unlocked = dict(session.get("gm_unlocked") or {})
    unlocked[game_id] = keys.proof_of(stored)
    session["gm_unlocked"] = unlocked


def slow_wrong_guess() -> None:
    """A wrong password or PIN waits before its answer (``keys.WRONG_PAUSE``; the app's ``WRONG_GUESS_PAUSE``),
    besides the limits per minute: a guesser's loop is slow from the first try. Gevent's sleep: the loop serves
    the others meanwhile."""
    time.sleep(current_app.config.get("WRONG_GUESS_PAUSE", keys.WRONG_PAUSE))
