"""Zone maps: zones with tags, adjacency, distance, tokens, persistence."""

import json

import pytest

from rules.zones import ZoneMap


def street():
    zm = ZoneMap()
    zm.add_zone("bar", [(0, 0), (4, 0), (4, 3), (0, 3)], {"cover": "partial"})
    zm.add_zone("street", [(4, 0), (10, 0), (10, 3), (4, 3)])
    zm.add_zone("roof", tags={"cover": "none", "height": 2})
    zm.add_zone("sewer")
    zm.connect("bar", "street")
    zm.connect("street", "roof")
    return zm


def test_zones_and_tags():
    zm = street()
    assert zm.zones["bar"].tags["cover"] == "partial"
    assert zm.tag("roof", "height") == 2 and zm.tag("street", "cover", "none") == "none"
    zm.set_tags("street", {"cover": "light"})
    assert zm.tag("street", "cover") == "light"
    with pytest.raises(ValueError, match="already"):
        zm.add_zone("bar")
    with pytest.raises(KeyError, match="no zone 'moon'"):
        zm.adjacent("moon")


def test_adjacency_and_distance():
    zm = street()
    assert zm.adjacent("street") == ["bar", "roof"]
    assert zm.zone_distance("bar", "bar") == 0
    assert zm.zone_distance("bar", "street") == 1
    assert zm.zone_distance("roof", "bar") == 2
    assert zm.zone_distance("bar", "sewer") is None
    with pytest.raises(ValueError):
        zm.connect("bar", "bar")
    zm.disconnect("bar", "street")
    assert zm.zone_distance("bar", "roof") is None


def test_tokens():
    zm = street()
    zm.place("t1", "bar")
    zm.place("t2", "bar")
    zm.place("t3", "roof")
    assert zm.tokens_in("bar") == ["t1", "t2"] and zm.zone_of("t3") == "roof"
    assert zm.token_distance("t1", "t3") == 2
    zm.place("t1", "street")
    assert zm.tokens_in("bar") == ["t2"] and zm.zone_of("t1") == "street"
    zm.remove_token("t2")
    assert zm.zone_of("t2") is None and zm.token_distance("t2", "t1") is None
    with pytest.raises(KeyError):
        zm.place("t4", "moon")
    zm.remove_zone("roof")
    assert zm.zone_of("t3") is None and zm.adjacent("street") == ["bar"]


def test_round_trip():
    zm = street()
    zm.place("t1", "bar")
    d = zm.to_dict()
    assert d["links"] == [["bar", "street"], ["roof", "street"]]
    again = ZoneMap.from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == d and again == zm
    with pytest.raises(ValueError):
        ZoneMap.from_dict({"zones": [{"outline": []}]})
