"""Several processes (#37): each knows the languages every process's connections read, so an update is drawn
once per audience and language read somewhere, not in every language there is."""

from __future__ import annotations

import json
import time

from webapp.live import shared

from test_shared_presence import redis_server, redis_url  # noqa: F401  (fixtures)


def test_the_languages_of_every_process_are_known(redis_url):  # noqa: F811
    a = shared.Shared(shared.connect(redis_url))
    b = shared.Shared(shared.connect(redis_url))
    try:
        a.opened("sid-1", "g1", "player:p1", "de")
        b.opened("sid-2", "g1", "player:p1", "es")
        b.opened("sid-3", "g1", "gm", "en")
        # a connection written by a process from before #37 has no language: it reads English
        old = json.dumps(["sid-4", "old-process", "screen", time.time()])
        a.redis.zadd(a._key("g1"), {old: time.time() + 60})
        assert a.languages("g1") == {"player:p1": {"de", "es"}, "gm": {"en"}, "screen": {"en"}}
        assert {s[0] for s in a.sessions("g1")} == {"sid-1", "sid-2", "sid-3", "sid-4"}
        assert a.audiences("g1")["player:p1"] == 2
        b.closed("sid-2")
        assert a.languages("g1")["player:p1"] == {"de"}
    finally:
        a.close()
        b.close()
