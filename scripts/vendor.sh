#!/usr/bin/env bash
# Re-vendor the front-end libraries from the npm registry (run from the repo root).
# Versions are pinned here; the file names carry them. axe-core is for the tests only (tests/vendor/, never
# served): tests/e2e/test_accessibility.py runs it in Chromium. htmx stays on 2.0.x:
# npm's "latest" for htmx.org is 4.x, a rewrite with other semantics.
set -euo pipefail
HTMX=2.0.11
SOCKETIO=4.8.4
AXE=4.14.1
dest=static/vendor
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "htmx.org@$HTMX" "socket.io-client@$SOCKETIO" "axe-core@$AXE" >/dev/null)
tar -xzf "$tmp/htmx.org-$HTMX.tgz" -C "$tmp" && mv "$tmp/package" "$tmp/htmx"
tar -xzf "$tmp/socket.io-client-$SOCKETIO.tgz" -C "$tmp" && mv "$tmp/package" "$tmp/sio"
tar -xzf "$tmp/axe-core-$AXE.tgz" -C "$tmp" && mv "$tmp/package" "$tmp/axe"
rm -f "$dest"/htmx-*.min.js "$dest"/socket.io-*.min.js "$dest"/*.LICENSE
cp "$tmp/htmx/dist/htmx.min.js" "$dest/htmx-$HTMX.min.js"
cp "$tmp/htmx/LICENSE" "$dest/htmx-$HTMX.LICENSE"
cp "$tmp/sio/dist/socket.io.min.js" "$dest/socket.io-$SOCKETIO.min.js"
cp "$tmp/sio/LICENSE" "$dest/socket.io-$SOCKETIO.LICENSE"
rm -f tests/vendor/axe-core-*
cp "$tmp/axe/axe.min.js" "tests/vendor/axe-core-$AXE.min.js"
cp "$tmp/axe/LICENSE" "tests/vendor/axe-core-$AXE.LICENSE"
ls -l "$dest" tests/vendor
