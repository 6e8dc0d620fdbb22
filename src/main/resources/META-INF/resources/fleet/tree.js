// The cluster view's tree: the same lines `describe` prints (Cluster, control plane, workers, etcd, CNI), read from
// /fleet/clusters/NS/NAME/tree, drawn with fleet.js' own element and pill makers (textContent only).
function FleetTree(el, pill) {
  'use strict';

  var list = document.getElementById('detail-tree');
  var note = document.getElementById('detail-tree-status');
  // One read at a time; a change while one is under way asks for another after it.
  var loading = false;
  var again = null;
  var shown = null;

  function render(lines) {
    list.replaceChildren();
    lines.forEach(function (line) {
      var li = el('li', 'tree-line depth-' + Math.min(line.depth, 4));
      li.setAttribute('role', 'treeitem');
      li.setAttribute('aria-level', String(line.depth + 1));
      li.setAttribute('data-name', line.name);
      li.setAttribute('data-ready', line.ready);
      li.style.paddingLeft = (line.depth * 16) + 'px';
      var head = el('div', 'tree-head');
      head.appendChild(el('span', 'tree-name', line.name));
      if (line.ready) head.appendChild(pill(line.ready, line.severity));
      if (line.reason) {
        head.appendChild(el('span', 'tree-reason', line.reason + (line.severity ? ' (' + line.severity + ')' : '')));
      }
      if (line.since) head.appendChild(el('span', 'tree-since', line.since));
      li.appendChild(head);
      if (line.message) li.appendChild(el('div', 'tree-message', line.message));
      list.appendChild(li);
    });
  }

  function path(key) {
    var parts = key.split('/');
    return '/fleet/clusters/' + encodeURIComponent(parts[0]) + '/' + encodeURIComponent(parts.slice(1).join('/'))
        + '/tree';
  }

  /** Reads and shows the tree of {@code key} (namespace/name); {@code current} says whether it is still wanted. */
  function load(key, current) {
    if (loading) { again = key; return; }
    loading = true;
    if (shown !== key) {
      list.replaceChildren();
      note.textContent = 'Reading from the Kubernetes API…';
      note.hidden = false;
    }
    fetch(path(key), {cache: 'no-store'})
      .then(function (r) {
        return r.json().then(function (body) { return {ok: r.ok, body: body}; },
            function () { return {ok: false, body: {error: 'HTTP ' + r.status}}; });
      })
      .then(function (answer) {
        if (!current(key)) return;
        if (answer.ok) {
          render(answer.body.lines || []);
          note.hidden = true;
        } else {
          list.replaceChildren();
          note.textContent = 'Cannot show the objects: ' + (answer.body.error || 'no answer');
          note.hidden = false;
        }
        shown = key;
      })
      .catch(function () {
        if (current(key)) {
          note.textContent = 'Cannot show the objects: the aggregator did not answer';
          note.hidden = false;
        }
      })
      .finally(function () {
        loading = false;
        if (again) { var next = again; again = null; if (current(next)) load(next, current); }
      });
  }

  function clear() {
    shown = null;
    list.replaceChildren();
  }

  return {load: load, clear: clear};
}
