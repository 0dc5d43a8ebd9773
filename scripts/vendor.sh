#!/usr/bin/env bash
# Re-vendor the front-end libraries from the npm registry (run from the repo root).
# Versions are pinned here; the file names carry them. htmx stays on 2.0.x:
# npm's "latest" for htmx.org is 4.x, a rewrite with other semantics.
set -euo pipefail
HTMX=2.0.11
SOCKETIO=4.8.4
dest=static/vendor
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "htmx.org@$HTMX" "socket.io-client@$SOCKETIO" >/dev/null)
tar -xzf "$tmp/htmx.org-$HTMX.tgz" -C "$tmp" && mv "$tmp/package" "$tmp/htmx"
tar -xzf "$tmp/socket.io-client-$SOCKETIO.tgz" -C "$tmp" && mv "$tmp/package" "$tmp/sio"
rm -f "$dest"/htmx-*.min.js "$dest"/socket.io-*.min.js "$dest"/*.LICENSE
cp "$tmp/htmx/dist/htmx.min.js" "$dest/htmx-$HTMX.min.js"
cp "$tmp/htmx/LICENSE" "$dest/htmx-$HTMX.LICENSE"
cp "$tmp/sio/dist/socket.io.min.js" "$dest/socket.io-$SOCKETIO.min.js"
cp "$tmp/sio/LICENSE" "$dest/socket.io-$SOCKETIO.LICENSE"
ls -l "$dest"
