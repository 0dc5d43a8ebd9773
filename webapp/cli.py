"""The ``tacmap`` command."""

from __future__ import annotations

import argparse
import os
import sys

from . import create_app
from .netinfo import lan_addresses


def serve(args: argparse.Namespace) -> int:
    data_dir = args.data_dir or os.environ.get("TACMAP_DATA_DIR") or "tacmap-data"
    lan = lan_addresses()
    public = args.public_url or (f"http://{lan[0]}:{args.port}" if lan and args.host in ("0.0.0.0", "::") else None)
    config = {"DATA_DIR": data_dir, "DEMO": not args.no_demo}
    if args.dice_seed is not None:
        config["DICE_SEED"] = args.dice_seed
    if public:
        config["PUBLIC_URL"] = public
    app = create_app(config)
    hub = app.extensions["tacmap"]
    socketio = app.extensions["tacmap_socketio"]

    hosts = lan if args.host in ("0.0.0.0", "::") else [args.host]
    print(f"tacmap is serving (data in {app.config['DATA_DIR']})", flush=True)
    for host in hosts + (["localhost"] if args.host in ("0.0.0.0", "::", "127.0.0.1") else []):
        print(f"  http://{host}:{args.port}/", flush=True)
    base = public or f"http://localhost:{args.port}"
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
    p.add_argument("--no-demo", action="store_true", help="do not create the demo game on the first start")
    p.add_argument("--dice-seed", default=None,
                   help="roll seeded dice (the same seed gives the same rolls: for tests and demos)")
    p.add_argument("--verbose", action="store_true", help="log every request")
    p.set_defaults(func=serve)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
