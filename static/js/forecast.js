// The GM's forecast card (#68, templates/_forecast.html): its form drawn afresh each time the card is opened, for
// the tokens on the map the GM's screen shows now (GET .../forecast-form, htmx swaps it in).
(function () {
  "use strict";
  document.addEventListener("toggle", (e) => {
    const card = e.target;
    if (card.id !== "forecast-details" || !card.open || !window.htmx) return;
    window.htmx.ajax("GET", card.dataset.form, { target: "#forecast-form-area", swap: "innerHTML" });
  }, true);
})();
