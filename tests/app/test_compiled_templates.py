"""The compiled templates are kept in memory and in the data folder (webapp/live/screens/templating.py ``Compiled``): a
restarted server's first GM page compiles none of them again, a changed template is compiled anew, and a damaged
or unwritable folder costs only the compiling."""

from __future__ import annotations

import jinja2
import pytest

from tests.helpers import make_app, new_game
from webapp.live.screens import templating


@pytest.fixture
def compiles(monkeypatch):
    """The names of the templates Jinja compiles from their source while the test runs; the process's memory of
    compiled templates empty at its start (as in a fresh process)."""
    compiled: list[str] = []
    real = jinja2.Environment.compile

    def counted(self, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(name)
        return real(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    monkeypatch.setattr(templating, "_IN_MEMORY", {})
    return compiled


def gm_page(app) -> None:
    client = app.test_client()
    game = new_game(client)
    assert client.get(game["urls"]["gm"], follow_redirects=True).status_code == 200


def test_a_restarted_servers_first_gm_page_takes_its_templates_from_the_data_folder(tmp_path, compiles):
    gm_page(make_app(tmp_path / "data", DEMO=False))
    assert "gm.html" in compiles and len(compiles) > 10
    assert len(list((tmp_path / "data" / "compiled").glob("*.jinja"))) == len(set(compiles))
    templating._IN_MEMORY.clear()  # a new process: only the folder is left
    compiles.clear()
    gm_page(make_app(tmp_path / "data", DEMO=False))
    assert compiles == []


def test_another_app_in_the_same_process_compiles_nothing_again(tmp_path, compiles):
    gm_page(make_app(tmp_path / "one", DEMO=False))
    compiles.clear()
    gm_page(make_app(tmp_path / "two", DEMO=False))
    assert compiles == []
    assert not (tmp_path / "two" / "compiled").exists()  # taken from memory: nothing written twice


def env_of(folder, sources: dict) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.DictLoader(sources), bytecode_cache=templating.Compiled(folder))


def test_a_changed_template_is_compiled_anew_and_renders_its_new_text(tmp_path, compiles):
    assert env_of(tmp_path, {"t.html": "old {{ x }}"}).get_template("t.html").render(x=1) == "old 1"
    assert env_of(tmp_path, {"t.html": "old {{ x }}"}).get_template("t.html").render(x=2) == "old 2"
    assert compiles == ["t.html"]
    templating._IN_MEMORY.clear()
    assert env_of(tmp_path, {"t.html": "new {{ x }}"}).get_template("t.html").render(x=3) == "new 3"
    assert compiles == ["t.html", "t.html"]


def test_an_environment_that_compiles_differently_does_not_take_anothers_code(tmp_path, compiles):
    plain = env_of(tmp_path, {"t.html": "{{ '<b>' }}"})
    escaping = jinja2.Environment(loader=jinja2.DictLoader({"t.html": "{{ '<b>' }}"}), autoescape=True,
                                  bytecode_cache=templating.Compiled(tmp_path))
    assert plain.get_template("t.html").render() == "<b>"
    assert escaping.get_template("t.html").render() == "&lt;b&gt;"
    assert compiles == ["t.html", "t.html"]


def test_a_damaged_file_is_compiled_again_and_replaced(tmp_path, compiles):
    env_of(tmp_path, {"t.html": "x{{ 1 }}"}).get_template("t.html")
    (kept,) = tmp_path.glob("*.jinja")
    kept.write_bytes(kept.read_bytes()[:20])
    templating._IN_MEMORY.clear()
    assert env_of(tmp_path, {"t.html": "x{{ 1 }}"}).get_template("t.html").render() == "x1"
    assert compiles == ["t.html", "t.html"]
    templating._IN_MEMORY.clear()
    assert env_of(tmp_path, {"t.html": "x{{ 1 }}"}).get_template("t.html").render() == "x1"
    assert compiles == ["t.html", "t.html"]  # the whole file written back


def test_a_folder_that_cannot_be_made_costs_only_the_compiling(tmp_path, compiles):
    (tmp_path / "compiled").write_text("a file where the folder would be")  # as a folder one may not write to
    assert env_of(tmp_path / "compiled", {"t.html": "y"}).get_template("t.html").render() == "y"
    templating._IN_MEMORY.clear()
    assert env_of(tmp_path / "compiled", {"t.html": "y"}).get_template("t.html").render() == "y"
    assert compiles == ["t.html", "t.html"]


def test_precompiled_templates_leave_a_first_gm_page_and_a_fight_nothing_to_compile(tmp_path, compiles):
    app = make_app(tmp_path / "data", DEMO=False)
    names = app.jinja_env.list_templates()
    assert templating.precompile(app, lambda work, *args: work(*args)) == len(names) > 50
    assert sorted(compiles) == sorted(names)
    assert len(list((tmp_path / "data" / "compiled").glob("*.jinja"))) == len(names)
    compiles.clear()
    assert templating.precompile(app, lambda work, *args: work(*args)) == 0  # compiled already: a read each
    gm_page(app)
    assert compiles == []


def test_a_broken_template_is_left_to_its_first_use_and_the_others_are_compiled(tmp_path, compiles):
    app = make_app(tmp_path / "data", DEMO=False)
    app.jinja_env.loader = jinja2.ChoiceLoader([jinja2.DictLoader({"broken.html": "{% if %}"}), app.jinja_env.loader])
    count = templating.precompile(app, lambda work, *args: work(*args))
    assert count == len(app.jinja_env.list_templates()) - 1
    with pytest.raises(jinja2.TemplateSyntaxError):
        app.jinja_env.get_template("broken.html")
