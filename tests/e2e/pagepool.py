"""The pages a browser-test worker keeps between its tests (#71): a test's ``new_page`` takes a page left by an
earlier test of the same kind (the same viewport and context options) where one is free, instead of a new browser
context and a new page.

Why: opening a page is a good part of what a short browser test costs. Measured on a 2-core machine (Chromium
156, CPU of the whole machine per page): a new context with a new page and the GM page loaded, 1.7 s; the same
page loaded again in a page already made, 0.9 s (phones and the table screen, new: 1.0-1.3 s). A new context costs
the browser process's work and a new renderer process; a kept page has both. Three test files took 4.5% less CPU.

What a kept page keeps of its last test: nothing a test could read. It is handed back only when its test passed
and it was used in ways that can be undone, and then undone:

- the test's listeners (``on``/``once`` on the page and on its context, the page errors' watch included) removed;
- the page's and its context's storage for the origin it was on emptied (``localStorage``, where the device's id
  lives, and ``sessionStorage``, by the page itself; then the browser's own stores for that origin over the
  DevTools protocol, cookies, IndexedDB and caches included), every cookie of the context cleared, the page left
  at ``about:blank`` (its sockets closed, its timers gone), its viewport and default timeout as made, the context
  online again;
- any other page of the context closed.

A page whose test failed, that went to a second origin (the LAN name and loopback are two: their storage could
not both be emptied the same way), that a test gave an init script, an exposed function, a route, a DevTools
command other than input (touches are sent so), media emulation, permissions, a geolocation or extra headers, or
that would not leave its page (a ``beforeunload`` that holds it), is closed with its context, as every page was
before. What stays is the browser's
HTTP cache of the static files, as a phone at a real table keeps it between two evenings.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

#: what a test may do to a page or its context that cannot be taken back: such a page is closed after its test
TAINTING = {"page": ("add_init_script", "expose_function", "expose_binding", "route", "route_from_har",
                     "route_web_socket", "emulate_media", "set_extra_http_headers"),
            "context": ("add_init_script", "expose_function", "expose_binding", "route", "route_from_har",
                        "route_web_socket", "grant_permissions", "set_geolocation",
                        "set_extra_http_headers", "add_cookies")}
TIMEOUT = 10000  # ms: every page's default timeout, as new_page has always set it


class Kept:
    """One page of a test: its context, the options it was made with, what the test did to it."""

    def __init__(self, page, key: str, viewport: dict) -> None:
        self.page, self.key, self.viewport = page, key, viewport
        self.context = page.context
        self.listeners: list[tuple[object, str, object]] = []
        self.tainted: list[str] = []
        self.sessions: list = []  # DevTools sessions the test opened (touches sent through them), detached after
        self.offline = False
        self.origins: set[str] = set()
        self._watch(self.page, "page")
        self._watch(self.context, "context")
        self.page.on("framenavigated", self._navigated)

    def _navigated(self, frame) -> None:
        if frame.parent_frame is None:
            parts = urlsplit(frame.url)
            if parts.scheme in ("http", "https"):
                self.origins.add(f"{parts.scheme}://{parts.netloc}")

    def _watch(self, target, kind: str) -> None:
        """Record the listeners the test adds and the calls that cannot be undone (on the instance: the API's
        own methods, called through)."""
        kept = self

        def recorder(method):
            def add(event, f):
                kept.listeners.append((target, event, f))
                return method(event, f)
            return add

        target.on = recorder(type(target).on.__get__(target))
        target.once = recorder(type(target).once.__get__(target))
        for name in TAINTING[kind]:
            method = getattr(type(target), name, None)
            if method is None:
                continue

            def taint(*args, _name=name, _method=method.__get__(target), **kw):
                kept.tainted.append(f"{kind}.{_name}")
                return _method(*args, **kw)
            setattr(target, name, taint)
        if kind == "context":
            new_cdp_session = type(target).new_cdp_session.__get__(target)

            def cdp(*args, **kw):
                session = new_cdp_session(*args, **kw)
                kept.sessions.append(session)
                send = session.send

                def sent(method, params=None):
                    if not method.startswith("Input."):  # input leaves nothing behind; an emulation would
                        kept.tainted.append(f"cdp {method}")
                    return send(method, params)
                session.send = sent
                return session
            target.new_cdp_session = cdp
            set_offline = type(target).set_offline.__get__(target)

            def offline(value):
                kept.offline = bool(value)
                return set_offline(value)
            target.set_offline = offline

    def reset(self) -> bool:
        """Undo the test's traces (see the module's doc); False when the page cannot be kept."""
        page, context = self.page, self.context
        if self.tainted or page.is_closed() or len(self.origins) > 1:
            return False
        for other in context.pages:
            if other is not page:
                other.close()
        for target, event, f in self.listeners:
            target.remove_listener(event, f)
        self.listeners.clear()
        for name in ("on", "once", *TAINTING["page"]):
            page.__dict__.pop(name, None)
        for session in self.sessions:
            try:
                session.detach()
            except Exception:  # noqa: BLE001 (detached already)
                pass
        for name in ("on", "once", "set_offline", "new_cdp_session", *TAINTING["context"]):
            context.__dict__.pop(name, None)
        if self.offline:
            context.set_offline(False)
        if page.url.startswith(("http://", "https://")):
            page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
        page.goto("about:blank", timeout=5000)
        if page.url != "about:blank":
            return False
        if self.origins:
            cdp = context.new_cdp_session(page)
            try:
                for origin in self.origins:
                    cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            finally:
                cdp.detach()
        context.clear_cookies()
        page.set_viewport_size(self.viewport)
        page.set_default_timeout(TIMEOUT)
        return True


class PagePool:
    """A worker's kept pages, by the options they were made with."""

    def __init__(self, browser) -> None:
        self.browser = browser
        self.free: dict[str, list] = {}

    def take(self, viewport: dict | None, kw: dict) -> Kept:
        viewport = viewport or {"width": 1280, "height": 800}
        key = json.dumps([viewport, kw], sort_keys=True, default=str)
        free = self.free.get(key)
        if free:
            page = free.pop()
        else:
            page = self.browser.new_context(viewport=viewport, **kw).new_page()
            page.set_default_timeout(TIMEOUT)
        return Kept(page, key, viewport)

    def give_back(self, kept: Kept, passed: bool) -> None:
        """Keep the page for a later test when its test passed and its traces could be undone; else close it."""
        keep = False
        if passed:
            try:
                keep = kept.reset()
            except Exception:  # noqa: BLE001 (a page that will not reset is closed, as every page was before)
                keep = False
        if keep:
            self.free.setdefault(kept.key, []).append(kept.page)
        else:
            try:
                kept.context.close()
            except Exception:  # noqa: BLE001 (the browser gone: nothing to close)
                pass
