// Sortable tables: click a column's heading (or press Enter on it) to sort by it;
// again to reverse. Cells sort by their data-v number when they have one, else by text;
// a cell without a value (data-v="") always sorts last. No dependencies, no network.
(function () {
  "use strict";
  function key(cell) {
    var v = cell.getAttribute("data-v");
    if (v === null) return { empty: false, num: null, text: cell.textContent.trim() };
    if (v === "") return { empty: true };
    return { empty: false, num: parseFloat(v), text: "" };
  }
  function compare(a, b, dir) {
    if (a.empty || b.empty) return a.empty === b.empty ? 0 : a.empty ? 1 : -1;
    var c = a.num !== null && b.num !== null ? a.num - b.num : a.text.localeCompare(b.text);
    return dir * c;
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      return compare(key(r1.cells[col]), key(r2.cells[col]), dir);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) {
      h.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortBy(table, col, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, col, th); }
      });
    });
  });
})();
