"""The registry: built-ins, the plain grid, and plug-ins by entry point."""

import logging

import pytest

import rules
from rules.system import BaseSystem, PlainGrid, RuleNotImplemented, RuleSystem


class Chess(BaseSystem):
    id = "chess_plugin"
    name = "Chess (plug-in)"


class FakeEntryPoint:
    def __init__(self, name, obj, value="pkg:obj"):
        self.name, self._obj, self.value = name, obj, value

    def load(self):
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj


@pytest.fixture
def plugins(monkeypatch):
    found = []
    monkeypatch.setattr(rules, "entry_points", lambda group: found if group == rules.ENTRY_POINT_GROUP else [])
    rules.reset()
    yield found
    rules.reset()


def test_every_system_implements_the_interface(plugins):
    ids = [s.id for s in rules.systems()]
    assert ids[-1] == "plain_grid" and len(ids) == len(set(ids))
    for system in rules.systems():
        assert isinstance(system, RuleSystem)
        assert system.board in ("grid", "zones")
        assert system.diagonal in ("chebyshev", "alternating", "manhattan", "euclidean")
    for name in rules.BUILTIN_MODULES:
        # a system's class lives in its module, or in a module of its package
        assert any(
            type(s).__module__ == f"rules.{name}" or type(s).__module__.startswith(f"rules.{name}.")
            for s in rules.systems()
        )


def test_get_names_the_known_ids(plugins):
    assert isinstance(rules.get("plain_grid"), PlainGrid)
    with pytest.raises(KeyError, match="unknown game system 'nope'.*plain_grid"):
        rules.get("nope")


def test_plugins_by_entry_point(plugins):
    plugins.append(FakeEntryPoint("chess", Chess))  # a class: instantiated
    rules.reset()
    assert rules.get("chess_plugin").name == "Chess (plug-in)"
    assert [s.id for s in rules.systems()][-1] == "plain_grid"


def test_a_broken_or_duplicate_plugin_is_skipped(plugins, caplog):
    plugins.append(FakeEntryPoint("broken", ImportError("no such module"), "broken:SYSTEM"))
    plugins.append(FakeEntryPoint("chess", Chess()))
    plugins.append(FakeEntryPoint("chess-again", Chess(), "other:SYSTEM"))
    plugins.append(FakeEntryPoint("not-a-system", object(), "junk:thing"))
    rules.reset()
    with caplog.at_level(logging.WARNING, logger="rules"):
        ids = [s.id for s in rules.systems()]
    assert ids.count("chess_plugin") == 1
    assert "broken:SYSTEM" in caplog.text and "other:SYSTEM" in caplog.text and "junk:thing" in caplog.text


def test_the_base_system_says_what_it_does_not_automate():
    with pytest.raises(RuleNotImplemented, match="Plain grid.*attacks"):
        PlainGrid().attack(None, None)
