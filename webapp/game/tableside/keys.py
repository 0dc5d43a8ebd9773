"""The game's keys and the GM password: the commands that change them, and how a password is kept.

Only a salted hash of the GM password is stored (scrypt, in the format of werkzeug's
``generate_password_hash``: ``scrypt:N:r:p$salt$hex``, in the ``gm_password_set`` event of the game's log); the password itself is never
written, logged or sent. The join code and the table screen's key live in
the game's record (``Store.update_access``); rotating one makes the old one
stop working at once.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
import threading
import time
from collections import defaultdict, deque
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from ..core.feature import Feature
from ..core.model import Event, Rejected
from rules.text import say
from ..core.text import N_

MIN_PASSWORD = 4
MAX_WRONG = 5  # wrong GM passwords per game in WINDOW seconds; then every guess is refused until it passes
WINDOW = 60.0
MAX_WRONG_CLIENT = 2 * MAX_WRONG  # wrong GM passwords from one client address in WINDOW seconds, over all games
WRONG_PAUSE = 0.5  # seconds a wrong GM password, organiser password or GM PIN waits for its answer (WRONG_GUESS_PAUSE)


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SetGmPassword(_Command):
    type: Literal["set_gm_password"]
    password: Annotated[str, StringConstraints(min_length=MIN_PASSWORD, max_length=200)]


class ClearGmPassword(_Command):
    type: Literal["clear_gm_password"]


class RotateJoinCode(_Command):
    type: Literal["rotate_join_code"]


class RotateScreenKey(_Command):
    type: Literal["rotate_screen_key"]


COMMANDS = (SetGmPassword, ClearGmPassword, RotateJoinCode, RotateScreenKey)
COMMAND_TYPES = tuple(c.model_fields["type"].annotation.__args__[0] for c in COMMANDS)
EVENTS = ("gm_password_set",)
_adapter: TypeAdapter[Any] = TypeAdapter(Annotated[Union[COMMANDS], Field(discriminator="type")])


def parse(payload: dict) -> Any:
    try:
        return _adapter.validate_python(payload)
    except ValidationError as exc:
        err = exc.errors()[0]
        if err["loc"][-1:] == ("password",):
            raise Rejected(N_("password: %(n)s to 200 characters"), n=MIN_PASSWORD) from None
        raise Rejected(err["msg"]) from None


#: scrypt's cost (werkzeug's default), and the salt's characters and length (werkzeug's too)
SCRYPT = (2**15, 8, 1)
_SALT_CHARS = string.ascii_letters + string.digits
_SALT_LENGTH = 16


def _scrypt(password: str, salt: str, n: int, r: int, p: int) -> str:
    return hashlib.scrypt(password.encode(), salt=salt.encode(), n=n, r=r, p=p, maxmem=132 * n * r * p).hex()


def hash_password(password: str) -> str:
    """A salted scrypt hash, ``scrypt:N:r:p$salt$hex``: the format werkzeug writes, so hashes stored by
    earlier versions (which called werkzeug) still check, with no web library in the game's model."""
    salt = "".join(secrets.choice(_SALT_CHARS) for _ in range(_SALT_LENGTH))
    n, r, p = SCRYPT
    return f"scrypt:{n}:{r}:{p}${salt}${_scrypt(password, salt, n, r, p)}"


def verify(stored: str, password: str) -> bool:
    try:
        method, salt, digest = stored.split("$", 2)
        name, *params = method.split(":")
        n, r, p = (int(v) for v in params) if params else SCRYPT
    except ValueError:
        return False
    if name != "scrypt" or not (1 < n <= 2**20 and 0 < r <= 32 and 0 < p <= 16):
        return False  # not a hash this app writes; a forged huge cost must not eat the memory
    return hmac.compare_digest(_scrypt(password, salt, n, r, p), digest)


def proof_of(stored: str) -> str:
    """What a browser session keeps once it gave the password: changes with every new password (new salt)."""
    return hashlib.sha256(f"tacmap-gm-unlocked:{stored}".encode()).hexdigest()[:32]


def password_event(password: str | None):
    return Event("gm_password_set", {"hash": hash_password(password) if password is not None else None})


def evolve(game, event, log) -> None:
    game.gm_password = event.data["hash"]
    log(say("the GM set a password on the GM link") if game.gm_password else say("the GM took the password off the GM link"),
        "gm", None)


#: the keys are parsed and served by the hub (``keys.parse``, ``Hub.security_command``), not by the table
#: served by the hub's keys route (webapp/live/gm_access.py), parsed here
FEATURE = Feature("keys", COMMANDS, events=EVENTS, evolve=evolve, apart=True, routes=dict.fromkeys(COMMANDS, "keys"),
                  parse=parse)


class Guesses:
    """Wrong GM passwords in the last minute, per game and per client (in memory: a restart forgets them).

    A guess is counted before it is checked (``take``), atomically: forty guesses sent at once find the
    count at its limit after the first ``MAX_WRONG``, whatever order their checks finish in; a right one
    is given back (``give_back``)."""

    def __init__(self) -> None:
        self._wrong: dict[str, deque] = defaultdict(deque)
        self._lock = threading.Lock()

    def _trim(self, name: str, now: float) -> deque:
        times = self._wrong[name]
        while times and now - times[0] > WINDOW:
            times.popleft()
        return times

    @staticmethod
    def names(game_id: str, client: str | None) -> list[tuple[str, int]]:
        """The counts a guess goes into, each with its limit: the game's, and the client's over every game."""
        return [(f"game:{game_id}", MAX_WRONG)] + ([(f"client:{client}", MAX_WRONG_CLIENT)] if client else [])

    def blocked(self, game_id: str, client: str | None = None) -> bool:
        with self._lock:
            now = time.monotonic()
            return any(len(self._trim(n, now)) >= limit for n, limit in self.names(game_id, client))

    def take(self, game_id: str, client: str | None = None) -> bool:
        """Count one guess for the game and the client, unless either is at its limit (then False)."""
        with self._lock:
            now = time.monotonic()
            if len(self._wrong) > 10_000:  # many clients: the quiet ones are forgotten
                for name in [n for n, t in self._wrong.items() if not t or now - t[-1] > WINDOW]:
                    del self._wrong[name]
            counts = [(self._trim(n, now), limit) for n, limit in self.names(game_id, client)]
            if any(len(times) >= limit for times, limit in counts):
                return False
            for times, _limit in counts:
                times.append(now)
            return True

    def give_back(self, game_id: str, client: str | None = None, token=None) -> None:
        """The guess was right: it does not count."""
        with self._lock:
            for name, _limit in self.names(game_id, client):
                times = self._wrong.get(name)
                if times:
                    times.pop()


ROOM_WRONG_ADDRESS = MAX_WRONG  # wrong organiser passwords, or GM PINs, from one client address in WINDOW seconds
ROOM_WRONG = 2 * MAX_WRONG  # the room's ceiling of each in WINDOW seconds, for the addresses that failed in it
ROOM_SEEN = 3600.0  # seconds the organiser's page shows a wrong try
ROOM_KEPT = 2000  # wrong tries kept of each kind, the newest


class RoomGuesses:
    """Room mode's wrong organiser passwords and GM PINs (``kind``), counted per client address first (#57):
    an address gets ``ROOM_WRONG_ADDRESS`` a minute; one with no wrong try in the last minute is always
    checked, so a guesser elsewhere locks nobody else out; an address that failed also waits while the room
    had ``ROOM_WRONG`` wrong tries this minute (a guesser on many addresses is slowed as one). Every wrong try
    is kept an hour (``recent``) for the organiser's page. In memory; in Redis with several processes
    (``shared.SharedRoomGuesses``). A try is counted before it is checked (``take``) and given back when
    right (``give_back``)."""

    def __init__(self) -> None:
        self._tries: dict[str, deque] = defaultdict(deque)  # kind -> (when, client, token), oldest first
        self._lock = threading.Lock()

    @staticmethod
    def refused(before: list[str], client: str) -> bool:
        """Whether a try from ``client`` is refused, given the clients of the kind's other tries in the last
        minute."""
        mine = before.count(client)
        return mine >= ROOM_WRONG_ADDRESS or (mine > 0 and len(before) >= ROOM_WRONG)

    def take(self, kind: str, client: str | None):
        """Count a try of ``kind`` from ``client``; False when refused (not to be checked), else the token
        ``give_back`` needs."""
        client = client or "?"
        with self._lock:
            now = time.monotonic()
            tries = self._tries[kind]
            while tries and (now - tries[0][0] > ROOM_SEEN or len(tries) >= ROOM_KEPT):
                tries.popleft()
            if self.refused([c for w, c, _t in tries if now - w <= WINDOW], client):
                return False
            token = secrets.token_hex(8)
            tries.append((now, client, token))
            return token

    def give_back(self, kind: str, client: str | None, token) -> None:
        """The try was right: it does not count."""
        with self._lock:
            tries = self._tries[kind]
            for entry in tries:
                if entry[2] == token:
                    tries.remove(entry)
                    break

    def recent(self, kind: str) -> list[tuple[float, str]]:
        """The kind's wrong tries of the last ``ROOM_SEEN`` seconds, ``(seconds ago, client)``, newest first."""
        with self._lock:
            now = time.monotonic()
            return [(now - w, c) for w, c, _t in reversed(self._tries[kind]) if now - w <= ROOM_SEEN]
