"""What keeps another web page from acting as the GM or a player: response headers, CSRF, socket origins.

- Headers (flask-talisman): a Content-Security-Policy that runs only this site's own script files
  (no inline script, no eval), refuses framing, plugins and foreign form targets; nosniff; a referrer
  policy that keeps key-bearing URLs on this site. No HTTPS forcing and no HSTS: tacmap is served over
  plain http on a LAN (a reverse proxy may add TLS in front).
- CSRF (Flask-WTF): every browser POST outside the JSON API carries the page's token (a form field or
  the ``X-CSRFToken`` header); the JSON API is authenticated by ``Authorization: Bearer``, which a
  foreign page cannot send without CORS, so it is exempt.
- Socket.IO accepts a browser connection only from this server's own origin, or from an origin
  configured for a reverse proxy (``ALLOWED_ORIGINS``, ``TACMAP_ALLOWED_ORIGINS``, ``--allowed-origin``).
  A client that sends no Origin header at all (a script, a bot, a test) is not a browser and is let in:
  it still needs a key to join a game.
- Caching: an answer that says nothing of its own caching gets ``Cache-Control: no-store``: pages and API
  answers carry keys (the GM's links, a seat's key, the session's CSRF token) or what only one audience may see
  (hidden tokens, secret rolls), and a browser's disk or a proxy in front must keep none of them; static files,
  the catalogs' scripts, the manifest and map pictures say their own. An HTML page also says ``Vary:
  Accept-Language``: it is rendered in the reader's language (issue 57).
"""

from __future__ import annotations


from flask import Flask, has_request_context, request
from flask_babel import gettext as _
from flask_talisman import Talisman
from flask_wtf.csrf import CSRFError, CSRFProtect, generate_csrf
from markupsafe import Markup, escape

from ..game.core.text import N_
from .network import PERMISSIONS, Door, allowed_origins, normalize_origin

CSP = {
    # media too (no media-src of its own): the silent video that keeps phones awake, static/media/ (issue #61)
    "default-src": "'self'",
    "script-src": "'self'",
    # the SVG map, the templates and htmx's swaps set style= attributes
    "style-src": "'self' 'unsafe-inline'",
    # the QR code is inline SVG; map pictures are served from this origin
    "img-src": "'self' data:",
    # 'self' covers ws:/wss: of the same host in CSP 3 (Chromium, Firefox, Safari 15.4+)
    "connect-src": "'self'",
    "font-src": "'self'",
    # the web app manifest (webapp/web/device.py), named though default-src says the same
    "manifest-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}

csrf = CSRFProtect()


def socket_origin_check(app: Flask):
    """The ``cors_allowed_origins`` of the Socket.IO server: this request's own origin, or a configured one.

    python-engineio's default (None) also trusts X-Forwarded-Host; this one does not: a proxy's
    public origin is configured instead. engineio calls it only when an Origin header is present.
    """
    extra = allowed_origins(app)
    door = Door(None, app)

    def check(origin: str | None, environ: dict | None = None) -> bool:
        if not origin:
            return False  # only asked for CORS headers; a request without Origin is let in by engineio
        try:
            origin = normalize_origin(origin)
        except ValueError:
            return False
        if origin in extra:
            return True
        # the page's own origin: the request's Host, and only a name this server is served under (a name
        # made to point here by DNS rebinding sends an Origin equal to its Host too)
        environ = environ or {}
        host = environ.get("HTTP_HOST")
        scheme = environ.get("wsgi.url_scheme", "http")
        return bool(host) and door.host_allowed(host) and origin == f"{scheme}://{host}".lower()

    return check


def csrf_field() -> Markup:
    """The hidden input that carries the CSRF token in a plain form.

    The token belongs to one browser's session: a fragment broadcast over Socket.IO (rendered outside
    any request) gets nothing here; its htmx forms carry the token in the X-CSRFToken header instead.
    """
    if not has_request_context():
        return Markup("")
    return Markup('<input type="hidden" name="csrf_token" value="{}">').format(escape(generate_csrf()))


CSRF_HELP = N_("This form did not come with this site's check token (%(reason)s), so nothing was done. "
               "That happens when the browser dropped this site's cookie (restarted, or a private tab closed) "
               "or when another web site tried to send it. Reload the page and try again.")
#: Flask-WTF's reasons (its English, lowercased as the sentence shows them), said in the reader's words; another
#: reason is shown as Flask-WTF says it
CSRF_REASONS = {
    "The CSRF token is missing.": N_("the CSRF token is missing"),
    "The CSRF session token is missing.": N_("the CSRF session token is missing"),
    "The CSRF token is invalid.": N_("the CSRF token is invalid"),
    "The CSRF token has expired.": N_("the CSRF token has expired"),
    "The CSRF tokens do not match.": N_("the CSRF tokens do not match"),
    "The referrer header is missing.": N_("the referrer header is missing"),
    "The referrer does not match the host.": N_("the referrer does not match the host"),
}


def init_security(app: Flask) -> None:
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)  # a page stays open for a whole game night
    app.config.setdefault("SESSION_COOKIE_SECURE", False)  # plain http on a LAN unless configured
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    app.config.setdefault("SESSION_COOKIE_SAMESITE", "Lax")
    allowed_origins(app)  # a malformed origin stops the start, not the first connection

    Talisman(
        app,
        force_https=False,
        strict_transport_security=False,
        session_cookie_secure=bool(app.config["SESSION_COOKIE_SECURE"]),
        session_cookie_http_only=True,
        session_cookie_samesite=app.config["SESSION_COOKIE_SAMESITE"],
        frame_options="DENY",
        content_security_policy=CSP,
        referrer_policy="same-origin",
        permissions_policy=PERMISSIONS,
        x_content_type_options=True,
    )

    csrf.init_app(app)
    from . import api

    csrf.exempt(api.bp)
    app.jinja_env.globals["csrf_field"] = csrf_field

    @app.after_request
    def private_answers(response):
        if response.mimetype == "text/html":
            response.vary.add("Accept-Language")
        if "Cache-Control" not in response.headers and request.endpoint != "static":
            response.headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(CSRFError)
    def csrf_refused(exc: CSRFError):
        known = CSRF_REASONS.get(exc.description or "")
        if known:
            reason = _(known)
        else:
            reason = (exc.description or "CSRF check failed").rstrip(".")
            reason = reason[0].lower() + reason[1:]
        message = _(CSRF_HELP, reason=reason)
        if request.headers.get("HX-Request") == "true":
            # htmx shows the answer's text in the page's message line: plain words, no page
            return message, 400, {"Content-Type": "text/plain; charset=utf-8"}
        from .errors import error_page

        exc.description = message
        return error_page(exc)
