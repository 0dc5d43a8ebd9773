""""fit" fits the whole map in view, both ways (issue #24): on a laptop whose window is short for a wide
map (Atomic Tomorrow's demo zone map) the lower zones were below the window's edge. Real Chromium
against a real server that made the demo games."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

# laptop windows (the screen less the browser's bars) and the full-HD one the table screen tests use
LAPTOPS = [{"width": 1366, "height": 657}, {"width": 1536, "height": 730}, {"width": 1920, "height": 969}]


@pytest.fixture
def server(demo_server):
    """These tests open the demo games a new user finds."""
    return demo_server



def open_rocket_port(server, new_page, viewport):
    gm = new_page(viewport=viewport)
    gm.goto(server.url + "/")
    gm.locator(".game-rows a", has_text="rocket-port").click()
    expect(gm.locator("#conn.ok")).to_be_visible()
    expect(gm.locator("#map")).to_have_attribute("data-board", "zones")
    return gm


def out_of_view(page) -> list[str]:
    """The zones (and the map's lower edge) not wholly inside both the map's frame and the window."""
    return page.evaluate("""() => {
        const f = document.getElementById('map-frame');
        const fr = f.getBoundingClientRect();
        const bottom = Math.min(fr.top + f.clientTop + f.clientHeight, window.innerHeight);
        const right = Math.min(fr.left + f.clientLeft + f.clientWidth, window.innerWidth);
        const out = [];
        const check = (name, r) => {
            if (r.top < fr.top - 0.5 || r.left < fr.left - 0.5 || r.bottom > bottom + 0.5 || r.right > right + 0.5)
                out.push(`${name}: ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`
                         + ` (room to ${Math.round(right)},${Math.round(bottom)})`);
        };
        document.querySelectorAll('#map .zone').forEach((z) => check(z.dataset.zone, z.querySelector('.zone-area').getBoundingClientRect()));
        check('the map', document.querySelector('#map .zone-floor').getBoundingClientRect());
        return out;
    }""")


@pytest.mark.parametrize("viewport", LAPTOPS, ids=lambda v: f"{v['width']}x{v['height']}")
def test_the_gm_laptop_shows_every_zone_of_the_demo_map_and_fit_fits_it_again(server, new_page, shot, viewport):
    gm = open_rocket_port(server, new_page, viewport)
    assert gm.locator("#map .zone").count() >= 5
    assert out_of_view(gm) == []  # the page opens on the whole map
    shot(gm, f"fit-gm-rocket-port-{viewport['width']}")
    gm.click("[data-zoom=in]")
    gm.click("[data-zoom=in]")
    assert out_of_view(gm) != []  # zoomed in: some of it is out of view
    gm.click("[data-zoom=fit]")
    assert out_of_view(gm) == []
    # fit keeps fitting when the window changes
    gm.set_viewport_size({"width": viewport["width"], "height": viewport["height"] - 120})
    for _ in range(20):  # the new fit comes with the next frame after the resize
        gm.wait_for_timeout(50)
        if out_of_view(gm) == []:
            break
    assert out_of_view(gm) == []


def test_fit_on_a_phone_still_fills_the_frames_width(server, new_page):
    gm = open_rocket_port(server, new_page, {"width": 390, "height": 844})
    gm.click("[data-zoom=fit]")
    assert out_of_view(gm) == []
    frame, svg = gm.locator("#map-frame"), gm.locator("#map")
    assert abs(svg.bounding_box()["width"] - frame.evaluate("f => f.clientWidth")) < 1.5
