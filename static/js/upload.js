// Map files from the GM page (a Universal VTT import, a background picture), sent with
// XMLHttpRequest so a big file shows its upload progress; and, on every live page, a fresh
// map (another map shown) keeps the page's zoom. The server checks everything again.
(function () {
  "use strict";

  function csrfToken() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : null;
  }

  // the panel is re-drawn by the live update an upload causes: what was said is said again there
  const said = new Map(); // form id -> {text, kind, at}
  function show(form, text, kind) {
    const out = form.querySelector(".upload-status");
    if (!out) return;
    out.textContent = text;
    out.className = "upload-status " + (kind || "");
  }
  function say(form, text, kind) {
    show(form, text, kind);
    if (form.id) said.set(form.id, { text: text, kind: kind, at: Date.now() });
    if (kind === "error" && window.tacmap) window.tacmap.flash(text);
    if (kind === "ok" && window.tacmap) window.tacmap.flash(text, "info");
  }
  function sayAgain() {
    said.forEach((s, id) => {
      const form = document.getElementById(id);
      if (Date.now() - s.at > 20000) { said.delete(id); return; }
      if (form) show(form, s.text, s.kind);
    });
  }
  document.addEventListener("tacmap:update", sayAgain);

  function mb(bytes) { return (bytes / 1048576).toFixed(1) + " MB"; }

  function send(form) {
    const input = form.querySelector('input[type="file"]');
    const file = input && input.files && input.files[0];
    if (!file && form.dataset.fileOptional === undefined) { say(form, t("Pick a file first."), "error"); return; }
    const limit = parseInt(form.dataset.limit || "0", 10);
    if (file && limit && file.size > limit) {
      say(form, `${file.name} is ${mb(file.size)}, over the limit of ${mb(limit)}.`, "error");
      return;
    }
    const bar = form.querySelector(".upload-progress");
    const button = form.querySelector('button[type="submit"]');
    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.dataset.upload);
    const token = csrfToken();
    if (token) xhr.setRequestHeader("X-CSRFToken", token);
    xhr.responseType = "json";
    xhr.upload.addEventListener("progress", (e) => {
      if (!bar || !e.lengthComputable) return;
      bar.hidden = false;
      bar.value = Math.round(100 * e.loaded / e.total);
      say(form, `Sending ${mb(e.loaded)} of ${mb(e.total)}…`);
    });
    xhr.upload.addEventListener("load", () => say(form, t("Reading the file on the server…")));
    xhr.addEventListener("load", () => {
      if (button) button.disabled = false;
      if (bar) bar.hidden = true;
      const body = xhr.response || {};
      if (xhr.status >= 200 && xhr.status < 300) {
        const what = body.walls !== undefined
          ? `Imported ${body.name}: ${body.walls} wall segments, ${body.doors} doors. Everyone sees it now.`
          : form.dataset.done || t("The picture is on the map.");
        say(form, what, "ok");
        form.reset();
        // a fresh copy of the form waited while a file was picked in it: it goes in now
        if (window.tacmap && window.tacmap.settle) window.tacmap.settle(form, true);
        sayAgain();
      } else {
        say(form, body.error || t("The server refused the file ({status}).", { status: xhr.status }), "error");
      }
    });
    xhr.addEventListener("error", () => {
      if (button) button.disabled = false;
      if (bar) bar.hidden = true;
      say(form, "The GM's computer did not answer; try again.", "error");
    });
    if (button) button.disabled = true;
    if (bar) { bar.hidden = false; bar.value = 0; }
    say(form, file ? `Sending ${file.name}…` : "Sending…");
    xhr.send(new FormData(form));
  }

  // the panel is re-drawn by live updates: listen on the document, not on one form
  document.addEventListener("submit", (e) => {
    const form = e.target.closest && e.target.closest("form[data-upload]");
    if (!form) return;
    e.preventDefault();
    send(form);
  });

  // a fresh <svg id="map"> comes without the zoom map.js gave the old one: keep it
  document.body.addEventListener("htmx:oobBeforeSwap", (e) => {
    const target = e.detail.target;
    const fresh = e.detail.fragment && e.detail.fragment.firstElementChild;
    if (target && target.id === "map" && fresh && target.style.width) fresh.style.width = target.style.width;
  });
})();
