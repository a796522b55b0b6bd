// The arecipe report's script, inlined into every report.html: switches the
// chart's metrics, shows tooltips from data-tip attributes, and ties a chart
// point to its table row. The page reads without it; it adds no content.
(function () {
  'use strict';

  // Shows the one chart variant whose data-x and data-y match the checked
  // buttons of its figure. SVG elements have no `hidden` property, only the
  // attribute.
  function selectVariant(figure) {
    var x = figure.querySelector('input[name="pareto-x"]:checked').value;
    var y = figure.querySelector('input[name="pareto-y"]:checked').value;
    var logBox = figure.querySelector('input[name="pareto-log"]');
    var log = logBox && logBox.checked ? '1' : '0';
    figure.querySelectorAll('svg.chart').forEach(function (svg) {
      svg.toggleAttribute('hidden', !(svg.dataset.x === x && svg.dataset.y === y &&
                                      (svg.dataset.log || '0') === log));
    });
  }
  document.querySelectorAll('figure.pareto').forEach(function (figure) {
    figure.querySelectorAll('input').forEach(function (input) {
      input.addEventListener('change', function () { selectVariant(figure); });
    });
    selectVariant(figure);
  });

  // The knob table, knobs as rows or (pivoted) cells as rows.
  document.querySelectorAll('.knob-tables').forEach(function (box) {
    function show() {
      var view = box.querySelector('input[name="knob-view"]:checked').value;
      box.querySelectorAll('[data-view]').forEach(function (el) {
        el.hidden = el.dataset.view !== view;
      });
    }
    box.querySelectorAll('input[name="knob-view"]').forEach(function (input) {
      input.addEventListener('change', show);
    });
    show();
  });

  // data-tip: a title line, then "label<TAB>value" lines shown as a table.
  var tip = document.getElementById('tooltip');
  function fillTip(text) {
    var lines = text.split('\n');
    tip.textContent = '';
    var title = document.createElement('div');
    title.className = 'tip-title';
    var rows = document.createElement('table');
    lines.forEach(function (line) {
      var tab = line.indexOf('\t');
      if (tab < 0) {
        title.textContent += (title.textContent ? '\n' : '') + line;
        return;
      }
      var tr = rows.insertRow();
      tr.insertCell().textContent = line.slice(0, tab);
      tr.insertCell().textContent = line.slice(tab + 1);
    });
    tip.appendChild(title);
    if (rows.rows.length) tip.appendChild(rows);
  }
  function place(event) {
    var pad = 14, w = tip.offsetWidth, h = tip.offsetHeight;
    var left = event.clientX + pad, top = event.clientY + pad;
    if (left + w > window.innerWidth - 4) left = event.clientX - w - pad;
    if (top + h > window.innerHeight - 4) top = event.clientY - h - pad;
    tip.style.left = Math.max(4, left) + 'px';
    tip.style.top = Math.max(4, top) + 'px';
  }
  var current = null;
  function highlight(cell, on) {
    if (!cell) return;
    document.querySelectorAll('[data-cell="' + cell + '"]').forEach(function (el) {
      el.classList.toggle('hl', on);
    });
  }
  document.addEventListener('mouseover', function (event) {
    var target = event.target.closest ? event.target.closest('[data-tip]') : null;
    if (target === current) return;
    if (current) highlight(current.dataset.cell, false);
    current = target;
    if (!target) { tip.hidden = true; return; }
    fillTip(target.dataset.tip);
    tip.hidden = false;
    place(event);
    highlight(target.dataset.cell, true);
  });
  document.addEventListener('mousemove', function (event) {
    if (current) place(event);
  });
})();
