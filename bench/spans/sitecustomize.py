"""A server's own span of one command: from reading a Socket.IO event off a websocket to the last websocket write
before the next event (bench_propagation ``--spans``). Loaded into the benchmark's servers (tacmap and the bare
broadcast alike) as ``sitecustomize`` through PYTHONPATH when ``TACMAP_BENCH_SPANS`` names a file prefix; it
wraps simple-websocket's public ``Base.send`` / ``Base.receive`` and writes the spans (ms) as JSON to
``<prefix>.<name>.json`` every 20 spans. Never part of tacmap itself."""

import json
import os
import sys
import time

_prefix = os.environ.get("TACMAP_BENCH_SPANS")
if _prefix:
    try:
        from simple_websocket import ws as _ws
    except ImportError:  # not a server that serves websockets
        _ws = None
    if _ws is not None and hasattr(_ws.Base, "send") and hasattr(_ws.Base, "receive"):
        _name = "bare" if any("bare_broadcast" in a for a in sys.argv) else "tacmap"
        _state = {"read": None, "last": None, "spans": []}
        _send, _receive = _ws.Base.send, _ws.Base.receive

        def _sent(self, data):
            out = _send(self, data)
            if _state["read"] is not None:
                _state["last"] = time.perf_counter()
            return out

        def _received(self, *args, **kwargs):
            data = _receive(self, *args, **kwargs)
            if isinstance(data, str) and data.startswith("42"):  # a Socket.IO event (the command), not a ping
                if _state["read"] is not None and _state["last"] is not None:
                    _state["spans"].append((_state["last"] - _state["read"]) * 1000)
                    if len(_state["spans"]) % 20 == 0:
                        with open(f"{_prefix}.{_name}.json", "w") as f:
                            json.dump(_state["spans"], f)
                _state["read"], _state["last"] = time.perf_counter(), None
            return data

        _ws.Base.send, _ws.Base.receive = _sent, _received
