"""Who is asking, and under which name: the door in front of the whole app (Flask and Socket.IO alike).

- **Host names.** tacmap answers only the names it is served under: localhost, any address written as an
  IP (the machine's own, on the LAN or not: a DNS rebinding attack needs a name, never an IP), this
  machine's name (and ``<name>.local``), the host of ``--public-url``, of the address it listens on and
  of each ``--allowed-origin``, and the names of ``--allowed-host`` / ``$TACMAP_ALLOWED_HOSTS``. Any other
  Host gets a 400: a web page whose name was made to point at the GM's laptop (DNS rebinding) is not
  answered, so it cannot read the lobby or open the live link. A Host is a name (or a bracketed IPv6
  address) and an optional port of digits, nothing more: ``localhost:5000@evil.example`` is no name of ours.
- **Proxies.** ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed only from a configured proxy
  (``--trusted-proxy ADDRESS`` or a network, ``$TACMAP_TRUSTED_PROXIES``; none by default), through
  Werkzeug's ``ProxyFix`` (the last address the proxy appended); from anyone else they are ignored.
- **The host's own browser.** Only a request made on the server's machine straight to it (a loopback peer,
  a loopback Host name, no forwarding header at all, not from a trusted proxy) is the host's: the lobby
  lists every game's GM link to that one only. Behind a proxy every request comes from loopback; none of
  them is the host's.
- **Socket.IO's own answers** (the long-polling transport, answered by engine.io before Flask) get the
  same protective headers as the pages: nosniff, no framing, no referrer, a CSP that allows nothing.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from urllib.parse import urlsplit

from flask import Flask, request
from werkzeug.middleware.proxy_fix import ProxyFix

from .. import launch

#: headers that say a request passed through a proxy
FORWARDING = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP", "HTTP_X_FORWARDED_HOST")
#: what engine.io's own answers (long-polling) carry, as the pages do (webapp/web/security.py)
#: the browser features no page of tacmap uses (the pages' Permissions-Policy, webapp/web/security.py, and
#: Socket.IO's answers')
PERMISSIONS = {"camera": "()", "microphone": "()", "geolocation": "()", "browsing-topics": "()"}
#: the protective headers on Socket.IO's own answers (engine.io's, which Flask and Talisman never see): the pages'
#: headers, with a policy that lets those plain-text answers load nothing at all
SOCKET_HEADERS = [
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
    ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
    ("Permissions-Policy", ", ".join(f"{feature}={allowed}" for feature, allowed in PERMISSIONS.items())),
    ("Cache-Control", "no-store"),
]


def bad_host() -> bytes:
    """What a request for a host name this server does not answer to is told (before any page or language): where
    to open it, naming the command that started the server (webapp/launch.py: python3 scripts/tacmap-start)."""
    return (f"This server does not answer to that host name. Open it at the address {launch.serve_command()} "
            "printed.\n").encode()


#: what a Host header's name may be (RFC 3986's reg-name without its escapes and sub-delims, which no name of
#: ours has), or an IP address (an IPv6 one with its zone); what may follow it is a port
HOST_NAME = re.compile(r"[a-z0-9_.-]+|[0-9a-f:.]+(%[a-z0-9_.-]+)?")
HOST_PORT = re.compile(r"(:[0-9]{0,5})?")


def host_name(host: str | None) -> str | None:
    """The name part of a Host header or a URL's netloc, lower case, without port, brackets or final dot; None
    when it is not a name and an optional port (``localhost:5000@evil.example``: issue 57)."""
    if not host:
        return None
    host = host.strip().lower()
    if host.startswith("["):
        if "]" not in host:
            return None
        name, rest = host[1:host.find("]")], host[host.find("]") + 1:]
    elif host.count(":") == 1:
        name, rest = host.split(":")[0], host[host.find(":"):]
    else:
        name, rest = host, ""
    if not HOST_PORT.fullmatch(rest) or not HOST_NAME.fullmatch(name):
        return None
    return name.rstrip(".") or None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.split("%", 1)[0])
        return True
    except ValueError:
        return False


def _listed(app: Flask, key: str, env: str) -> list[str]:
    value = app.config.get(key)
    if value is None:
        value = os.environ.get(env, "")
    if isinstance(value, str):
        value = value.split(",")
    return [v.strip() for v in value if v and v.strip()]


def normalize_origin(origin: str) -> str:
    """``scheme://host[:port]`` in lower case, without a path or a trailing slash; ValueError if not an origin."""
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"not an origin (scheme://host[:port]): {origin!r}")
    return f"{parts.scheme}://{parts.netloc}".lower()


def allowed_origins(app: Flask) -> set[str]:
    """The origins allowed besides the request's own: ``ALLOWED_ORIGINS`` (a list, or a comma-separated
    string; else ``$TACMAP_ALLOWED_ORIGINS``) and the origin of ``PUBLIC_URL``."""
    value = app.config.get("ALLOWED_ORIGINS")
    if value is None:
        value = os.environ.get("TACMAP_ALLOWED_ORIGINS", "")
    if isinstance(value, str):
        value = value.split(",")
    origins = {normalize_origin(o) for o in value if o and o.strip()}
    try:  # the address players are told to use is this site too
        origins.add(normalize_origin(app.config.get("PUBLIC_URL") or ""))
    except ValueError:
        pass
    return origins


def served_names(app: Flask) -> set[str]:
    """The host names (not IPs: every IP is answered) this server answers to."""
    names = {"localhost"}
    try:
        machine = socket.gethostname().lower().rstrip(".")
        if machine:
            names |= {machine, f"{machine}.local", machine.split(".")[0], f"{machine.split('.')[0]}.local"}
    except OSError:
        pass
    for url in [app.config.get("PUBLIC_URL"), app.config.get("LISTEN_URL"), *allowed_origins(app)]:
        name = host_name(urlsplit(url).netloc) if url else None
        if name:
            names.add(name)
    if app.config.get("SERVER_NAME"):
        names.add(host_name(app.config["SERVER_NAME"]))
    names |= {host_name(h) for h in _listed(app, "ALLOWED_HOSTS", "TACMAP_ALLOWED_HOSTS")}
    return {n for n in names if n}


def trusted_proxies(app: Flask) -> list:
    """The proxies whose forwarding headers are believed (``TRUSTED_PROXIES``, else ``$TACMAP_TRUSTED_PROXIES``):
    addresses or networks; ValueError for anything else (the start stops with it)."""
    networks = []
    for entry in _listed(app, "TRUSTED_PROXIES", "TACMAP_TRUSTED_PROXIES"):
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"not an address or a network (10.0.0.2, 10.0.0.0/24): {entry!r}") from None
    return networks


def _in(address: str | None, networks: list) -> bool:
    try:
        ip = ipaddress.ip_address((address or "").split("%", 1)[0])
    except ValueError:
        return False
    return any(ip in net for net in networks)


def _loopback(address: str | None) -> bool:
    try:
        return ipaddress.ip_address((address or "").split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class Door:
    """The WSGI middleware in front of everything (Flask and Socket.IO): the Host check, forwarded
    addresses from trusted proxies only, and the protective headers on Socket.IO's own answers."""

    def __init__(self, wsgi_app, app: Flask) -> None:
        self.app = wsgi_app
        self.proxied = ProxyFix(wsgi_app, x_for=1, x_proto=1)
        self.names = served_names(app)
        self.proxies = trusted_proxies(app)
        self.socket_path = "/socket.io"
        self.bad_host = bad_host()

    def host_allowed(self, host: str | None) -> bool:
        name = host_name(host)
        return bool(name) and (name in self.names or _is_ip(name) or name.endswith(".localhost"))

    def __call__(self, environ, start_response):
        host = environ.get("HTTP_HOST") or environ.get("SERVER_NAME")
        if not self.host_allowed(host):
            start_response("400 Bad Request", [("Content-Type", "text/plain; charset=utf-8"),
                                               ("Content-Length", str(len(self.bad_host))), *SOCKET_HEADERS])
            return [self.bad_host]
        peer = environ.get("REMOTE_ADDR")
        environ["tacmap.peer"] = peer
        via_proxy = bool(self.proxies) and _in(peer, self.proxies)
        environ["tacmap.via_proxy"] = via_proxy
        if (environ.get("PATH_INFO") or "").startswith(self.socket_path):
            inner = start_response

            def start_response(status, headers, exc_info=None):  # noqa: F811 (engine.io's answers)
                present = {name.lower() for name, _ in headers}
                headers = list(headers) + [(n, v) for n, v in SOCKET_HEADERS if n.lower() not in present]
                return inner(status, headers, exc_info) if exc_info else inner(status, headers)

        return (self.proxied if via_proxy else self.app)(environ, start_response)


def install(app: Flask) -> None:
    """Put the door in front of the app's WSGI stack (after Socket.IO's middleware, so it sees those too)."""
    app.wsgi_app = Door(app.wsgi_app, app)


def is_hosts_browser() -> bool:
    """This request comes from a browser on the server's own machine, straight to it (see the module's doc)."""
    environ = request.environ
    if environ.get("tacmap.via_proxy") or any(environ.get(h) for h in FORWARDING):
        return False
    peer = environ.get("tacmap.peer", environ.get("REMOTE_ADDR"))
    name = host_name(request.host) or ""
    return _loopback(peer) and (name == "localhost" or name.endswith(".localhost") or _loopback(name))
