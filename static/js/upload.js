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

  // what a form holds: its fields, each file as the very File picked (a file picked again is another one)
  const picked = new WeakMap();
  let pickedCount = 0;
  function held(form) {
    return Array.from(new FormData(form), ([name, value]) => {
      if (typeof value === "string") return name + "=" + value;
      if (!picked.has(value)) picked.set(value, ++pickedCount);
      return name + "=#" + picked.get(value);
    }).join("&");
  }

  function mb(bytes) { return t("{size} MB", { size: tnum((bytes / 1048576).toFixed(1)) }); }

  function send(form) {
    const input = form.querySelector('input[type="file"]');
    const file = input && input.files && input.files[0];
    if (!file && form.dataset.fileOptional === undefined) { say(form, t("Pick a file first."), "error"); return; }
    const limit = parseInt(form.dataset.limit || "0", 10);
    if (file && limit && file.size > limit) {
      say(form, t("{name} is {size}, over the limit of {limit}.", { name: file.name, size: mb(file.size), limit: mb(limit) }), "error");
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
      say(form, t("Sending {done} of {total}…", { done: mb(e.loaded), total: mb(e.total) }));
    });
    xhr.upload.addEventListener("load", () => say(form, t("Reading the file on the server…")));
    xhr.addEventListener("load", () => {
      if (button) button.disabled = false;
      if (bar) bar.hidden = true;
      const body = xhr.response || {};
      if (xhr.status >= 200 && xhr.status < 300) {
        const what = body.walls !== undefined
          ? t("Imported {name}: {walls} wall segments, {doors} doors. Everyone sees it now.", body)
          : form.dataset.done || t("The picture is on the map.");
        say(form, what, "ok");
        // the upload's live update may have come first, and the GM picked the next file meanwhile: that is kept
        if (held(form) === sent) {
          form.reset();
          // a fresh copy of the form waited while a file was picked in it: it goes in now
          if (window.tacmap && window.tacmap.settle) window.tacmap.settle(form, true);
        }
        sayAgain();
      } else {
        say(form, body.error || t("The server refused the file ({status}).", { status: xhr.status }), "error");
      }
    });
    xhr.addEventListener("error", () => {
      if (button) button.disabled = false;
      if (bar) bar.hidden = true;
      say(form, t("The GM's computer did not answer; try again."), "error");
    });
    if (button) button.disabled = true;
    if (bar) { bar.hidden = false; bar.value = 0; }
    say(form, file ? t("Sending {name}…", { name: file.name }) : t("Sending…"));
    const sent = held(form);
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
