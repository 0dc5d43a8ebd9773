// The page's CSRF token (from <meta name="csrf-token">) goes with every request that can change
// something: htmx requests get the X-CSRFToken header here; fetch/XHR code calls
// tacmapCsrf.headers() or tacmapCsrf.fetch(). Socket.IO needs none (its origin is checked).
(function () {
  "use strict";
  function token() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }
  function headers(extra) {
    return Object.assign({ "X-CSRFToken": token() }, extra || {});
  }
  function csrfFetch(url, options) {
    const opts = Object.assign({ credentials: "same-origin" }, options || {});
    opts.headers = headers(opts.headers);
    return fetch(url, opts);
  }
  document.addEventListener("htmx:configRequest", (e) => {
    if (e.detail.verb !== "get") e.detail.headers["X-CSRFToken"] = token();
  });
  window.tacmapCsrf = { token: token, headers: headers, fetch: csrfFetch };
})();
