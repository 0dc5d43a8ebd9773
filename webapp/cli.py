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
    if args.allowed_origin:
        config["ALLOWED_ORIGINS"] = args.allowed_origin
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tacmap", description="A live battle map for the table.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve", help="start the server")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: the whole LAN)")
    p.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    p.add_argument("--data-dir", default=None, help="data folder (default ./tacmap-data or $TACMAP_DATA_DIR)")
    p.add_argument("--public-url", default=None, help="the address players use, if not the first LAN address")
    p.add_argument("--allowed-origin", action="append", default=[], metavar="ORIGIN",
                   help="a reverse proxy's public origin (https://maps.example.org) whose pages may open "
                        "the live link; repeatable (default: $TACMAP_ALLOWED_ORIGINS, comma-separated)")
    p.add_argument("--no-demo", action="store_true", help="do not create the demo game on the first start")
    p.add_argument("--dice-seed", default=None,
                   help="roll seeded dice (the same seed gives the same rolls: for tests and demos)")
    p.add_argument("--verbose", action="store_true", help="log every request")
    p.set_defaults(func=serve)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
