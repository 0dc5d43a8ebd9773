"""webapp/live/wire.py on real sockets: a Werkzeug server on a random port (as ``tacmap serve`` runs it) and
clients reading real websocket frames.

A broadcast is written from the sending thread when nothing waits before it on that socket, else by the
socket's writer thread; these tests check what must hold whichever path a frame takes: frames whole and
in the order sent (broadcasts, acks and pings), a client that stops reading never holds up the sender,
closing sockets, long-polling and the upgrade from it, tacmap itself with and without the Redis queue."""

from __future__ import annotations

import json
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import socketio
import websocket
from flask import Flask
from flask_socketio import SocketIO, join_room
from werkzeug.serving import make_server

from webapp import create_app
from webapp.live import wire
from webapp.live.serving import NoDelayHandler

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.live import in_arrival_order  # noqa: E402  (a page's order: one message at a time, as read)

ROOM = "room"
DEADLINE = 20


class Served:
    """An app on a real threaded Werkzeug server on 127.0.0.1, random port; ``stop()`` ends it."""

    def __init__(self, app) -> None:
        self.server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=NoDelayHandler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(5)


def bare(direct: bool = True, **options):
    """A Flask-SocketIO app as tacmap's (threading, simple-websocket): a client joins one room."""
    app = Flask(__name__)
    sio = SocketIO(app, async_mode="threading", logger=False, engineio_logger=False, **options)
    if direct:
        assert wire.install(sio)

    @sio.on("connect")
    def connect(auth=None):
        join_room(ROOM)

    return app, sio


@pytest.fixture
def served():
    started = []

    def start(app):
        started.append(Served(app))
        return started[-1]

    yield start
    for s in started:
        s.stop()


class Raw:
    """A Socket.IO client over a plain websocket (websocket-client): every frame as it came, in order.
    ``rcvbuf`` shrinks the socket's receive buffer (set before connecting, so the TCP window is small);
    ``reading`` cleared, the client stops reading and the server's sends pile up."""

    def __init__(self, url: str, rcvbuf: int | None = None, answer_pings: bool = True) -> None:
        opts = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
        if rcvbuf:
            opts.append((socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf))
        self.ws = websocket.create_connection(url.replace("http", "ws") + "/socket.io/?EIO=4&transport=websocket",
                                              sockopt=opts, timeout=DEADLINE)
        opened = self.ws.recv()
        assert opened.startswith("0"), opened
        self.ws.send("40")
        connected = self.ws.recv()
        assert connected.startswith("40"), connected
        self.sid = json.loads(opened[1:])["sid"]  # the engine.io sid: the server's key for this socket
        self.sio_sid = json.loads(connected[2:])["sid"]  # the Socket.IO sid (rooms, disconnect)
        self.answer_pings = answer_pings
        self.events: list = []  # every event's arguments, in arrival order
        self.arrivals: list = []  # ("update", seq) and ("ack", n) in the order they came
        self.acks: dict[int, list] = {}
        self.pings = 0
        self.error: BaseException | None = None
        self.closed = False
        self.cond = threading.Condition()
        self.reading = threading.Event()
        self.reading.set()
        self._next_ack = 0
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                self.reading.wait()
                msg = self.ws.recv()
                if not msg:
                    break
                with self.cond:
                    if msg == "2":
                        self.pings += 1
                        if self.answer_pings:
                            self.ws.send("3")
                    elif msg.startswith("42"):
                        self.events.append(json.loads(msg[2:]))
                        if self.events[-1][0] == "update":
                            self.arrivals.append(("update", self.events[-1][1]["seq"]))
                    elif msg.startswith("43"):
                        body = msg[2:]
                        n = len(body) - len(body.lstrip("0123456789"))
                        self.acks[int(body[:n])] = json.loads(body[n:])
                        self.arrivals.append(("ack", int(body[:n])))
                    elif msg.startswith("41") or msg == "1":
                        self.arrivals.append(("disconnect", msg))
                        break
                    else:
                        raise AssertionError(f"unexpected packet {msg[:80]!r}")
                    self.cond.notify_all()
        except BaseException as exc:  # noqa: BLE001 - a broken frame, or the socket closed under us
            if not self.closed:
                self.error = exc
        finally:
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    def call(self, event: str, data) -> int:
        with self.cond:
            n = self._next_ack
            self._next_ack += 1
        self.ws.send(f"42{n}" + json.dumps([event, data]))
        return n

    def wait(self, check, timeout: float = DEADLINE) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not check():
                left = deadline - time.monotonic()
                if left <= 0 or (self.closed and not check()):
                    return check()
                self.cond.wait(left)
        return True

    def seqs(self) -> list[int]:
        with self.cond:
            return [args[1]["seq"] for args in self.events if args[0] == "update"]

    def close(self) -> None:
        self.closed = True
        self.reading.set()
        try:
            self.ws.close(timeout=1)
        except Exception:  # noqa: BLE001
            pass


def pipe_of(sio, client: Raw) -> wire.Pipe:
    return sio.server.eio.sockets[client.sid].wire_pipe


def wait_direct(sio, clients: list[Raw]) -> None:
    """Until each socket's writer has sent the handshake and direct writes are on."""
    deadline = time.monotonic() + DEADLINE
    while not all(pipe_of(sio, c).direct for c in clients):
        assert time.monotonic() < deadline, "direct writes never started"
        time.sleep(0.01)


class Broadcaster:
    """Emits ``update`` {seq, body} to the room; ``seq`` counts up under one lock, as tacmap's hub does
    (emit under the game's lock): the order every client must see."""

    def __init__(self, sio) -> None:
        self.sio, self.lock, self.seq = sio, threading.Lock(), 0
        self.slowest = 0.0

    def emit(self, size: int = 50) -> int:
        with self.lock:
            self.seq += 1
            seq = self.seq
            t = time.perf_counter()
            self.sio.emit("update", {"seq": seq, "body": body(seq, size)}, to=ROOM)
            self.slowest = max(self.slowest, time.perf_counter() - t)
        return seq


def body(seq: int, size: int) -> str:
    """Text that says which message it belongs to all along: a frame cut or spliced shows."""
    unit = f"<{seq}>"
    return (unit * (size // len(unit) + 1))[:size]


def intact(client: Raw) -> bool:
    return all(args[1]["body"] == body(args[1]["seq"], len(args[1]["body"])) for args in client.events
               if args[0] == "update")


def test_broadcasts_acks_and_pings_arrive_whole_and_in_order_from_many_threads(served):
    """Four threads broadcast (one lock orders them, as the hub's), a client's commands broadcast an update
    and are acked after it (as tacmap's), the server pings every 0.1 s, all on the same sockets at once:
    every client gets every update, in order, whole; each ack comes after its command's update; the
    pings arrive; the frames went out directly."""
    app, sio = bare(ping_interval=0.1, ping_timeout=5)
    caster = Broadcaster(sio)

    @sio.on("command")
    def command(data):
        return {"seq": caster.emit(100)}  # the update goes out before the ack, as in tacmap's hub

    server = served(app)
    clients = [Raw(server.url) for _ in range(5)]
    try:
        wait_direct(sio, clients)
        per_thread = 300

        def run():
            for i in range(per_thread):
                caster.emit(random.choice((20, 200, 2000)))

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        calls = []
        for i in range(50):
            calls.append(clients[0].call("command", i))
            time.sleep(0.005)
        for t in threads:
            t.join(DEADLINE)
        total = 4 * per_thread + len(calls)
        for c in clients:
            assert c.wait(lambda c=c: len(c.seqs()) >= total), (len(c.seqs()), c.error)
            assert c.seqs() == list(range(1, total + 1))
            assert intact(c)
            assert c.error is None and not c.closed
        first = clients[0]
        assert first.wait(lambda: len(first.acks) == len(calls))
        for n in calls:
            seq = first.acks[n][0]["seq"]
            assert first.arrivals.index(("update", seq)) < first.arrivals.index(("ack", n))
        assert all(c.pings >= 2 for c in clients)  # pings went out (answered, so nobody timed out)
        pipes = [pipe_of(sio, c) for c in clients]
        assert all(p.direct_writes >= total for p in pipes)  # the updates at least, written directly
    finally:
        for c in clients:
            c.close()


def test_a_slow_reader_gets_every_frame_whole_while_direct_and_writer_thread_writes_alternate(served):
    """A client with a small receive window that reads in fits: the server's sends hit a full buffer
    (the rest goes to the writer thread) and then direct writes resume, many times over, with sizes
    on both sides of the frame header's length forms. Every frame arrives whole, in order."""
    app, sio = bare()
    server = served(app)
    slow, fast = Raw(server.url, rcvbuf=4096), Raw(server.url)
    try:
        wait_direct(sio, [slow, fast])
        caster = Broadcaster(sio)
        rng = random.Random(7)

        def reader_in_fits():
            while not slow.closed:
                slow.reading.clear()
                time.sleep(rng.choice((0.0, 0.002, 0.02)))
                slow.reading.set()
                time.sleep(0.002)

        fits = threading.Thread(target=reader_in_fits, daemon=True)
        fits.start()
        count = 600
        for _ in range(count):
            caster.emit(rng.choice((10, 120, 130, 5000, 60000, 70000)))
        for c in (fast, slow):
            assert c.wait(lambda c=c: len(c.seqs()) >= count, 60), (len(c.seqs()), c.error)
            assert c.seqs() == list(range(1, count + 1))
            assert intact(c) and c.error is None
        pipe = pipe_of(sio, slow)
        assert pipe.deferred > 10 and pipe.direct_writes > 10, (pipe.deferred, pipe.direct_writes)  # both paths
    finally:
        slow.closed = True
        for c in (slow, fast):
            c.close()


def test_a_client_that_stops_reading_never_holds_up_the_sender(served):
    """One client stops reading: its TCP buffers fill and its writer thread blocks. The sender goes on at
    once (no emit takes long), the other client gets everything; when the stuck one reads again it gets
    everything too, in order."""
    app, sio = bare()
    server = served(app)
    stuck, other = Raw(server.url, rcvbuf=4096), Raw(server.url)
    try:
        wait_direct(sio, [stuck, other])
        stuck.reading.clear()
        caster = Broadcaster(sio)
        count, size = 150, 64 * 1024  # ~10 MB: more than the socket buffers hold (4 MB send, 4 KB receive)
        sender = threading.Thread(target=lambda: [caster.emit(size) for _ in range(count)], daemon=True)
        sender.start()
        sender.join(10)  # a sender held up by the stuck client would wait here until it reads again
        assert not sender.is_alive(), f"the sender is held up after {caster.seq} of {count} updates"
        assert other.wait(lambda: len(other.seqs()) >= count, 60)
        assert other.seqs() == list(range(1, count + 1))
        pipe = pipe_of(sio, stuck)
        with pipe.lock:
            assert pipe.backlog or pipe.sending  # the stuck socket's data waits, the sender did not
        assert caster.slowest < 0.5, caster.slowest
        stuck.reading.set()
        assert stuck.wait(lambda: len(stuck.seqs()) >= count, 60), len(stuck.seqs())
        assert stuck.seqs() == list(range(1, count + 1)) and intact(stuck)
    finally:
        stuck.reading.set()
        for c in (stuck, other):
            c.close()


def test_clients_that_close_or_vanish_mid_broadcast_leave_the_others_served(served):
    """While a thread broadcasts without pause, clients go: some with a close frame, some by dropping the
    TCP connection. The sender never fails, the remaining client gets every update in order, and every
    closed socket's writer thread ends."""
    app, sio = bare()
    server = served(app)
    keeper = Raw(server.url)
    leavers = [Raw(server.url) for _ in range(8)]
    try:
        wait_direct(sio, [keeper] + leavers)
        assert len([t for t in threading.enumerate() if t.name.endswith("(writer)")]) == 1 + len(leavers)
        caster = Broadcaster(sio)
        stop, failures = threading.Event(), []

        def run():
            try:
                while not stop.is_set():
                    caster.emit(500)
                    time.sleep(0.0005)
            except BaseException as exc:  # noqa: BLE001
                failures.append(exc)

        sender = threading.Thread(target=run)
        sender.start()
        try:
            for i, c in enumerate(leavers):
                time.sleep(0.05)
                if i % 2:
                    c.close()
                else:  # no close frame: the TCP connection just goes
                    c.closed = True
                    raw = c.ws.sock
                    raw.shutdown(socket.SHUT_RDWR)
                    raw.close()
            time.sleep(0.2)
        finally:
            stop.set()
            sender.join(DEADLINE)
        assert not failures, failures
        last = caster.seq
        assert keeper.wait(lambda: len(keeper.seqs()) >= last)
        assert keeper.seqs() == list(range(1, last + 1)) and keeper.error is None
        writers = lambda: [t for t in threading.enumerate() if t.name.endswith("(writer)")]  # engineio's  # noqa: E731
        open_sockets = lambda: [sid for sid, s in list(sio.server.eio.sockets.items()) if not s.closed]  # noqa: E731
        deadline = time.monotonic() + DEADLINE
        while open_sockets() != [keeper.sid] or len(writers()) != 1:
            assert time.monotonic() < deadline, (open_sockets(), writers())
            time.sleep(0.05)
    finally:
        keeper.close()
        for c in leavers:
            c.close()


def test_a_disconnect_by_the_server_comes_after_everything_sent_before_it(served):
    """The server ends a connection (as tacmap does when a game is deleted) right after broadcasting:
    the client gets every update first, then the disconnect; the socket's writer thread ends; the other
    client goes on getting updates."""
    app, sio = bare()
    server = served(app)
    leaving, staying = Raw(server.url), Raw(server.url)
    try:
        wait_direct(sio, [leaving, staying])
        caster = Broadcaster(sio)
        for _ in range(200):
            caster.emit(1000)
        sio.server.disconnect(leaving.sio_sid, namespace="/")
        caster.emit(1000)
        assert leaving.wait(lambda: leaving.closed)
        assert leaving.arrivals[:200] == [("update", seq) for seq in range(1, 201)]
        assert leaving.arrivals[200][0] == "disconnect" and len(leaving.arrivals) == 201, leaving.arrivals[195:]
        assert staying.wait(lambda: len(staying.seqs()) >= 201) and staying.seqs() == list(range(1, 202))
        leaving.close()  # as a client does when told so (the engine.io connection is the client's to end)
        deadline = time.monotonic() + DEADLINE
        while len([t for t in threading.enumerate() if t.name.endswith("(writer)")]) != 1:
            assert time.monotonic() < deadline, "the closed socket's writer thread did not end"
            time.sleep(0.05)
    finally:
        for c in (leaving, staying):
            c.close()


@pytest.mark.parametrize("transports", [["polling"], ["polling", "websocket"]])
def test_long_polling_and_the_upgrade_from_it_keep_every_update_in_order(served, transports):
    """Long-polling only: stock writes (no pipe). Polling then websocket (python-socketio's default, a
    browser's too): broadcasts flow during the upgrade, none is lost or reordered, and the websocket
    then writes directly."""
    app, sio = bare()
    server = served(app)
    got, cond = [], threading.Condition()
    client = in_arrival_order(socketio.Client(reconnection=False))

    @client.on("update")
    def update(data):
        with cond:
            got.append(data["seq"])
            cond.notify_all()

    caster = Broadcaster(sio)
    stop = threading.Event()

    def run():
        while not stop.is_set():
            caster.emit(300)
            time.sleep(0.001)

    try:
        client.connect(server.url, transports=transports, wait_timeout=DEADLINE)
        sender = threading.Thread(target=run)
        sender.start()
        deadline = time.monotonic() + DEADLINE
        while client.transport() != transports[-1] or caster.seq < 300:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        stop.set()
        sender.join(DEADLINE)
        last = caster.seq
        with cond:
            assert cond.wait_for(lambda: got and got[-1] == last, DEADLINE), (got[-3:], last)
        first = got[0]
        assert got == list(range(first, last + 1))  # from the first it had on, everything, in order
        eio_socket = sio.server.eio.sockets[client.eio.sid]
        pipe = getattr(eio_socket, "wire_pipe", None)
        if transports == ["polling"]:
            assert pipe is None
        else:
            assert pipe is not None and pipe.direct and pipe.direct_writes > 0
    finally:
        stop.set()
        client.disconnect()


REDIS = shutil.which("redis-server")


@pytest.fixture
def redis_url(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        from webapp.live import shared

        deadline = time.monotonic() + 10
        while True:
            try:
                shared.connect(f"redis://127.0.0.1:{port}/0")
                break
            except shared.QueueUnavailable:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.kill()
        proc.wait(10)


@pytest.mark.parametrize("queue", [False, pytest.param(True, marks=pytest.mark.skipif(
    REDIS is None, reason="redis-server is not installed (scripts/test installs it)"))])
def test_tacmap_moves_reach_every_screen_directly(served, tmp_path, request, queue):
    """tacmap itself (create_app, default config): a GM moves a token ten times, the GM's connection and
    three table screens get every change in order, written directly; with the Redis message queue too
    (there the emits come from the queue's listener thread)."""
    config = {"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "test", "DEMO": False}
    if queue:
        config["MESSAGE_QUEUE"] = request.getfixturevalue("redis_url")
    app = create_app(config)
    sio = app.extensions["tacmap_socketio"]
    web = app.test_client()
    g = web.post("/api/games", json={"name": "wire", "system": "plain_grid"}).get_json()
    token = web.post(f"/api/games/{g['id']}/tokens", json={"name": "Ogre", "x": 3, "y": 3},
                     headers={"Authorization": f"Bearer {g['gm_token']}"}).get_json()["id"]
    server = served(app)
    screens = []
    try:
        for key in [g["gm_token"]] + [g["screen_token"]] * 3:
            seen, cond = [], threading.Condition()
            client = in_arrival_order(socketio.Client(reconnection=False))

            def update(msg, seen=seen, cond=cond):
                with cond:
                    if msg.get("from_seq") is not None and msg["from_seq"] != msg["seq"]:
                        seen.append((msg["from_seq"], msg["seq"]))
                    cond.notify_all()

            client.on("update", update)
            client.connect(server.url, auth={"game": g["id"], "token": key}, transports=["websocket"],
                           wait_timeout=DEADLINE)
            screens.append((client, seen, cond))
        gm = screens[0][0]
        last = None
        for i in range(10):
            ack = gm.call("command", {"type": "move_token", "token_id": token, "x": 4 + i % 2, "y": 3},
                          timeout=DEADLINE)
            assert ack["ok"], ack
            last = ack["seq"]
        for client, seen, cond in screens:
            with cond:
                assert cond.wait_for(lambda seen=seen: seen and seen[-1][1] == last, DEADLINE), seen[-3:]
            assert all(b == a2 for (_a, b), (a2, _b) in zip(seen, seen[1:]))  # each change follows the last
            pipe = sio.server.eio.sockets[client.eio.sid].wire_pipe
            assert pipe.direct and pipe.direct_writes >= 10
    finally:  # together: websocket-client waits up to 3 s for each close handshake
        closing = [threading.Thread(target=client.disconnect) for client, _seen, _cond in screens]
        for t in closing:
            t.start()
        for t in closing:
            t.join(DEADLINE)
        if queue:  # the queue's listener retries (and logs) for ever once its redis-server is gone: park it
            sio.server.manager._redis_connect = threading.Event().wait  # a daemon thread, waiting for nothing


def test_a_quiet_connection_stays_open_across_many_ping_intervals(served):
    """Nothing but pings for several times ping_interval + ping_timeout: python-socketio's own client (what
    the benchmarks use; a browser's socket.io-client keeps the same timer) stays connected and then gets
    the next update. Stock engine.io ends a websocket whose writer found its queue empty that long, which
    with direct writes (pings included) is every quiet socket: here it must wait on."""
    app, sio = bare(ping_interval=1, ping_timeout=1)
    server = served(app)
    client = socketio.Client(reconnection=False)
    got, dropped = [], []
    client.on("update", got.append)
    client.on("disconnect", lambda *reason: dropped.append(reason))
    client.connect(server.url, transports=["websocket"], wait_timeout=DEADLINE)
    try:
        time.sleep(5.0)  # two and a half times ping_interval + ping_timeout
        assert client.connected and not dropped, dropped
        assert all(s.wire_pipe.direct for s in sio.server.eio.sockets.values()), "the socket never went direct"
        Broadcaster(sio).emit(10)
        deadline = time.monotonic() + DEADLINE
        while not got and time.monotonic() < deadline:
            time.sleep(0.02)
        assert got and got[0]["seq"] == 1, got
    finally:
        client.disconnect()


def test_a_websocket_that_closes_during_the_upgrade_leaves_the_session_delivering_on_long_polling(served):
    """A client starts on long-polling, opens the websocket for the upgrade, gets the probe answered and then
    loses the websocket before it upgrades (a Wi-Fi hiccup). The session stays on long-polling: what is sent
    to it afterwards arrives on its next polls, at once, not after engine.io's ping timeout."""
    import urllib.request

    app, sio = bare()
    server = served(app)
    base = f"{server.url}/socket.io/?EIO=4&transport=polling"

    def poll(sid: str, timeout: float) -> list[str]:
        with urllib.request.urlopen(f"{base}&sid={sid}&t={time.monotonic_ns()}", timeout=timeout) as r:
            return r.read().decode().split("\x1e")

    with urllib.request.urlopen(base, timeout=5) as r:
        sid = json.loads(r.read().decode()[1:])["sid"]
    req = urllib.request.Request(f"{base}&sid={sid}", data=b"40", method="POST")
    with urllib.request.urlopen(req, timeout=5) as r:
        assert r.read() == b"OK"
    assert poll(sid, 5)[0].startswith("40")  # connected to the namespace: in the room

    ws = websocket.create_connection(server.url.replace("http", "ws") + f"/socket.io/?EIO=4&transport=websocket&sid={sid}",
                                     timeout=5)
    ws.send("2probe")
    assert ws.recv() == "3probe"
    ws.sock.shutdown(socket.SHUT_RDWR)  # gone before the upgrade packet ("5")
    ws.sock.close()
    eio_socket = sio.server.eio.sockets[sid]
    deadline = time.monotonic() + DEADLINE
    while eio_socket.upgrading:  # engine.io sees the websocket end
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert not eio_socket.upgraded

    caster = Broadcaster(sio)
    sent = [caster.emit(10) for _ in range(3)]
    got: list[int] = []
    started = time.monotonic()
    while len(got) < len(sent):
        assert time.monotonic() - started < 5, f"only {got} of {sent} on long-polling after 5 s"
        for packet in poll(sid, 5):
            if packet.startswith('42["update"'):
                got.append(json.loads(packet[2:])[1]["seq"])
    assert got == sent


def test_a_large_message_is_compressed_for_a_client_that_negotiated_permessage_deflate(served):
    """A resync is hundreds of KB: to a client that offered permessage-deflate (every browser does) a large
    message goes compressed, a small one stays the room's shared uncompressed frame, and all arrive whole
    and in order."""
    from wsproto import ConnectionType, WSConnection
    from wsproto.events import AcceptConnection, Request, TextMessage
    from wsproto.extensions import PerMessageDeflate

    app, sio = bare()
    server = served(app)
    conn = socket.create_connection(("127.0.0.1", int(server.url.rsplit(":", 1)[1])), timeout=DEADLINE)
    ws = WSConnection(ConnectionType.CLIENT)
    conn.sendall(ws.send(Request(host="127.0.0.1", target="/socket.io/?EIO=4&transport=websocket",
                                 extensions=[PerMessageDeflate()])))
    messages: list[str] = []
    received = [0]

    def read_until(count: int) -> None:
        deadline = time.monotonic() + DEADLINE
        while len(messages) < count:
            assert time.monotonic() < deadline, messages[-2:]
            data = conn.recv(65536)
            assert data, "closed"
            received[0] += len(data)
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, AcceptConnection):
                    assert event.extensions, "the server did not accept permessage-deflate"
                elif isinstance(event, TextMessage):
                    assert event.message_finished
                    messages.append(event.data)

    read_until(1)
    assert messages[0].startswith("0{")
    conn.sendall(ws.send(TextMessage(data="40")))
    read_until(2)
    assert messages[1].startswith("40")
    eio_socket = sio.server.eio.sockets[json.loads(messages[0][1:])["sid"]]
    deadline = time.monotonic() + DEADLINE
    while not eio_socket.wire_pipe.direct:
        assert time.monotonic() < deadline
        time.sleep(0.01)

    caster = Broadcaster(sio)
    before = received[0]
    seqs = [caster.emit(200_000), caster.emit(100), caster.emit(200_000)]
    read_until(5)
    updates = [json.loads(m[2:])[1] for m in messages[2:]]
    assert [u["seq"] for u in updates] == seqs
    assert all(u["body"] == body(u["seq"], len(u["body"])) for u in updates)
    assert len(updates[0]["body"]) == 200_000 and len(updates[2]["body"]) == 200_000
    assert received[0] - before < 100_000  # 400 KB of text went compressed
    assert eio_socket.wire_pipe.compressed == 2  # the small one was not
    conn.close()
