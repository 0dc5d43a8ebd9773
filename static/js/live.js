// The live link of a page: Socket.IO in, htmx out-of-band swaps on the page.
// The server is the only authority; this file only carries its word.
(function () {
  "use strict";
  const root = document.getElementById("live");
  if (!root) return;
  const game = root.dataset.game;
  const key = root.dataset.key;
  let seq = parseInt(root.dataset.seq, 10) || 0;
  const status = document.getElementById("conn");

  function setStatus(text, cls) {
    if (!status) return;
    status.textContent = text;
    status.className = "conn " + cls;
  }

  function flash(message, kind) {
    const box = document.getElementById("flash");
    if (!box) return;
    box.textContent = message;
    box.className = "flash " + (kind || "error") + " shown";
    clearTimeout(flash.timer);
    flash.timer = setTimeout(() => box.classList.remove("shown"), 5000);
  }

  // `auth` is a function so that a reconnect tells the server how far we got.
  const socket = io({ auth: (cb) => cb({ game: game, token: key, since: seq }) });

  socket.on("connect", () => setStatus("live", "ok"));
  socket.on("disconnect", () => setStatus("reconnecting…", "down"));
  socket.on("connect_error", (err) => setStatus("offline: " + err.message, "down"));

  socket.on("update", (msg) => {
    if (msg.from_seq === null || msg.from_seq === undefined) {
      // a fresh copy of everything this page shows
    } else if (msg.from_seq > seq) {
      socket.emit("sync", { since: seq }); // we missed something: ask for a fresh copy
      return;
    } else if (msg.from_seq < seq) {
      return; // already contained in a fresher copy
    }
    htmx.swap(document.body, msg.html, { swapStyle: "none" });
    seq = msg.seq;
    root.dataset.seq = String(seq);
    document.dispatchEvent(new CustomEvent("tacmap:update", { detail: msg }));
  });

  socket.on("preview", (msg) => {
    document.dispatchEvent(new CustomEvent("tacmap:preview", { detail: msg }));
  });

  function command(payload) {
    return new Promise((resolve) => {
      socket.timeout(10000).emit("command", payload, (err, ack) => {
        if (err) ack = { ok: false, error: "the server did not answer; try again" };
        if (!ack.ok) flash(ack.error);
        resolve(ack);
      });
    });
  }

  function preview(payload) {
    socket.emit("preview", payload);
  }

  // htmx forms post commands too; their answer is a flash fragment.
  document.body.addEventListener("htmx:responseError", (e) => {
    flash(e.detail.xhr.responseText || "the server refused that");
  });

  window.tacmap = { command: command, preview: preview, flash: flash, socket: socket,
                    seq: () => seq };
})();
