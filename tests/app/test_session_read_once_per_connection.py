"""A browser's session is read from the sessions table once per Socket.IO connection, not once per event: each
event pushes a request context on the connection's handshake environ, and Flask-SocketIO hands the handler the
copy of the session it took at the first event. The GM password's proof in the session still lets the GM's
connection in; another connection of the same browser reads the session afresh."""

from __future__ import annotations

from tests.helpers import bearer
from webapp.web.sessions import ServerSessions

from test_access_matrix import make_table, socket_client


def test_a_connections_commands_read_the_session_once_and_its_proof_still_counts(app, hub, monkeypatch):
    t = make_table(app)
    g = t["id"]
    assert app.test_client().post(f"/api/games/{g}/commands", json={"type": "set_gm_password", "password": "swordfish"},
                                  headers=bearer(t["gm_token"])).status_code == 200
    browser = app.test_client()
    browser.get(f"/games/{g}/gm?key={t['gm_token']}")
    assert browser.post(f"/games/{g}/gm/password", data={"password": "swordfish"}).status_code == 302

    reads: list[str] = []
    query = ServerSessions._query

    def counted(self, statement, params=()):
        if statement.startswith("SELECT"):
            reads.append(statement)
        return query(self, statement, params)

    monkeypatch.setattr(ServerSessions, "_query", counted)
    gm = socket_client(app, g, t["gm_token"], client=browser)
    assert gm.is_connected()  # the proof was read from the session at the handshake
    assert len(reads) == 1
    for x in (2, 3, 4, 5, 6):
        ack = gm.emit("command", {"type": "roll", "expr": "d6"}, callback=True)
        assert ack["ok"], ack
    assert len(reads) == 1, reads  # five commands, no read more

    # a second connection of the same browser (a page reloaded) reads it afresh, and the proof still counts
    again = socket_client(app, g, t["gm_token"], client=browser)
    assert again.is_connected() and len(reads) == 2
    # a browser without the proof is refused, as before
    assert not socket_client(app, g, t["gm_token"], client=app.test_client()).is_connected()
