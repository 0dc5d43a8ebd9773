// The sheet editor's rows (weapons, skills, edges...): "Add" puts a new empty row from the field's
// <template>, numbered after the others; "Remove" takes a row out. Nothing else: the server reads and
// checks the form, and an empty new row is left out.
(function () {
  "use strict";

  function addRow(box) {
    const template = box.querySelector(":scope > template");
    const list = box.querySelector(":scope > .rows-list");
    if (!template || !list) return;
    const n = Number(box.dataset.next || "0");
    box.dataset.next = String(n + 1);
    const row = template.content.firstElementChild.cloneNode(true);
    for (const el of row.querySelectorAll("[name]")) el.name = el.name.replace("[__ROW__]", "[" + n + "]");
    list.appendChild(row);
    const first = row.querySelector("input:not([type=hidden]), select, textarea");
    if (first) first.focus();
  }

  document.addEventListener("click", (e) => {
    const add = e.target.closest("[data-add-row]");
    if (add) {
      e.preventDefault();
      addRow(add.closest("[data-rows]"));
      return;
    }
    const remove = e.target.closest("[data-remove-row]");
    if (remove) {
      e.preventDefault();
      const box = remove.closest("[data-rows]");
      remove.closest("[data-row]").remove();
      const again = box && box.querySelector(":scope > [data-add-row]");
      if (again) again.focus();
    }
  });
})();
