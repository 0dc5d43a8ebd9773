"""The ``tacmap`` command."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys

from . import create_app
from .netinfo import lan_addresses


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


def serve(args: argparse.Namespace) -> int:
    data_dir = args.data_dir or os.environ.get("TACMAP_DATA_DIR") or "tacmap-data"
    urls, base, public = server_links(args.host, args.port, lan_addresses() if args.host in WILDCARD else [],
                                      args.public_url)
    config = {"DATA_DIR": data_dir, "DEMO": not args.no_demo}
    if args.dice_seed is not None:
        config["DICE_SEED"] = args.dice_seed
    if public:
        config["PUBLIC_URL"] = public
    app = create_app(config)
    hub = app.extensions["tacmap"]
    socketio = app.extensions["tacmap_socketio"]

    print(f"tacmap is serving (data in {app.config['DATA_DIR']})", flush=True)
    for url in urls:
        print(f"  {url}/", flush=True)
    for record in hub.store.games()[:5]:
        print(f"GM link for {record.name!r}: {base}/games/{record.id}/gm?key={record.gm_key}", flush=True)
    print("Players join at the addresses above with the game's join code.", flush=True)
    socketio.run(app, host=args.host, port=args.port, allow_unsafe_werkzeug=True,
                 use_reloader=False, log_output=args.verbose)
    return 0


def import_map(args: argparse.Namespace) -> int:
    """``tacmap import-map GAME FILE``: a Universal VTT file becomes the game's active map.

    It appends to the game's log like any command, so it may run while the server runs: the
    server sees the new map at its next change (its append meets the newer log and it reloads;
    open pages then fetch a fresh copy). To have every screen switch at once, import from the
    GM page or the HTTP API instead.
    """
    from pathlib import Path

    from . import pictures, uvtt
    from .facts import Rejected
    from .table import GM

    data_dir = args.data_dir or os.environ.get("TACMAP_DATA_DIR") or "tacmap-data"
    path = Path(args.file)
    if not path.is_file():
        print(f"tacmap import-map: no file {args.file}", file=sys.stderr)
        return 2
    if path.stat().st_size > uvtt.MAX_FILE_BYTES:
        print(f"tacmap import-map: {path.name} is over the limit of {uvtt.MAX_FILE_BYTES // 1048576} MB",
              file=sys.stderr)
        return 1
    app = create_app({"DATA_DIR": data_dir, "DEMO": False})
    hub = app.extensions["tacmap"]
    records = hub.store.games()
    record = next((r for r in records if r.id == args.game), None)
    if record is None:
        named = [r for r in records if r.name.casefold() == args.game.casefold()]
        if len(named) > 1:
            print(f"tacmap import-map: {len(named)} games are called {args.game!r}; give the game's id "
                  f"({', '.join(r.id for r in named)})", file=sys.stderr)
            return 2
        record = named[0] if named else None
    if record is None:
        print(f"tacmap import-map: no game {args.game!r} in {app.config['DATA_DIR']} (give its id or name)",
              file=sys.stderr)
        return 2
    name = (args.name or pictures.map_name(path.name))[:40]
    try:
        with app.app_context():
            done = pictures.import_uvtt(hub, record.id, GM, path.read_bytes(), name)
    except Rejected as exc:
        print(f"tacmap import-map: {path.name}: {exc}", file=sys.stderr)
        return 1
    print(f"Imported {done['name']!r} into {record.name!r}: {done['walls']} wall segments, {done['doors']} doors; "
          f"it is now the map everyone sees (map id {done['map_id']}).")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tacmap", description="A live battle map for the table.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve", help="start the server")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: the whole LAN)")
    p.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    p.add_argument("--data-dir", default=None, help="data folder (default ./tacmap-data or $TACMAP_DATA_DIR)")
    p.add_argument("--public-url", default=None, help="the address players use, if not the first LAN address")
    p.add_argument("--no-demo", action="store_true", help="do not create the demo game on the first start")
    p.add_argument("--dice-seed", default=None,
                   help="roll seeded dice (the same seed gives the same rolls: for tests and demos)")
    p.add_argument("--verbose", action="store_true", help="log every request")
    p.set_defaults(func=serve)
    p = sub.add_parser("import-map", help="import a Universal VTT map (.dd2vtt, .df2vtt, .uvtt) into a game")
    p.add_argument("game", help="the game's id (or its name)")
    p.add_argument("file", help="the .dd2vtt, .df2vtt or .uvtt file")
    p.add_argument("--name", default=None, help="the map's name (default: the file's name)")
    p.add_argument("--data-dir", default=None, help="data folder (default ./tacmap-data or $TACMAP_DATA_DIR)")
    p.set_defaults(func=import_map)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
