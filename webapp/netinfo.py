"""The addresses this machine can be reached at on the local network."""

from __future__ import annotations

import ipaddress
import socket


def _linux_interface_addresses() -> list[str]:
    try:
        import fcntl
        import struct
    except ImportError:  # not on Linux
        return []
    found = []
    for _index, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
            except OSError:
                continue
            found.append(socket.inet_ntoa(packed[20:24]))
    return found


def lan_addresses() -> list[str]:
    """IPv4 addresses other than loopback, LAN ones first; asks no one over the network."""
    candidates = set(_linux_interface_addresses())
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            candidates.add(info[4][0])
    except OSError:
        pass
    addresses = []
    for text in candidates:
        try:
            ip = ipaddress.ip_address(text)
        except ValueError:
            continue
        if not ip.is_loopback and not ip.is_link_local and not ip.is_unspecified:
            addresses.append(ip)
    return [str(ip) for ip in sorted(addresses, key=lambda ip: (not ip.is_private, ip))]
