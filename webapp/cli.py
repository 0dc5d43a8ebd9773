"""The ``tacmap`` command."""

from __future__ import annotations

if __name__ == "__main__":  # python -m webapp.cli: gevent's patch before anything else is imported (webapp/entry.py)
    from webapp.patching import patch

    patch()

import argparse
import gc
import ipaddress
import sys
import time
from pathlib import Path

from . import create_app, default_data_dir, launch
from .seams import SeamBroken
from .storage.store import DataError
from .netinfo import lan_addresses
from .patching import unpatched


def _(text: str, **params) -> str:
    """A console line in the system's language (LANG, LC_ALL; Windows: the user's locale) where a catalog has it
    (webapp/web/i18n.py); English otherwise."""
    global _console
    if _console is None:
        from .web.i18n import console_translations

        _console = console_translations()
    out = _console.gettext(text)
    return out % params if params else out


_console = None


WILDCARD = ("0.0.0.0", "::", "")


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def server_links(host: str, port: int, lan: list[str],
                 public_url: str | None = None) -> tuple[list[str], str, str | None]:
    """What to print for a server listening on ``host``: the addresses that answer there, the base of
    the GM links, and the address players should use (None: the address of the page they came from).

    Only addresses that reach the listening socket: a server on one LAN address does not answer on
    localhost, and one on loopback does not answer from the LAN.
    """
    if host in WILDCARD:
        urls = [_url(ip, port) for ip in lan] + [_url("localhost", port)]
        public = public_url or (urls[0] if lan else None)
        return urls, public or _url("localhost", port), public
    if _is_loopback(host):
        urls = [_url(host, port)] + ([_url("localhost", port)] if host == "127.0.0.1" else [])
        return urls, public_url or urls[0], public_url
    url = _url(host, port)
    return [url], public_url or url, public_url or url


def _precompile(app) -> None:
    """The page templates compiled on a native thread in the background (``templating.precompile``), so no first
    drawing compiles one on the loop."""
    import gevent

    from .live.screens.templating import precompile
    from .live.server.geometry import runner

    gevent.spawn(precompile, app, runner())


def cookie_name(port: int, public_url: str | None = None) -> str:
    """The session cookie's name: a browser sends a host's cookies to every port, so each server names its own
    by its port; behind a proxy (``--public-url``), by the public address's port, the same for every process."""
    if public_url:
        from urllib.parse import urlsplit

        parts = urlsplit(public_url)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            pass
    return f"tacmap_{port}"


def open_app(config: dict):
    """The app on its data, or None after saying on stderr which file is wrong and what to do (no traceback)."""
    try:
        return create_app(config)
    except (DataError, ValueError, SeamBroken) as exc:  # ValueError: a malformed origin or proxy address
        print(_("tacmap cannot start: %(reason)s", reason=exc), file=sys.stderr, flush=True)
        return None


def listen(host: str, port: int, verbose: bool = False):
    """gevent's server bound to ``host:port`` (webapp/live/server/serving.py), or None after one line on stderr saying
    why not and what to do (a port in use: another --port, in the command that started this process: launch.py)."""
    from .live.server.serving import TableServer, port_in_use

    try:
        return TableServer(host, port, None, log_requests=verbose)
    except OSError as exc:
        if port_in_use(exc):
            print(_("tacmap cannot listen on port %(port)s: another program (another tacmap?) is using it. Stop "
                    "that one, or start with another port: %(command)s", port=port,
                    command=launch.serve_command("--port", str(port + 1))), file=sys.stderr, flush=True)
        else:
            print(_("tacmap cannot listen on %(host)s:%(port)s: %(reason)s", host=host, port=port,
                    reason=exc.strerror or exc), file=sys.stderr, flush=True)
        return None


def serve(args: argparse.Namespace) -> int:
    data_dir = args.data_dir or default_data_dir()
    urls, base, public = server_links(args.host, args.port, lan_addresses() if args.host in WILDCARD else [],
                                      args.public_url)
    config = {"DATA_DIR": data_dir, "DEMO": not args.no_demo}
    if args.dice_seed is not None:
        config["DICE_SEED"] = args.dice_seed
    if public:
        config["PUBLIC_URL"] = public
    config["LISTEN_URL"] = base  # the join link and QR code are built from it, never from a request's Host
    if args.allowed_origin:
        config["ALLOWED_ORIGINS"] = args.allowed_origin
    if args.allowed_host:
        config["ALLOWED_HOSTS"] = args.allowed_host
    if args.trusted_proxy:
        config["TRUSTED_PROXIES"] = args.trusted_proxy
    config["SESSION_COOKIE_NAME"] = cookie_name(args.port, args.public_url)
    if args.message_queue:
        config["MESSAGE_QUEUE"] = args.message_queue
    if args.room:
        config["ROOM"] = True
    if args.open_lobby:
        config["OPEN_LOBBY"] = True
    if args.database:
        config["DATABASE"] = args.database
    app = open_app(config)  # a data folder it cannot use is said first
    if app is None:
        return 2
    server = listen(args.host, args.port, args.verbose)  # a port in use ends here, before anything is printed
    if server is None:
        return 2
    missing = unpatched()
    if missing:  # started without webapp/entry.py's patch: every Socket.IO answer would wait 10 s (issue #71)
        server.close()
        print(_("tacmap cannot serve: gevent's patch of the standard library is not in force (%(names)s), so every "
                "answer to a screen would wait 10 seconds. Start it with python3 scripts/tacmap-start, or with the "
                "tacmap command of its .venv (.venv/bin/tacmap serve).", names=", ".join(missing)),
              file=sys.stderr, flush=True)
        return 2
    hub = app.extensions["tacmap"]
    server.application = app

    if app.config.get("DATABASE"):
        from .storage.sql import shown

        print(_("tacmap is serving (games in %(database)s, copies of pictures in %(folder)s)",
                database=shown(app.config["DATABASE"]), folder=app.config["DATA_DIR"]), flush=True)
    else:
        print(_("tacmap is serving (data in %(folder)s)", folder=app.config["DATA_DIR"]), flush=True)
    for url in urls:
        print(f"  {url}/", flush=True)
    for record in hub.store.games()[:5]:
        gm_link = f"{base}/games/{record.id}/gm?key={record.gm_key}"
        print(_("GM link for %(game)s (join code %(code)s): %(link)s", game=repr(record.name), code=record.join_code,
                link=gm_link), flush=True)
    print(_("Players join at the addresses above with the game's join code."), flush=True)
    if app.config.get("ROOM"):
        from .web.room.room import setup_link
        from .web.room.roomwords import console_lines

        for line in console_lines(base, setup_link(app, base)):
            print(line, flush=True)
    if app.config.get("MESSAGE_QUEUE"):
        from .live.server.shared import shown_url

        print(_("Sharing the games with the other processes on %(queue)s", queue=shown_url(app.config["MESSAGE_QUEUE"])),
              flush=True)
        if not args.public_url:
            print(_("Give every process the same --public-url (the proxy's address): the join link and QR code "
                    "show it"), flush=True)
    # the ~75,000 objects of the libraries and the app, made once, never garbage: out of the
    # collector's sight, or every full collection walks them all (about 50 ms on a small machine,
    # a pause every screen sees as a late update)
    gc.collect()
    gc.freeze()
    # and from now on its collections wait for a moment the loop has nothing else to do, not a move's middle
    from .live.server.collector import COLLECTOR

    COLLECTOR.start()
    _precompile(app)
    hub.replays.fold_old()  # long games with no replay checkpoints (an earlier version's): folded in the background
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        COLLECTOR.stop()  # (a serve run in-process, as some tests do: CPython's own timing again after it)
    return 0


def import_map(args: argparse.Namespace) -> int:
    """``tacmap import-map GAME FILE``: a Universal VTT file becomes the game's active map.

    It appends to the game's log like any command, so it may run while the server runs: the
    server sees the new map at its next change (its append meets the newer log and it reloads;
    open pages then fetch a fresh copy). To have every screen switch at once, import from the
    GM page or the HTTP API instead.
    """
    from pathlib import Path

    from .live import uploads
    from .storage import pictures
    from .game.board import uvtt
    from .game.core.model import GM, Rejected

    data_dir = args.data_dir or default_data_dir()
    path = Path(args.file)
    if not path.is_file():
        print(_("tacmap import-map: no file %(file)s", file=args.file), file=sys.stderr)
        return 2
    if path.stat().st_size > uvtt.MAX_FILE_BYTES:
        print(_("tacmap import-map: %(file)s is over the limit of %(mb)s MB", file=path.name,
                mb=uvtt.MAX_FILE_BYTES // 1048576), file=sys.stderr)
        return 1
    app = create_app({"DATA_DIR": data_dir, "DEMO": False, **({"DATABASE": args.database} if args.database else {})})
    hub = app.extensions["tacmap"]
    records = hub.store.games()
    record = next((r for r in records if r.id == args.game), None)
    if record is None:
        named = [r for r in records if r.name.casefold() == args.game.casefold()]
        if len(named) > 1:
            print(_("tacmap import-map: %(n)s games are called %(name)s; give the game's id (%(ids)s)", n=len(named),
                    name=repr(args.game), ids=", ".join(r.id for r in named)), file=sys.stderr)
            return 2
        record = named[0] if named else None
    if record is None:
        print(_("tacmap import-map: no game %(name)s in %(folder)s (give its id or name)", name=repr(args.game),
                folder=app.config["DATA_DIR"]), file=sys.stderr)
        return 2
    name = (args.name or pictures.map_name(path.name))[:40]
    try:
        # a request context: with $TACMAP_MESSAGE_QUEUE set, every screen is sent the new map at once (links in it)
        with app.test_request_context(base_url=hub.base_url()):
            done = uploads.import_uvtt(hub, record.id, GM, path.read_bytes(), name)
    except Rejected as exc:
        from flask_babel import force_locale

        from .live.screens.language import refusal_text
        from .web.i18n import system_language

        with app.test_request_context(), force_locale(system_language()):  # the reason in the console's language
            reason = refusal_text(exc)
        print(_("tacmap import-map: %(file)s: %(reason)s", file=path.name, reason=reason), file=sys.stderr)
        return 1
    print(_("Imported %(map)s into %(game)s: %(walls)s wall segments, %(doors)s doors; it is now the map everyone "
            "sees (map id %(id)s).", map=repr(done["name"]), game=repr(record.name), walls=done["walls"],
            doors=done["doors"], id=done["map_id"]))
    return 0


# --- the data: list, export, import, backup, repair ------------------------------


def _data_dir(args: argparse.Namespace) -> Path:
    return Path(args.data_dir or default_data_dir())


def _database(args: argparse.Namespace) -> str | None:
    """The PostgreSQL database the games are in (``--database``, else $TACMAP_DATABASE), or None: the data folder's."""
    import os

    return getattr(args, "database", None) or os.environ.get("TACMAP_DATABASE") or None


def _existing_data_dir(args: argparse.Namespace) -> Path:
    """The data folder to read from: one that is not there is an error, not a new empty one (unless the games
    are in PostgreSQL: then the folder holds only their pictures, if any)."""
    from .storage.archive import ArchiveError
    from .storage.store import DB_NAME

    data_dir = _data_dir(args)
    if _database(args):
        return data_dir
    if not (data_dir / DB_NAME).is_file():
        raise ArchiveError(f"there is no tacmap data in {data_dir} (no {DB_NAME}); name the folder with --data-dir")
    return data_dir


def _fail(message: str) -> int:
    print(_("tacmap: %(problem)s", problem=message), file=sys.stderr, flush=True)
    return 2


def list_games(args: argparse.Namespace) -> int:
    from .storage.archive import ArchiveError, open_store

    try:
        store = open_store(_existing_data_dir(args), _database(args))
    except (ArchiveError, DataError) as exc:
        return _fail(str(exc))
    try:
        for record in store.games():
            print(f"{record.id}  {store.last_seq(record.id):>6} "
                  f"events  {record.system:<16} {record.name}")
    finally:
        store.close()
    return 0


def export_game(args: argparse.Namespace) -> int:
    from .storage.archive import ArchiveError, export_game as export

    try:
        manifest = export(_existing_data_dir(args), args.game, Path(args.file), database=_database(args))
    except (ArchiveError, DataError) as exc:
        return _fail(str(exc))
    print(_("exported %(game)s (%(id)s): %(events)s events, %(files)s files, to %(file)s",
            game=repr(manifest["game"]["name"]), id=args.game, events=manifest["last_seq"],
            files=len(manifest["files"]), file=args.file))
    return 0


def import_game(args: argparse.Namespace) -> int:
    from .storage.archive import ArchiveError, import_game as do_import

    try:
        done = do_import(_data_dir(args), Path(args.file), new_keys=args.new_keys, new_id=args.new_id,
                         database=_database(args))
    except (ArchiveError, DataError) as exc:
        return _fail(str(exc))
    print(_("imported %(game)s as game %(id)s: %(events)s events, %(files)s files", game=repr(done.name),
            id=done.game_id, events=done.events, files=done.files))
    for note in done.notes:
        print(f"  {note}")
    _fold_imported(_data_dir(args), done.game_id, _database(args))
    print(_("GM link: %(link)s (after the server's address)", link=f"/games/{done.game_id}/gm?key={done.gm_key}"))
    return 0


def _fold_imported(data_dir: Path, game_id: str, database: str | None) -> None:
    """The imported game's log folded with the replay's checkpoints and kept in the data folder (#36): its first
    jump (a server running on that folder, or started later) folds at most 50 events, not the whole log. Only a
    shortcut: when it fails the import stands, and the first jump folds the log."""
    from .storage import history

    try:
        history.fold_imported(data_dir, game_id, database)
    except Exception as exc:  # noqa: BLE001 (a shortcut only: the game is imported)
        print(_("  (the replay's checkpoints were not written: %(reason)s; the first replay folds the log)",
                reason=exc), file=sys.stderr)


def backup_data(args: argparse.Namespace) -> int:
    from .storage.archive import ArchiveError, backup

    if _database(args):
        return _fail("the games are in PostgreSQL (their pictures too): back them up with pg_dump (pg_dump -Fc -f "
                     "tacmap.dump DATABASE, safe while serving; docs/STORAGE.md)")
    try:
        data_dir = _existing_data_dir(args)
        dest = Path(args.dest) if args.dest else data_dir.resolve().parent / (
            f"{data_dir.resolve().name}-backup-{time.strftime('%Y%m%d-%H%M%S')}")
        done = backup(data_dir, dest)
    except (ArchiveError, DataError) as exc:
        return _fail(str(exc))
    print(_("backed up %(games)s games (%(events)s events) to %(dest)s", games=done["games"], events=done["events"],
            dest=done["dest"]))
    print(_("to restore: stop tacmap, then start it with %(command)s (or copy it back)",
            command=launch.serve_command("--data-dir", str(done["dest"]))))
    return 0


def room_password(args: argparse.Namespace) -> int:
    """A forgotten organiser password (room mode): dropped, and a new one-time setup link printed."""
    from .storage.archive import ArchiveError
    from .storage.store import DB_NAME, Store
    from .web.room.room import new_setup_path
    from .web.room.roomwords import forgotten_password_line

    try:
        store = Store(_database(args) or _existing_data_dir(args) / DB_NAME)
    except (ArchiveError, DataError) as exc:
        return _fail(str(exc))
    try:
        path = new_setup_path(store, forget_password=True)
    finally:
        store.close()
    print(forgotten_password_line(path))
    return 0


def repair_game(args: argparse.Namespace) -> int:
    from .storage.archive import ArchiveError, repair

    try:
        done = repair(_existing_data_dir(args), args.game, database=_database(args))
    except (ArchiveError, DataError) as exc:
        return _fail(str(exc))
    if done is None:
        print(_("the log of game %(id)s is whole: nothing to repair", id=args.game))
        return 0
    print(_("game %(id)s: the log was damaged at seq %(seq)s (%(reason)s); cut back to seq %(last)s. The %(cut)s "
            "events from seq %(seq)s on are kept in %(kept)s.", id=args.game, seq=done["seq"], reason=done["reason"],
            last=done["seq"] - 1, cut=done["cut"], kept=done["kept"]))
    return 0


def migrate_data(args: argparse.Namespace) -> int:
    from .storage.migrate import MigrateError, migrate
    from .storage.sql import shown

    try:
        counts = migrate(args.source, args.dest)
    except MigrateError as exc:
        return _fail(str(exc))
    where = shown(args.dest) if args.dest.startswith("postgres") else args.dest
    print(_("copied %(games)s games (%(events)s events, %(sessions)s sessions) to %(where)s",
            games=counts.get("games", 0), events=counts.get("events", 0), sessions=counts.get("sessions", 0),
            where=where))
    print(_("the pictures stay in the data folder's pictures folder: copy it to every machine's --data-dir "
            "(docs/STORAGE.md)"))
    return 0


DATABASE_HELP = ("the games in PostgreSQL (postgresql://USER:PASSWORD@HOST:PORT/NAME; default $TACMAP_DATABASE) "
                 "instead of the data folder's SQLite file; see docs/STORAGE.md")


def add_data_commands(sub) -> None:
    def data_dir_option(p):
        p.add_argument("--data-dir", default=None, help="data folder (default $TACMAP_DATA_DIR, else ./tacmap-data, else the user's application-data folder)")
        p.add_argument("--database", default=None, metavar="URL", help=DATABASE_HELP)

    p = sub.add_parser("list", help="list the games in the data folder (id, events, system, name)")
    data_dir_option(p)
    p.set_defaults(func=list_games)
    p = sub.add_parser("export", help="write one game (record, log, snapshots, its files) to one file")
    p.add_argument("game", help=f"the game's id ({launch.command('list')})")
    p.add_argument("file", help="the file to write (a zip; .tacmap by habit)")
    data_dir_option(p)
    p.set_defaults(func=export_game)
    p = sub.add_parser("import", help=f"add a game from a file made by {launch.command('export')}")
    p.add_argument("file")
    p.add_argument("--new-keys", action="store_true", help="new GM and screen keys and join code (old links stop)")
    p.add_argument("--new-id", action="store_true", help="a new id and keys: a copy beside the original")
    data_dir_option(p)
    p.set_defaults(func=import_game)
    p = sub.add_parser("backup", help="copy the data folder consistently, even while the server runs")
    p.add_argument("dest", nargs="?", default=None,
                   help="a new folder (default: <data folder>-backup-<date-time> beside it)")
    data_dir_option(p)
    p.set_defaults(func=backup_data)
    p = sub.add_parser("repair", help="cut a damaged game log back to before the damage (the rest kept in a file); "
                                             "stop the server first")
    p.add_argument("game")
    data_dir_option(p)
    p.set_defaults(func=repair_game)
    p = sub.add_parser("room-password", help="room mode: forget the organiser password and print a new one-time "
                                             "setup link (safe while the server runs)")
    data_dir_option(p)
    p.set_defaults(func=room_password)
    p = sub.add_parser("migrate-data", help="copy every game and session from a data folder into an empty "
                                            "PostgreSQL database, or back; stop the servers first")
    p.add_argument("source", help="a data folder, or a postgresql:// URL")
    p.add_argument("dest", help="an empty PostgreSQL database (postgresql://...), or a new data folder")
    p.set_defaults(func=migrate_data)


def description() -> str:
    """What ``--help`` says first: the command, and how its launcher starts the server."""
    if launch.by_script():
        return (f"A live battle map for the table. With no command, or with serve's options alone, it starts the "
                f"server ({launch.serve_command('--port', '5001')}); the other commands are named first "
                f"({launch.command('list')}).")
    return f"A live battle map for the table: {launch.serve_command()} starts the server."


def main(argv: list[str] | None = None) -> int:
    # named as its user types it (python3 scripts/tacmap-start, tacmap, .venv/bin/tacmap: webapp/launch.py, #71)
    parser = argparse.ArgumentParser(prog=launch.launcher(), description=description())
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve", help="start the server")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: the whole LAN)")
    p.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    p.add_argument("--data-dir", default=None, help="data folder (default $TACMAP_DATA_DIR, else ./tacmap-data, else the user's application-data folder)")
    p.add_argument("--public-url", default=None, help="the address players use, if not the first LAN address")
    p.add_argument("--allowed-origin", action="append", default=[], metavar="ORIGIN",
                   help="a reverse proxy's public origin (https://maps.example.org) whose pages may open "
                        "the live link; repeatable (default: $TACMAP_ALLOWED_ORIGINS, comma-separated)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="another host name this server is reached by (besides localhost, its addresses, this "
                        "machine's name and the hosts of --public-url and --allowed-origin); repeatable "
                        "(default: $TACMAP_ALLOWED_HOSTS, comma-separated). Other names get a 400")
    p.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                   help="a reverse proxy (an address or a network) whose X-Forwarded-For is believed; "
                        "repeatable (default: $TACMAP_TRUSTED_PROXIES; none: forwarded headers are ignored)")
    p.add_argument("--message-queue", default=None, metavar="URL",
                   help="run several processes or machines for the same games: the Redis they share, "
                        "redis://HOST:6379/0, with its password redis://:PASSWORD@HOST:6379/0 or an ACL user "
                        "redis://USER:PASSWORD@HOST:6379/0, rediss://... for TLS between machines (default "
                        "$TACMAP_MESSAGE_QUEUE: give the password there, out of the process list; it is never "
                        "printed). Whoever reaches that Redis can send to every screen: guard it with a password "
                        "and let only tacmap's machines reach it (docs/HOSTING.md, \"Guarding Redis and PostgreSQL\")")
    p.add_argument("--database", default=None, metavar="URL", help=DATABASE_HELP + " (several machines on one "
                   "set of games: with --message-queue)")
    p.add_argument("--no-demo", action="store_true", help="do not create the demo game on the first start")
    p.add_argument("--room", action="store_true",
                   help="room mode for an organiser: the /room page (many tables from a template, GM PINs, resets; "
                        "also TACMAP_ROOM=1)")
    p.add_argument("--open-lobby", action="store_true",
                   help="let every device on the network make games in the lobby (each a few an hour, within a "
                        "game's budget of log and memory); by default only this machine's browser makes games (and, "
                        "with --room, the organiser); also TACMAP_OPEN_LOBBY=1")
    p.add_argument("--dice-seed", default=None,
                   help="roll seeded dice (the same seed gives the same rolls: for tests and demos)")
    p.add_argument("--verbose", action="store_true", help="log every request")
    p.set_defaults(func=serve)
    p = sub.add_parser("import-map", help="import a Universal VTT map (.dd2vtt, .df2vtt, .uvtt) into a game")
    p.add_argument("game", help="the game's id (or its name)")
    p.add_argument("file", help="the .dd2vtt, .df2vtt or .uvtt file")
    p.add_argument("--name", default=None, help="the map's name (default: the file's name)")
    p.add_argument("--data-dir", default=None, help="data folder (default $TACMAP_DATA_DIR, else ./tacmap-data, else the user's application-data folder)")
    p.add_argument("--database", default=None, metavar="URL", help=DATABASE_HELP)
    p.set_defaults(func=import_map)
    add_data_commands(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
