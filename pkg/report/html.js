// The HTML report's only script (allowed by its hash in the page's
// Content-Security-Policy): it draws each session's timeline from the JSON data
// block beside it, a page at a time, filtered by severity, direction and method;
// a click on a frame shows its JSON. Captured text only ever goes through
// textContent, never through markup.
(function () {
  'use strict';
  var pageSize = 100;
  var arrows = { c2s: 'client → server', s2c: 'server → client', unknown: '?' };

  function cell(tr, text, className) {
    var td = document.createElement('td');
    td.textContent = text;
    if (className) {
      td.className = className;
    }
    tr.appendChild(td);
    return td;
  }

  // timeCell shows a frame's time (RFC 3339, UTC) as its clock to the
  // millisecond, under its date when the date is not the previous row's; the
  // whole time is the cell's title. It returns the row's date.
  function timeCell(tr, time, previousDate) {
    var td = cell(tr, '', 'time');
    var parts = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d{1,3})?\d*Z$/.exec(time || '');
    if (!parts) {
      td.textContent = time || '';
      return previousDate;
    }
    td.title = time;
    if (parts[1] !== previousDate) {
      var date = document.createElement('div');
      date.className = 'date';
      date.textContent = parts[1];
      td.appendChild(date);
    }
    td.appendChild(document.createTextNode(parts[2] + (parts[3] || '')));
    return parts[1];
  }

  function setup(timeline) {
    var block = timeline.querySelector('script.frames-data');
    var rows = JSON.parse(block.textContent);
    var body = timeline.querySelector('tbody');
    var counter = timeline.querySelector('.count');
    var pageLabel = timeline.querySelector('.page');
    var prev = timeline.querySelector('[data-page="prev"]');
    var next = timeline.querySelector('[data-page="next"]');
    var shown = rows;
    var page = 0;

    function checked(name) {
      var out = {};
      timeline.querySelectorAll('input[data-filter="' + name + '"]').forEach(function (box) {
        out[box.value] = box.checked;
      });
      return out;
    }

    function filter() {
      var severity = checked('severity');
      var direction = checked('direction');
      var method = timeline.querySelector('select[data-filter="method"]').value;
      shown = rows.filter(function (row) {
        return severity[row.v] && direction[row.d] && (method === '' || row.m === method);
      });
      page = 0;
      render();
    }

    function toggle(tr, row) {
      var open = tr.nextSibling;
      if (open && open.classList && open.classList.contains('raw')) {
        open.remove();
        tr.setAttribute('aria-expanded', 'false');
        return;
      }
      var detail = document.createElement('tr');
      detail.className = 'raw';
      var td = document.createElement('td');
      td.colSpan = 5;
      var pre = document.createElement('pre');
      pre.textContent = row.j ? row.j + (row.c ? '\n(cut: the frame is longer than the copy the analysis kept)' : '') : '(the frame was not kept)';
      td.appendChild(pre);
      detail.appendChild(td);
      tr.after(detail);
      tr.setAttribute('aria-expanded', 'true');
    }

    function render() {
      body.replaceChildren();
      var pages = Math.max(1, Math.ceil(shown.length / pageSize));
      var start = page * pageSize;
      var date = '';
      shown.slice(start, start + pageSize).forEach(function (row) {
        var tr = document.createElement('tr');
        tr.className = 'frame k-' + row.k + (row.v ? ' sev-' + row.v : '');
        tr.dataset.line = row.l;
        tr.dataset.severity = row.v || 'none';
        tr.dataset.direction = row.d;
        tr.dataset.method = row.m;
        tr.tabIndex = 0;
        tr.setAttribute('aria-expanded', 'false');
        cell(tr, String(row.l), 'n');
        date = timeCell(tr, row.t, date);
        cell(tr, arrows[row.d] || row.d, 'direction');
        var what = cell(tr, row.x, 'label');
        (row.mk || []).forEach(function (mark) {
          var div = document.createElement('div');
          div.className = mark.b ? 'mark bad' : 'mark';
          div.textContent = mark.t;
          what.appendChild(div);
        });
        var found = cell(tr, '');
        (row.f || []).forEach(function (text) {
          var div = document.createElement('div');
          div.textContent = text;
          found.appendChild(div);
        });
        tr.addEventListener('click', function () { toggle(tr, row); });
        tr.addEventListener('keydown', function (event) {
          if (event.key === 'Enter' || event.key === ' ') {
            event.preventDefault();
            toggle(tr, row);
          }
        });
        body.appendChild(tr);
      });
      counter.textContent = shown.length + ' of ' + rows.length + ' frames shown' +
        (shown.length ? ' (' + (start + 1) + '–' + Math.min(start + pageSize, shown.length) + ')' : '') +
        '. Click a frame to see its JSON.';
      pageLabel.textContent = 'page ' + (page + 1) + ' of ' + pages;
      prev.disabled = page === 0;
      next.disabled = page >= pages - 1;
    }

    timeline.addEventListener('change', filter);
    prev.addEventListener('click', function () { if (page > 0) { page--; render(); } });
    next.addEventListener('click', function () {
      if ((page + 1) * pageSize < shown.length) { page++; render(); }
    });
    filter();
  }

  document.querySelectorAll('.timeline').forEach(setup);
  document.documentElement.dataset.ready = 'true';
})();
