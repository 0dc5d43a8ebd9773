"""Socket.IO handlers, one module per domain; ``register`` wires them to a server."""

from __future__ import annotations

from . import table


def register(socketio, hub) -> None:
    table.register(socketio, hub)
