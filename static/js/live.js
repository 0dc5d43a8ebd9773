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
  let ended = false;
  const REFUSED_RETRY_MS = 3000;  // a connection the server turned down for now is tried again after this

  function setStatus(text, cls, title) {
    if (!status) return;
    status.textContent = text;
    status.className = "conn " + cls;
    status.title = title || "";
  }

  // A message at the bottom of the screen; `action` adds one button ({label, run}).
  function flash(message, kind, action) {
    const box = document.getElementById("flash");
    if (!box) return;
    box.textContent = message;
    box.className = "flash " + (kind || "error") + " shown";
    if (action) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "flash-action";
      b.textContent = action.label;
      b.addEventListener("click", () => { box.classList.remove("shown"); action.run(); });
      box.append(" ", b);
      box.classList.add("with-action");
    }
    clearTimeout(flash.timer);
    flash.timer = setTimeout(() => box.classList.remove("shown", "with-action"), action ? 9000 : 5000);
  }

  // `auth` is a function so that a reconnect tells the server how far we got.
  const socket = io({ auth: (cb) => cb({ game: game, token: key, since: seq }) });

  // --- a player's phone tells the GM's page how it is (docs/PROTOCOL.md "device", #61) -----------------
  // Only whether this page is shown and the last update it applied: the server sees the link itself. Said on
  // connecting and when the page is shown or hidden, and after updates once a second at most (the newest seq).
  const reports = document.body.classList.contains("player-view");
  let reportLater = null;
  function report() {
    clearTimeout(reportLater);
    reportLater = null;
    if (reports && !ended && socket.connected) {
      socket.emit("device", { visible: document.visibilityState === "visible", seq: seq });
    }
  }
  if (reports) {
    document.addEventListener("visibilitychange", report);
    document.addEventListener("tacmap:update", () => { if (!reportLater) reportLater = setTimeout(report, 1000); });
  }

  socket.on("connect", () => { refusedSaid = null; setStatus(t("live"), "ok"); back(); report(); });
  socket.on("disconnect", () => {
    if (ended) return;
    setStatus(t("reconnecting…"), "down", t("The connection to the GM's computer dropped; trying again."));
    down();
  });
  // The phone's Wi-Fi went away: the link is down now, not once engine.io's ping misses (tens of seconds),
  // so what the player does meanwhile waits here, shown pending, instead of going into a dead socket.
  window.addEventListener("offline", () => {
    if (!ended && socket.connected && socket.io.engine) socket.io.engine.close();
  });
  // ...and came back: try at once rather than at the end of the reconnection back-off
  window.addEventListener("online", () => {
    if (!ended && !socket.connected) { socket.disconnect(); socket.connect(); }
  });
  let refusedRetry = null, refusedSaid = null;
  socket.on("connect_error", (err) => {
    if (ended) return;
    if (/not valid/.test(err.message || "")) {
      stop(t("This device no longer has a seat in this game."));
      return;
    }
    if (!socket.active) {
      // the server answered but turned the connection down for now, saying why (its database does not answer:
      // restarting): socket.io does not try again by itself after a refusal, so this page does, shortly
      setStatus(t("can't reach the game — retrying…"), "down", err.message);
      if (err.message && err.message !== refusedSaid) { refusedSaid = err.message; flash(err.message); }  // once
      clearTimeout(refusedRetry);
      refusedRetry = setTimeout(() => { if (!ended && !socket.connected) socket.connect(); }, REFUSED_RETRY_MS);
      return;
    }
    // the server is away (laptop asleep, Wi-Fi dropped): say so in the table's words
    setStatus(t("can't reach the game — retrying…"), "down", t("The GM's computer does not answer. " +
              "Check that it is on and that this device is on the same Wi-Fi; this page keeps trying."));
  });

  function stop(message, reload) {
    ended = true;
    socket.disconnect();
    if (reload) { window.location.reload(); return; }
    setStatus(t("not in this game"), "down", message);
    const box = document.getElementById("flash");
    if (box) {
      box.innerHTML = "";
      box.append(message + " ");
      const a = document.createElement("a");
      a.href = "/";
      a.textContent = t("Back to the lobby");
      box.append(a);
      box.className = "flash error shown with-action ended";
    }
  }
  socket.on("ended", (msg) => stop(msg.message, msg.reload));

  // --- keeping what the user is typing -------------------------------------
  // A live update re-draws parts of the page. A form the user is in (a field
  // has focus, or holds input not sent yet) is left as it is; the fresh copy
  // waits on it and goes in once the form is sent or left unchanged.
  const TYPING = "input:not([type=hidden]):not([type=submit]):not([type=button]), select, textarea";

  function focusedIn(el) {
    const a = document.activeElement;
    return !!(a && el.contains(a) && a.matches(TYPING) && a.type !== "checkbox" && a.type !== "radio");
  }
  function unsaved(el) {
    const fields = el.matches(TYPING) ? [el] : el.querySelectorAll(TYPING);
    for (const f of fields) {
      if (f.type === "checkbox" || f.type === "radio") {
        if (f.checked !== f.defaultChecked) return true;
      } else if (f.tagName === "SELECT") {
        // with no option marked selected, the first one is the default (single selects)
        const opts = Array.from(f.options);
        const marked = opts.some((o) => o.defaultSelected);
        if (opts.some((o, i) => o.selected !== (marked ? o.defaultSelected : (!f.multiple && i === 0)))) return true;
      } else if (f.value !== f.defaultValue) {
        return true;
      }
    }
    return false;
  }
  // an opened <details> (a player's actions) stays open too
  const opened = (el) => el.matches("details[open]") || !!el.querySelector("details[open]");
  const busy = (el) => focusedIn(el) || unsaved(el) || opened(el);

  // an element without an id is the same as its twin by its tag and, for a log entry, its event (data-seq):
  // by place alone, the entry the GM had opened the "how" of was kept, busy, in the place of each newer one,
  // its line and all (its details patched over), and every later entry was drawn with that line (#70)
  function sameNode(a, b) {
    if (a.id || b.id) return a.id === b.id;
    return a.tagName === b.tagName && a.getAttribute("data-seq") === b.getAttribute("data-seq");
  }

  // A form of choices among what is on the table (<form data-live-choices>: the attack card's
  // attacker, target and weapon) holds nothing typed: its fresh copy goes in at once, so a token
  // added or a template laid shows up in its lists, with each choice the user made that the
  // fresh copy still offers (an option with the same value and data-), and the focus, kept.
  // (data-aim, an attacker's nearest foe, data-kind, a token's side, and data-out, a token out of the fight, are
  // hints that move with the tokens, not what the option is: a picked attacker, target or weapon stays picked,
  // matched by its token or weapon, when another foe stands nearer or the target falls, #58)
  const HINTS = new Set(["aim", "kind", "out"]);
  function sameOption(a, b) {
    if (a.value !== b.value) return false;
    const data = (o) => Object.entries(o.dataset).filter(([k]) => !HINTS.has(k)).sort().join("|");
    return data(a) === data(b);
  }
  // a pick the user made in such a form (a programmatic one that follows it sets _picked itself)
  document.addEventListener("change", (e) => {
    if (e.target.tagName === "SELECT" && e.target.closest("form[data-live-choices]")) e.target._picked = true;
  });
  function keepChoices(old, fresh) {
    const active = document.activeElement;
    const focused = active && old.contains(active) ? active.name : null;
    for (const f of old.elements) {
      if (!f.name || !f.matches(TYPING)) continue; // hidden fields are the server's
      const boxed = f.type === "checkbox" || f.type === "radio"; // several of a name: the one of the same value
      const twin = Array.from(fresh.elements).find((t) => t.name === f.name && t.type === f.type && (!boxed || t.value === f.value));
      if (!twin) continue;
      if (f.tagName === "SELECT") {
        // a list the user never picked in keeps the fresh copy's choice (the server's default: the token
        // whose turn it is now, its nearest foe), not the one the old copy started on
        if (!f._picked) continue;
        const chosen = f.selectedOptions[0];
        const still = chosen && Array.from(twin.options).find((o) => sameOption(o, chosen));
        if (still) { still.selected = true; twin._picked = true; }
      } else if (boxed) {
        twin.checked = f.checked;
      } else {
        twin.value = f.value;
      }
    }
    old.replaceWith(fresh);
    htmx.process(fresh);
    const again = focused && Array.from(fresh.elements).find((t) => t.name === focused);
    if (again) again.focus({ preventScroll: true });
    return fresh;
  }

  // Bring `old` up to `fresh` without touching the parts the user is in.
  function patch(old, fresh) {
    if (!busy(old)) {
      old.replaceWith(fresh);
      htmx.process(fresh);
      return fresh;
    }
    if (old.matches("form[data-live-choices]") && fresh.matches("form[data-live-choices]")) return keepChoices(old, fresh);
    if (old.tagName === "FORM" || !old.children.length) {
      old._tacmapFresh = fresh; // goes in by settle() once the user is done
      return old;
    }
    const olds = Array.from(old.children);
    const used = new Set();
    let prev = null;
    for (const child of Array.from(fresh.children)) {
      const match = olds.find((o) => !used.has(o) && sameNode(o, child));
      let placed;
      if (match) {
        used.add(match);
        placed = patch(match, child);
      } else {
        placed = child;
        if (prev) prev.after(child); else old.prepend(child);
        htmx.process(child);
      }
      prev = placed;
    }
    // what is gone from the fresh copy goes, unless the user is typing in it right now
    olds.forEach((o) => { if (!used.has(o) && !focusedIn(o)) o.remove(); });
    // the container's own attributes (classes, data-) follow the fresh copy
    for (const attr of Array.from(fresh.attributes)) {
      if (attr.name !== "hx-swap-oob") old.setAttribute(attr.name, attr.value);
    }
    return old;
  }

  // The form is sent (its values are now the server's) or left alone: take the fresh copy if one waits.
  function settle(form, sent) {
    if (!form) return;
    if (sent) {
      form.querySelectorAll(TYPING).forEach((f) => {
        if (f.type === "checkbox" || f.type === "radio") f.defaultChecked = f.checked;
        else if (f.tagName === "SELECT") for (const o of f.options) o.defaultSelected = o.selected;
        else f.defaultValue = f.value;
      });
    }
    for (let el = form; el && el !== document.body; el = el.parentElement) {
      if (el._tacmapFresh && !busy(el)) {
        const fresh = el._tacmapFresh;
        el._tacmapFresh = null;
        el.replaceWith(fresh);
        htmx.process(fresh);
        return;
      }
    }
  }
  document.addEventListener("focusout", (e) => {
    const form = e.target.closest && e.target.closest("form");
    if (form) setTimeout(() => settle(form, false), 0);
  });
  // What a form held when it was sent: typing that goes on while the answer is on its way is kept.
  const snapshot = (form) => new URLSearchParams(new FormData(form)).toString();
  document.body.addEventListener("htmx:beforeRequest", (e) => {
    const form = e.detail.elt && e.detail.elt.closest && e.detail.elt.closest("form");
    if (form) form._tacmapSent = snapshot(form);
  });
  // the form's command was done: "Add a token" starts blank again, a fresh copy waiting on it goes in
  function formDone(form) {
    if (!form || !form.isConnected) return;
    if (snapshot(form) !== form._tacmapSent) return; // typed on since: still the user's
    if (form.hasAttribute("data-reset-when-sent")) form.reset();
    settle(form, true);
  }
  document.body.addEventListener("htmx:afterRequest", (e) => {
    const form = e.detail.elt && e.detail.elt.closest && e.detail.elt.closest("form");
    const trigger = (e.detail.xhr && e.detail.xhr.getResponseHeader("HX-Trigger")) || "";
    if (!form || !e.detail.successful || /tacmap:refused/.test(trigger)) return;
    formDone(form);
  });

  // --- a <details> the user opened or closed stays so --------------------------------
  // The server draws some boxes open (the action group that fits the moment, the lighting card
  // once there are lights) and the rest closed; a live update draws them afresh. What the user
  // chose by a click on a summary is remembered, for this page, and laid over each fresh copy.
  const chosenOpen = new Map();
  function detailsKeys(root) {
    const keys = new Map(), seen = new Map();
    for (const d of root.querySelectorAll("details")) {
      let key = d.id ? "#" + d.id : d.className || "details";
      if (!d.id) {
        for (let el = d.parentElement; el && el !== document.body; el = el.parentElement) {
          if (el.id) { key = "#" + el.id + " " + key; break; }
          if (el.dataset.seq) key = "@" + el.dataset.seq + " " + key;
          else if (el.dataset.for) key = "for=" + el.dataset.for + " " + key;
        }
      }
      const n = seen.get(key) || 0; // the nth of its kind in a list without ids
      seen.set(key, n + 1);
      keys.set(d, key + " " + n);
    }
    return keys;
  }
  document.addEventListener("click", (e) => {
    const summary = e.target.closest && e.target.closest("summary");
    const d = summary && summary.parentElement;
    if (!d || d.tagName !== "DETAILS" || d.querySelector(":scope > summary") !== summary) return;
    setTimeout(() => { // after the click has opened or closed it
      const key = detailsKeys(document).get(d);
      if (key) chosenOpen.set(key, d.open);
    }, 0);
  });
  function keepDetails() {
    if (!chosenOpen.size) return;
    for (const [d, key] of detailsKeys(document)) {
      const open = chosenOpen.get(key);
      if (open !== undefined && d.open !== open) d.open = open;
    }
  }
  document.body.addEventListener("htmx:afterSwap", keepDetails);

  // An update's fragments swapped in, the keyboard's place kept (keepfocus.js): the element that had the focus,
  // or its twin in the fresh copy, has it still (#61)
  const focusKeeper = window.tacmapFocus || { remember: () => null, restore: () => {} };
  function swapKeepingFocus(html) {
    const memory = focusKeeper.remember();
    htmx.swap(document.body, html, { swapStyle: "none" });
    keepDetails();
    focusKeeper.restore(memory);
  }

  document.body.addEventListener("htmx:oobBeforeSwap", (e) => {
    const target = e.detail.target;
    const fresh = e.detail.fragment && e.detail.fragment.firstElementChild;
    if (!fresh || !target.querySelector || !target.querySelector("form") || !busy(target)) return;
    e.detail.shouldSwap = false;
    fresh.removeAttribute("hx-swap-oob");
    patch(target, fresh);
  });

  // Updates may arrive out of order when several server processes share the game (docs/HOSTING.md
  // "Running several processes"): one that starts past our seq is a gap (ask for a fresh copy),
  // one that starts before it is already contained in what we have (drop it).
  socket.on("update", (msg) => {
    if (replaying) return; // a past moment is shown: the present comes back whole with "back to the table"
    let again = false;
    if (msg.from_seq === null || msg.from_seq === undefined) {
      // a fresh copy of everything this page shows; one older than what we have was rendered before
      // a change that reached us first: take it (the server is the authority), then ask once more
      again = msg.seq < seq;
    } else if (msg.from_seq > seq) {
      socket.emit("sync", { since: seq }); // we missed something: ask for a fresh copy
      return;
    } else if (msg.from_seq < seq) {
      return; // already contained in a fresher copy
    }
    swapKeepingFocus(msg.html);
    seq = msg.seq;
    root.dataset.seq = String(seq);
    document.dispatchEvent(new CustomEvent("tacmap:update", { detail: msg }));
    if (again) socket.emit("sync", { since: seq });
  });

  // The replay (#36): the server sends a past moment's fragments (the same partials, drawn for this screen
  // from the state then); live updates wait until "replay_end" brings the present back whole.
  let replaying = null;
  socket.on("replay", (msg) => {
    replaying = msg;
    document.body.classList.add("replaying");
    swapKeepingFocus(msg.html);
    document.dispatchEvent(new CustomEvent("tacmap:replay", { detail: msg }));
  });
  socket.on("replay_end", (msg) => {
    replaying = null;
    document.body.classList.remove("replaying");
    swapKeepingFocus(msg.html);
    seq = msg.seq;
    root.dataset.seq = String(seq);
    document.dispatchEvent(new CustomEvent("tacmap:replay", { detail: null }));
    document.dispatchEvent(new CustomEvent("tacmap:update", { detail: msg }));
  });

  socket.on("preview", (msg) => {
    if (replaying) return;
    document.dispatchEvent(new CustomEvent("tacmap:preview", { detail: msg }));
  });

  const isGM = () => document.body.classList.contains("gm-view");

  // --- every command exactly once (docs/PROTOCOL.md "Command ids") -----------------
  // Each command carries an id made on this device (its own random id, kept in localStorage, this
  // page's and a counter). The page keeps it until the server answers: while the link is down it
  // waits here (its token pending, its button waiting), and after a reconnect everything not yet
  // answered goes out again, in the order sent. The server does a command once and answers a
  // repeat of its id with the first answer, so one that got through before the link dropped is not
  // done twice.
  function randomId(n) {
    const bytes = new Uint8Array(n);
    (window.crypto || window.msCrypto).getRandomValues(bytes);
    return Array.from(bytes, (b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
  }
  const device = (() => {
    try {
      let d = localStorage.getItem("tacmap-device");
      if (!d) { d = randomId(12); localStorage.setItem("tacmap-device", d); }
      return d;
    } catch (e) { return randomId(12); } // no storage (a private window): this page's own
  })();
  const pageId = randomId(6);
  let sentCount = 0;
  const queue = []; // {payload, cid, resolve, tries, sent, late, button}: commands not answered yet, in order
  const WAIT_MS = 10000, TRIES = 3;
  let wasDown = false, caughtUp = 0;
  // questions (the reach of a token picked up, an attack's odds): answered now or not at all; they change
  // nothing, so they neither wait for the link nor go out again (an answer that late is no use)
  const QUESTIONS = new Set(["reach", "preview_attack"]);
  const OFFLINE = { ok: false, error: t("the link to the game is down: try again once it is back"), code: "offline" };

  // The banner over the page while the link is down, and for a moment once it is back: at the top of the
  // view, and what is pinned there (a phone's turn bar, the pause) moves down under it by its height (#61)
  function banner(text, kind) {
    let b = document.getElementById("link-banner");
    if (!b) {
      b = document.createElement("div");
      b.id = "link-banner";
      b.setAttribute("role", "status");
      b.setAttribute("aria-live", "polite");
      document.body.append(b);
    }
    clearTimeout(banner.timer);
    const room = document.documentElement.style;
    if (!text) { b.className = "link-banner"; room.removeProperty("--link-banner-h"); return; }
    b.textContent = text;
    b.className = "link-banner shown " + kind;
    room.setProperty("--link-banner-h", b.getBoundingClientRect().height + "px");
    if (kind === "back") banner.timer = setTimeout(() => banner(null), 4000);
  }
  const waitingText = () => queue.length ? " " + tn("{n} change waits to go out.", "{n} changes wait to go out.", queue.length) : "";
  function down() {
    wasDown = true;
    queue.filter((item) => QUESTIONS.has(item.payload.type)).forEach((item) => finish(item, OFFLINE, true));
    queue.forEach((item) => { item.sent = false; item.late = true; });
    banner(t("Reconnecting…") + waitingText(), "down");
  }
  function back() {
    if (!wasDown) return;
    caughtUp = 0;
    pump();
    if (!queue.length) backDone();
    else banner(tn("Back, sending {n} change…", "Back, sending {n} changes…", queue.length), "down");
  }
  function backDone() {
    wasDown = false;
    banner(caughtUp ? tn("Back, {n} change caught up", "Back, {n} changes caught up", caughtUp) : t("Back, up to date"), "back");
  }

  // Everything ready goes out in the order queued; a form's command (an HTTP request, not the socket's one
  // ordered stream) goes once all before it are answered, and what comes after it waits for its answer.
  function pump() {
    if (!socket.connected) return;
    for (let i = 0; i < queue.length; i++) {
      const item = queue[i];
      if (item.form) {
        if (i === 0 && !item.sent && !item.retry) post(item);
        return;
      }
      if (!item.sent && item.ready) transmit(item);
    }
  }
  function transmit(item) {
    item.sent = true;
    const attempt = ++item.tries;
    socket.timeout(WAIT_MS).emit("command", Object.assign({}, item.payload, { cid: item.cid }), (err, ack) => {
      if (item.done || item.tries !== attempt) return; // answered already, or sent again since
      if (err) {
        if (!socket.connected) { item.sent = false; return; } // the link dropped: it goes again on reconnecting
        if (attempt < TRIES) { transmit(item); return; } // no answer on a live link: the same id again is safe
        ack = { ok: false, error: t("the server did not answer; try again") };
      }
      finish(item, ack);
    });
  }
  function finish(item, ack, quiet) {
    item.done = true;
    clearTimeout(item.retry);
    queue.splice(queue.indexOf(item), 1);
    if (item.button) { item.button.classList.remove("waiting"); item.button.removeAttribute("aria-busy"); }
    if (!ack.ok) {
      const payload = item.payload;
      if ((ack.code === "no_way" || ack.code === "fight_rules") && isGM() && payload.type === "move_token") {
        // the GM may rule otherwise (past a wall, out of turn, past the allowance): the same move,
        // forced, goes in the log as a GM ruling
        flash(ack.error, "error", { label: t("Move anyway (GM ruling)"),
                                     run: () => command(Object.assign({}, payload, { force: true })) });
      } else if (!quiet) {
        flash(item.late ? t("Refused after reconnecting: {reason}", { reason: ack.error }) : ack.error);
      }
    } else if (item.late) {
      caughtUp += 1;
    }
    if (wasDown && socket.connected && !queue.some((q) => q.late)) backDone();
    else if (wasDown && !socket.connected) banner(t("Reconnecting…") + waitingText(), "down");
    item.resolve(ack);
    document.dispatchEvent(new CustomEvent("tacmap:answered", { detail: { payload: item.payload, ack: ack } }));
    pump(); // what waited behind it goes now
  }

  // `after`: a promise the command waits on before it goes out (map.js: a token's next move, after the
  // answer to its last); it is in the queue, and counted, from now.
  function command(payload, after) {
    if (replaying && payload.type !== "replay" && payload.type !== "replay_end") {
      // the board shows a past moment: a move or a roll made on it would act on the game as it is now
      flash(t("This screen shows a replay: press \u201cBack to the table\u201d first."));
      return Promise.resolve({ ok: false, error: "replaying" });
    }
    if (!socket.connected && QUESTIONS.has(payload.type)) {
      if (payload.type === "preview_attack") flash(OFFLINE.error);
      return Promise.resolve(OFFLINE);
    }
    return new Promise((resolve) => {
      const active = document.activeElement;
      const button = active && active.matches && active.matches("button, input[type=submit]") ? active : null;
      const item = { payload: payload, cid: `${device}.${pageId}.${++sentCount}`, resolve: resolve, tries: 0,
                     sent: false, late: !socket.connected, button: button, ready: !after };
      queue.push(item);
      if (after) after.then(() => { item.ready = true; pump(); });
      if (socket.connected) pump();
      else pending(item);
    });
  }
  // queued while the link is down: its button waits, the banner counts it
  function pending(item) {
    if (item.button) { item.button.classList.add("waiting"); item.button.setAttribute("aria-busy", "true"); }
    banner(t("Reconnecting…") + waitingText(), "down");
  }

  // --- htmx forms' commands: the same ids, the same queue --------------------------
  // A form posting to the game's command endpoint (hx-post="{{ url_for('game.command') }}": the GM's token
  // list, maps, players...) carries its id in the X-Command-Id header. While the link is down (or behind
  // commands still waiting) it is not sent by htmx but queued here, in order with the socket's commands,
  // its button waiting; one whose answer was lost on the way (a network error) is queued with its id, so
  // sending it again cannot do it twice. A queued one goes out as the same request (fetch), and its answer
  // is read as htmx would: a refusal (HX-Trigger tacmap:refused) springs back with its reason.
  const commandPath = "/games/" + game + "/commands";
  const isFormCommand = (cfg) => !!cfg && cfg.verb === "post" &&
    new URL(cfg.path, window.location.href).pathname === commandPath;
  const linkDown = () => !socket.connected || navigator.onLine === false;
  document.body.addEventListener("htmx:configRequest", (e) => {
    if (isFormCommand(e.detail)) e.detail.headers["X-Command-Id"] = `${device}.${pageId}.${++sentCount}`;
  });
  function queueForm(detail, late) {
    const cfg = detail.requestConfig;
    const body = new URLSearchParams();
    for (const [name, value] of cfg.parameters) if (typeof value === "string") body.append(name, value);
    const elt = detail.elt;
    const form = elt && elt.closest ? elt.closest("form") : null;
    const submitter = cfg.triggeringEvent && cfg.triggeringEvent.submitter;
    const button = submitter || (form && form.querySelector("button[type=submit], button:not([type]), input[type=submit]"));
    const item = { payload: { type: body.get("type") || "command" }, cid: cfg.headers["X-Command-Id"],
                   resolve: () => {}, tries: 0, sent: false, late: late || linkDown(), button: null, ready: true,
                   form: { url: cfg.path, headers: Object.assign({}, cfg.headers), body: body.toString(), elt: form } };
    item.button = onPage(button, form);
    queue.push(item);
    if (linkDown()) pending(item);
    else pump();
  }
  document.body.addEventListener("htmx:beforeRequest", (e) => {
    const cfg = e.detail.requestConfig;
    if (!isFormCommand(cfg) || !cfg.headers["X-Command-Id"]) return;
    if (!linkDown() && !queue.some((q) => q.form)) {
      // goes now, as htmx sends it; if no answer comes back (a network error) it is queued with its id. Told by
      // the request itself: the form may be gone by then (its change came back over the socket and redrew it)
      const detail = e.detail;
      detail.xhr.addEventListener("error", () => queueForm(detail, true));
      return;
    }
    e.preventDefault();
    queueForm(e.detail, false);
  });
  // The button as it is on the page now: a live update may have drawn its form afresh meanwhile (the change
  // it sent came back over the socket first): then its twin, the same button of a form of the same command.
  function onPage(button, form) {
    if (!button || button.isConnected || !form) return button;
    const hidden = (f) => Array.from(f.querySelectorAll("input[type=hidden]"), (i) => i.name + "=" + i.value).join("&");
    const same = Array.from(document.querySelectorAll("form[hx-post]")).find((f) =>
      f.getAttribute("hx-post") === form.getAttribute("hx-post") && hidden(f) === hidden(form));
    const label = (b) => (b.getAttribute("aria-label") || "") + "|" + b.textContent.trim();
    return (same && Array.from(same.querySelectorAll("button, input[type=submit]")).find((b) => label(b) === label(button))) || button;
  }
  function post(item) {
    item.sent = true;
    const attempt = ++item.tries;
    fetch(item.form.url, { method: "POST", credentials: "same-origin", headers: item.form.headers, body: item.form.body })
      .then((r) => r.text().then((text) => {
        let trigger = {};
        try { trigger = JSON.parse(r.headers.get("HX-Trigger") || "{}"); } catch (err) { trigger = {}; }
        if (!r.ok) return { ok: false, error: text || t("the server refused that") };
        if (trigger["tacmap:refused"] !== undefined) return { ok: false, error: trigger["tacmap:refused"] || t("the table refused that") };
        return { ok: true, notice: trigger["tacmap:notice"] };
      }))
      .then((ack) => {
        if (item.done) return;
        if (ack.ok) {
          if (ack.notice) flash(ack.notice, "info");
          formDone(item.form.elt);
        }
        finish(item, ack);
      }, () => {
        if (item.done) return;
        item.sent = false; // no answer: it goes again with its id (done once however often it arrives)
        if (!socket.connected) return; // on reconnecting
        if (attempt >= TRIES) { finish(item, { ok: false, error: t("the server did not answer; try again") }); return; }
        item.retry = setTimeout(() => { item.retry = null; pump(); }, 1500);
      });
  }

  function preview(payload) {
    socket.emit("preview", payload);
  }

  // htmx forms post commands too: a refusal or "nothing changed" comes back as an event, not an error.
  document.body.addEventListener("tacmap:refused", (e) => flash(e.detail.value || "the table refused that"));
  document.body.addEventListener("tacmap:notice", (e) => flash(e.detail.value || "done", "info"));
  document.body.addEventListener("htmx:sendError", (e) => {
    // a form's command whose answer never came is queued to go again (above), not given up
    if (!isFormCommand(e.detail.requestConfig)) flash(t("The GM's computer did not answer; try again."));
  });
  document.body.addEventListener("htmx:responseError", (e) => {
    flash(e.detail.xhr.responseText || t("the server refused that"));
  });

  window.tacmap = { command: command, preview: preview, flash: flash, socket: socket, waiting: () => queue.map((q) => q.payload.type),
                    seq: () => seq, settle: settle, replaying: () => replaying };
})();
