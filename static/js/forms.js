// Forms that send a command over the live link as typed JSON (not form strings):
// <form data-command="roll"> with named fields. A checkbox is true/false, a
// checkbox with data-list adds its value to a list, a number field is a number,
// data-json parses JSON, and a dotted name ("settings.max_actions") nests.
(function () {
  "use strict";

  function valueOf(el) {
    if (el.type === "checkbox") return el.checked;
    if (el.dataset.json !== undefined) return JSON.parse(el.value);
    if (el.type === "number" || el.dataset.int !== undefined || el.dataset.float !== undefined) {
      return el.value === "" ? undefined : Number(el.value);
    }
    return el.value;
  }

  function payloadOf(form) {
    const payload = { type: form.dataset.command };
    for (const el of form.elements) {
      if (!el.name || el.disabled) continue;
      if (el.dataset.list !== undefined) {
        payload[el.name] = payload[el.name] || [];
        if (el.checked) payload[el.name].push(el.value);
        continue;
      }
      const value = valueOf(el);
      if (value === undefined || value === "") continue;
      const path = el.name.split(".");
      let at = payload;
      for (const part of path.slice(0, -1)) at = at[part] = at[part] || {};
      at[path[path.length - 1]] = value;
    }
    return payload;
  }

  document.addEventListener("submit", async (e) => {
    const form = e.target.closest("form[data-command]");
    if (!form || !window.tacmap) return;
    e.preventDefault();
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
    let payload;
    try {
      payload = payloadOf(form);
    } catch (err) {
      window.tacmap.flash(t("That is not valid: {reason}", { reason: err.message }));
      return;
    }
    const ack = await window.tacmap.command(payload);
    if (ack.ok && ack.text) window.tacmap.flash(t("You rolled {roll}", { roll: ack.text }), "info");
  });
})();
