// The fleet page: every cluster's conditions, live from the server's event stream (/fleet/events), counted per state,
// filtered, searched and sorted in the browser (view.js), with a detail panel of one cluster: its objects as a tree
// (tree.js) and its recent transitions (/fleet/clusters/NS/NAME/transitions). No framework: the DOM is built with
// textContent only, so nothing from the feed is ever parsed as HTML.
//
// At fleet scale: the rows are built once from the snapshot; a change rebuilds its own row only, and the changes that
// arrive within one frame are applied together (requestAnimationFrame), with the counts worked out once per frame.
// Filtering hides rows; sorting moves them.
(function () {
  'use strict';

  var CONDITIONS = FleetView.CONDITIONS;
  var conditionOf = FleetView.conditionOf;

  /** key ("namespace/name") -> {key, document, progress} */
  var clusters = new Map();
  /** key -> <tr> */
  var rows = new Map();
  /** The keys in the table's order, for the current sort. */
  var order = [];
  /** Changes not yet shown, key -> cluster (null: deleted); applied on the next frame. */
  var pending = new Map();
  var frame = null;
  var view = FleetView.fromHash(window.location.hash);
  var selected = null;
  var source = null;

  var tbody = document.getElementById('clusters');
  var tree = FleetTree(el, pill);

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  /**
   * The colour of a condition: green True, red False with severity Error, amber other False, grey otherwise. A True
   * with a severity is a condition whose True is activity or trouble (the tree's RollingOut, Remediating): by severity.
   */
  function tone(status, severity) {
    if (status === 'True') return !severity ? 'ok' : severity === 'Error' ? 'error' : 'warn';
    if (status === 'False') return severity === 'Error' ? 'error' : 'warn';
    return 'unknown';
  }

  function pill(status, severity) {
    var shown = status || 'Unknown';
    var span = el('span', 'pill ' + tone(status, severity), shown);
    span.setAttribute('data-status', shown);
    return span;
  }

  function relative(iso) {
    var t = Date.parse(iso);
    if (isNaN(t)) return '';
    var s = Math.max(0, Math.round((Date.now() - t) / 1000));
    if (s < 60) return s + 's ago';
    if (s < 3600) return Math.floor(s / 60) + 'm ago';
    if (s < 86400) return Math.floor(s / 3600) + 'h ago';
    return Math.floor(s / 86400) + 'd ago';
  }

  function clock(iso) {
    var d = new Date(iso);
    if (isNaN(d.getTime())) return iso || '';
    return d.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false});
  }

  /** Control-plane and worker counts: the latest change event's progress, else the status' worker groups. */
  function counts(cluster) {
    var p = cluster.progress;
    var result = {controlPlane: null, workers: null};
    if (p && p.controlPlane && p.controlPlane.desired > 0) result.controlPlane = p.controlPlane;
    if (p && p.workers && p.workers.desired > 0) {
      result.workers = p.workers;
    } else {
      var groups = (cluster.document.status && cluster.document.status.workerNodeGroups) || [];
      if (groups.length) {
        result.workers = {
          ready: groups.reduce(function (n, g) { return n + (g.readyReplicas || 0); }, 0),
          desired: groups.reduce(function (n, g) { return n + (g.replicas || 0); }, 0)
        };
      }
    }
    return result;
  }

  function countCell(count, name) {
    var td = el('td', 'count-cell');
    td.setAttribute('data-count', name);
    if (!count) {
      td.appendChild(el('span', 'count muted', '–'));
      return td;
    }
    var text = el('span', 'count', count.ready + '/' + count.desired);
    td.setAttribute('data-ready', count.ready);
    td.setAttribute('data-desired', count.desired);
    td.appendChild(text);
    var bar = el('div', 'bar' + (count.ready < count.desired ? ' partial' : ''));
    var fill = el('span');
    fill.style.width = (count.desired > 0 ? Math.min(100, 100 * count.ready / count.desired) : 0) + '%';
    bar.appendChild(fill);
    td.appendChild(bar);
    return td;
  }

  function renderRow(cluster) {
    var doc = cluster.document;
    var status = doc.status || {};
    var meta = doc.metadata || {};
    var tr = el('tr');
    tr.setAttribute('data-cluster', cluster.key);
    tr.setAttribute('data-state', FleetView.stateOf(cluster));
    tr.tabIndex = 0;
    tr.hidden = !FleetView.matches(cluster, view);

    var name = el('td', 'cluster');
    name.appendChild(el('div', 'cluster-namespace', meta.namespace));
    name.appendChild(el('div', 'cluster-name', meta.name));
    var current = status.observedGeneration === meta.generation;
    var generation = el('div', 'cluster-generation' + (current ? '' : ' stale'),
        'generation ' + meta.generation + (current ? '' : ', observed ' + status.observedGeneration));
    name.appendChild(generation);
    tr.appendChild(name);

    CONDITIONS.forEach(function (type) {
      var c = conditionOf(doc, type);
      var td = el('td', 'condition');
      td.setAttribute('data-condition', type);
      td.setAttribute('data-status', c ? c.status : 'Unknown');
      if (c && c.severity) td.setAttribute('data-severity', c.severity);
      td.appendChild(pill(c ? c.status : null, c && c.severity));
      td.title = type + ': ' + (c
          ? c.status + (c.reason ? ' (' + c.reason + ')' : '') + (c.message ? ' — ' + c.message : '')
              + (c.lastTransitionTime ? '\nsince ' + c.lastTransitionTime : '')
          : 'not reported');
      tr.appendChild(td);
    });

    var n = counts(cluster);
    tr.appendChild(countCell(n.controlPlane, 'controlPlane'));
    tr.appendChild(countCell(n.workers, 'workers'));

    var why = el('td', 'why');
    var ready = conditionOf(doc, 'Ready');
    var failed = !!(status.failureReason || status.failureMessage);
    if (ready && ready.status === 'True') {
      why.appendChild(el('div', 'ready-ok', 'Ready'));
    } else if (failed && ready && ready.reason === status.failureReason) {
      // Ready only repeats the failure: the failure line below says it once.
    } else if (ready) {
      why.appendChild(el('div', 'reason', ready.reason || ready.status));
      if (ready.message) why.appendChild(el('div', 'message', ready.message));
    } else {
      why.appendChild(el('div', 'message', 'No Ready condition yet'));
    }
    if (failed) {
      var failure = el('div', 'failure-line',
          (status.failureReason || 'Failure') + (status.failureMessage ? ': ' + status.failureMessage : ''));
      failure.setAttribute('data-failure-reason', status.failureReason || '');
      why.appendChild(failure);
    }
    if (ready && ready.lastTransitionTime) {
      var since = el('div', 'since', 'since ' + relative(ready.lastTransitionTime));
      since.setAttribute('data-since', ready.lastTransitionTime);
      why.appendChild(since);
    }
    tr.appendChild(why);

    if (cluster.key === selected) tr.classList.add('selected');
    return tr;
  }

  // ---- the table: rows in order, filtered, changed a frame at a time

  /** Where {@code key} goes in {@code order}: binary search with the current sort. */
  function position(cluster) {
    var compare = FleetView.comparator(view.sort);
    var low = 0;
    var high = order.length;
    while (low < high) {
      var mid = (low + high) >> 1;
      if (compare(clusters.get(order[mid]), cluster) < 0) low = mid + 1; else high = mid;
    }
    return low;
  }

  function place(key, tr) {
    var at = position(clusters.get(key));
    order.splice(at, 0, key);
    var next = at + 1 < order.length ? rows.get(order[at + 1]) : null;
    tbody.insertBefore(tr, next);
  }

  function unplace(key) {
    var at = order.indexOf(key);
    if (at >= 0) order.splice(at, 1);
  }

  /** Shows one change: its row rebuilt and, when its sort key moved, moved. */
  function apply(key, cluster) {
    var old = rows.get(key);
    var before = clusters.get(key);
    if (cluster === null) {
      clusters.delete(key);
      rows.delete(key);
      unplace(key);
      if (old) old.remove();
      return;
    }
    // The progress comes with change events; a status keeps the last one seen.
    if (!cluster.progress && before) cluster.progress = before.progress;
    clusters.set(key, cluster);
    var tr = renderRow(cluster);
    rows.set(key, tr);
    if (old && (view.sort.indexOf('name') >= 0 || FleetView.comparator(view.sort)(before, cluster) === 0
        || stillInPlace(key))) {
      tbody.replaceChild(tr, old);
    } else {
      if (old) { unplace(key); old.remove(); }
      place(key, tr);
    }
  }

  /** Whether the row of {@code key} is still between its neighbours in the current order. */
  function stillInPlace(key) {
    var at = order.indexOf(key);
    var compare = FleetView.comparator(view.sort);
    var cluster = clusters.get(key);
    return (at <= 0 || compare(clusters.get(order[at - 1]), cluster) <= 0)
        && (at < 0 || at + 1 >= order.length || compare(cluster, clusters.get(order[at + 1])) <= 0);
  }

  function schedule(key, cluster) {
    pending.set(key, cluster);
    if (frame === null) frame = requestAnimationFrame(flush);
  }

  /** Applies the changes of one frame, then what depends on all of them: counts, the filters' choices, the panel. */
  function flush() {
    frame = null;
    var keys = [];
    pending.forEach(function (cluster, key) {
      apply(key, cluster);
      keys.push(key);
    });
    pending.clear();
    renderSummary();
    if (selected && keys.indexOf(selected) >= 0) {
      renderDetail();
      loadTransitions();
      tree.load(selected, isSelected);
    }
    // For whoever measures the page (a browser's performance tools, the figures' program): when changes were shown.
    performance.clearMarks('fleet:updated');
    performance.mark('fleet:updated', {detail: {keys: keys}});
  }

  /** Every row again, from a snapshot: built off the document and put in at once. */
  function rebuild() {
    var compare = FleetView.comparator(view.sort);
    order = Array.from(clusters.keys()).sort(function (a, b) { return compare(clusters.get(a), clusters.get(b)); });
    rows.clear();
    var fragment = document.createDocumentFragment();
    order.forEach(function (key) {
      var tr = renderRow(clusters.get(key));
      rows.set(key, tr);
      fragment.appendChild(tr);
    });
    tbody.replaceChildren(fragment);
  }

  /** The view changed: hide and show rows, and move them only when the order changed. */
  function refilter(resort) {
    if (resort) {
      var compare = FleetView.comparator(view.sort);
      order.sort(function (a, b) { return compare(clusters.get(a), clusters.get(b)); });
      var fragment = document.createDocumentFragment();
      order.forEach(function (key) { fragment.appendChild(rows.get(key)); });
      tbody.appendChild(fragment);
    }
    rows.forEach(function (tr, key) {
      var hide = !FleetView.matches(clusters.get(key), view);
      if (tr.hidden !== hide) tr.hidden = hide;
    });
    renderSummary();
  }

  function renderSummary() {
    var counts = FleetView.tally(clusters);
    var total = counts.all;
    var ready = counts.ready;
    var summary = document.getElementById('counts');
    summary.textContent = total + (total === 1 ? ' cluster, ' : ' clusters, ') + ready + ' Ready';
    summary.setAttribute('data-clusters', total);
    summary.setAttribute('data-ready', ready);
    var attention = document.getElementById('attention');
    attention.hidden = counts.error === 0;
    attention.textContent = counts.error + ' failing';
    document.querySelectorAll('#states [data-state]').forEach(function (button) {
      var state = button.getAttribute('data-state');
      var count = button.querySelector('.state-count');
      if (count.textContent !== String(counts[state])) count.textContent = counts[state];
      button.setAttribute('aria-pressed', String(view.state === state));
    });
    var matched = 0;
    clusters.forEach(function (c) { if (FleetView.matches(c, view)) matched++; });
    var shown = document.getElementById('shown');
    shown.setAttribute('data-shown', matched);
    shown.textContent = matched === total ? 'Showing all ' + total : 'Showing ' + matched + ' of ' + total;
    document.getElementById('empty').hidden = total > 0;
    document.getElementById('none-match').hidden = total === 0 || matched > 0;
    choices();
    document.title = ready + '/' + total + ' Ready · Fleet status';
  }

  // ---- the controls: state counts, filters, search, sort; the view lives in the URL's hash

  /**
   * Fills a select with {@code values} after its first option (the "any"), keeping the choice; only when they
   * changed.
   */
  function options(select, values) {
    var wanted = values.join('\n');
    if (select.getAttribute('data-values') === wanted) return;
    select.setAttribute('data-values', wanted);
    var first = select.options[0];
    var chosen = select.value;
    select.replaceChildren(first);
    values.forEach(function (v) {
      var option = el('option', null, v);
      option.value = v;
      select.appendChild(option);
    });
    select.value = values.indexOf(chosen) >= 0 ? chosen : '';
  }

  /** The namespaces and reasons there are to filter by; the chosen one stays listed while nothing shows it. */
  function choices() {
    var namespaces = new Set();
    var reasons = new Set();
    clusters.forEach(function (c) {
      namespaces.add(FleetView.namespaceOf(c));
      FleetView.reasonsOf(c).forEach(function (r) { reasons.add(r); });
    });
    if (view.namespace) namespaces.add(view.namespace);
    if (view.reason) reasons.add(view.reason);
    options(document.getElementById('filter-namespace'), Array.from(namespaces).sort());
    options(document.getElementById('filter-reason'), Array.from(reasons).sort());
    showView();
  }

  /** The controls as the view says. */
  function showView() {
    document.getElementById('search').value !== view.q && (document.getElementById('search').value = view.q);
    document.getElementById('filter-namespace').value = view.namespace;
    document.getElementById('filter-reason').value = view.reason;
    document.getElementById('filter-condition').value = view.condition;
    document.getElementById('filter-status').value = view.status;
    document.getElementById('filter-status').disabled = !view.condition;
    document.getElementById('sort').value = view.sort;
    document.querySelectorAll('#fleet th[data-sort]').forEach(function (th) {
      var field = th.getAttribute('data-sort');
      th.setAttribute('aria-sort',
          view.sort === field ? 'ascending' : view.sort === '-' + field ? 'descending' : 'none');
    });
  }

  /**
   * Changes the view: the table, then the URL (replaced, so that Back leaves the page rather than undoing a
   * filter).
   */
  function change(what) {
    var resort = what.sort !== undefined && what.sort !== view.sort;
    Object.keys(what).forEach(function (k) { view[k] = what[k]; });
    var hash = FleetView.toHash(view);
    if (hash !== window.location.hash && !(hash === '' && window.location.hash === '#')) {
      history.replaceState(null, '', window.location.pathname + window.location.search + hash);
    }
    refilter(resort);
  }

  document.getElementById('states').addEventListener('click', function (e) {
    var button = e.target.closest('[data-state]');
    if (button) change({state: button.getAttribute('data-state')});
  });
  document.getElementById('search').addEventListener('input', function (e) { change({q: e.target.value.trim()}); });
  document.getElementById('filter-namespace').addEventListener('change', function (e) {
    change({namespace: e.target.value});
  });
  document.getElementById('filter-reason').addEventListener('change', function (e) {
    change({reason: e.target.value});
  });
  document.getElementById('filter-condition').addEventListener('change', function (e) {
    change({condition: e.target.value});
  });
  document.getElementById('filter-status').addEventListener('change', function (e) {
    change({status: e.target.value});
  });
  document.getElementById('sort').addEventListener('change', function (e) { change({sort: e.target.value}); });
  document.querySelectorAll('#fleet th[data-sort] button').forEach(function (button) {
    button.addEventListener('click', function () {
      var field = button.closest('th').getAttribute('data-sort');
      // "since" starts newest first: what changed last is what an operator looks at first.
      change({sort: view.sort === field ? '-' + field : field});
    });
  });
  document.getElementById('clear-filters').addEventListener('click', function () {
    var start = FleetView.empty();
    start.sort = view.sort;
    start.cluster = view.cluster;
    change(start);
  });
  // A shared link opened in this tab, or the hash edited by hand.
  window.addEventListener('hashchange', function () {
    var wanted = FleetView.fromHash(window.location.hash);
    var resort = wanted.sort !== view.sort;
    view = wanted;
    refilter(resort);
    if (view.cluster && view.cluster !== selected) {
      openDetail(view.cluster);
    } else if (!view.cluster && selected) {
      closeDetail();
    }
  });
  // One listener for every row, not one per row.
  tbody.addEventListener('click', function (e) {
    var tr = e.target.closest('tr[data-cluster]');
    if (tr) openDetail(tr.getAttribute('data-cluster'));
  });
  tbody.addEventListener('keydown', function (e) {
    var tr = e.target.closest('tr[data-cluster]');
    if (tr && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      openDetail(tr.getAttribute('data-cluster'));
    }
  });

  // ---- detail panel

  function isSelected(key) {
    return key === selected;
  }

  function openDetail(key) {
    if (selected && rows.get(selected)) rows.get(selected).classList.remove('selected');
    selected = key;
    if (rows.get(key)) rows.get(key).classList.add('selected');
    document.getElementById('detail').hidden = false;
    document.getElementById('detail').setAttribute('data-cluster', key);
    document.getElementById('transitions').replaceChildren();
    tree.clear();
    renderDetail();
    loadTransitions();
    tree.load(key, isSelected);
    if (view.cluster !== key) change({cluster: key});
  }

  function closeDetail() {
    if (selected && rows.get(selected)) rows.get(selected).classList.remove('selected');
    var was = selected;
    selected = null;
    document.getElementById('detail').hidden = true;
    document.getElementById('detail').removeAttribute('data-cluster');
    tree.clear();
    if (view.cluster) change({cluster: ''});
    // Back to the row it was opened from, for the keyboard.
    if (was && rows.get(was) && !rows.get(was).hidden) rows.get(was).focus();
  }

  function renderDetail() {
    if (!selected) return;
    var parts = selected.split('/');
    document.getElementById('detail-namespace').textContent = parts[0];
    document.getElementById('detail-name').textContent = parts.slice(1).join('/');
    var cluster = clusters.get(selected);
    document.getElementById('detail-deleted').hidden = !!cluster;
    var conditionList = document.getElementById('detail-conditions');
    conditionList.replaceChildren();
    var failure = document.getElementById('detail-failure');
    failure.hidden = true;
    var progress = document.getElementById('detail-progress');
    progress.replaceChildren();
    var groups = document.getElementById('detail-groups');
    groups.replaceChildren();
    var cni = document.getElementById('detail-cni');
    cni.textContent = '';
    if (!cluster) {
      document.getElementById('detail-generation').textContent = '';
      return;
    }
    var doc = cluster.document;
    var status = doc.status || {};
    document.getElementById('detail-generation').textContent = 'generation ' + doc.metadata.generation
        + ', observed ' + status.observedGeneration;
    if (status.failureReason || status.failureMessage) {
      failure.replaceChildren(
          el('strong', null, status.failureReason || 'Failure'), el('span', null, status.failureMessage || ''));
      failure.hidden = false;
    }
    CONDITIONS.forEach(function (type) {
      var c = conditionOf(doc, type);
      var li = el('li');
      li.setAttribute('data-condition', type);
      li.setAttribute('data-status', c ? c.status : 'Unknown');
      li.appendChild(el('span', 'type', type));
      var p = el('span');
      p.appendChild(pill(c ? c.status : null, c && c.severity));
      li.appendChild(p);
      if (c && (c.reason || c.message)) {
        li.appendChild(el('span', 'text', [c.reason, c.message].filter(Boolean).join(': ')
            + (c.severity ? ' (' + c.severity + ')' : '')));
      }
      conditionList.appendChild(li);
    });
    var n = counts(cluster);
    [['Control plane', n.controlPlane], ['Workers', n.workers]].forEach(function (entry) {
      progress.appendChild(el('span', null, entry[0]));
      var bar = el('div', 'bar' + (entry[1] && entry[1].ready < entry[1].desired ? ' partial' : ''));
      var fill = el('span');
      var share = entry[1] && entry[1].desired ? Math.min(100, 100 * entry[1].ready / entry[1].desired) : 0;
      fill.style.width = share + '%';
      bar.appendChild(fill);
      progress.appendChild(bar);
      progress.appendChild(el('span', 'count', entry[1] ? entry[1].ready + '/' + entry[1].desired : '–'));
    });
    var workerGroups = status.workerNodeGroups || [];
    if (workerGroups.length) {
      var head = el('tr');
      ['Group', 'Kubernetes', 'Ready', 'Up to date'].forEach(function (h) { head.appendChild(el('th', null, h)); });
      groups.appendChild(head);
      workerGroups.forEach(function (g) {
        var tr = el('tr');
        tr.appendChild(el('td', null, g.name));
        tr.appendChild(el('td', null, g.kubernetesVersion || '–'));
        tr.appendChild(el('td', null, g.readyReplicas + '/' + g.replicas));
        tr.appendChild(el('td', null, g.upToDateReplicas + '/' + g.replicas));
        groups.appendChild(tr);
      });
    }
    if (status.defaultCNI) {
      cni.textContent = 'Default CNI: ' + status.defaultCNI.name
          + (status.defaultCNI.version ? ' ' + status.defaultCNI.version : '')
          + ' (' + status.defaultCNI.status + ')';
    }
  }

  function renderTransitions(events) {
    var list = document.getElementById('transitions');
    list.replaceChildren();
    document.getElementById('transitions-empty').hidden = events.length > 0;
    events.forEach(function (event, index) {
      var li = el('li',
          'event' + (index === 0 ? ' fresh' : '') + (event.type.endsWith('.deleted') ? ' deleted-event' : ''));
      li.setAttribute('data-event', event.id);
      var time = el('div', 'event-time');
      time.appendChild(el('b', null, clock(event.time)));
      time.appendChild(document.createTextNode('  ' + relative(event.time) + ' · generation ' + event.generation));
      li.appendChild(time);
      var ul = el('ul');
      (event.transitions || []).forEach(function (t) {
        var item = el('li', 'transition');
        item.setAttribute('data-transition', '');
        item.setAttribute('data-condition', t.type);
        item.setAttribute('data-from', t.from || '');
        item.setAttribute('data-to', t.to || '');
        var line = el('div', 'line');
        line.appendChild(el('span', 'condition-name', t.type));
        var from = t.from ? pill(t.from, null) : el('span', 'pill unknown', 'none');
        from.classList.add('from');
        line.appendChild(from);
        line.appendChild(el('span', 'arrow', '→'));
        line.appendChild(t.to ? pill(t.to, t.severity) : el('span', 'pill unknown', 'none'));
        item.appendChild(line);
        if (t.reason || t.message) {
          var text = el('div', 'text');
          if (t.reason) text.appendChild(el('b', null, t.reason));
          if (t.message) text.appendChild(document.createTextNode((t.reason ? ': ' : '') + t.message));
          item.appendChild(text);
        }
        ul.appendChild(item);
      });
      li.appendChild(ul);
      list.appendChild(li);
    });
  }

  // One fetch at a time; a change while one is under way asks for another after it.
  var loading = false;
  var again = false;

  function loadTransitions() {
    if (!selected) return;
    if (loading) { again = true; return; }
    loading = true;
    var key = selected;
    var parts = key.split('/');
    var transitions = '/fleet/clusters/' + encodeURIComponent(parts[0]) + '/'
        + encodeURIComponent(parts.slice(1).join('/')) + '/transitions';
    fetch(transitions, {cache: 'no-store'})
      .then(function (r) { return r.ok ? r.json() : {events: []}; })
      .then(function (body) { if (key === selected) renderTransitions(body.events || []); })
      .catch(function () { /* the next change tries again */ })
      .finally(function () {
        loading = false;
        if (again) { again = false; loadTransitions(); }
      });
  }

  // ---- the live stream

  function setConnection(state, label) {
    var c = document.getElementById('connection');
    c.setAttribute('data-state', state);
    c.querySelector('.label').textContent = label;
  }

  function onSnapshot(list) {
    // Changes queued before the snapshot are older than it.
    pending.clear();
    clusters.clear();
    list.forEach(function (c) { clusters.set(c.key, c); });
    rebuild();
    renderSummary();
    if (selected) { renderDetail(); loadTransitions(); tree.load(selected, isSelected); }
    performance.clearMarks('fleet:snapshot-shown');
    performance.mark('fleet:snapshot-shown', {detail: {clusters: list.length}});
  }

  function onStatus(c) {
    schedule(c.key, c);
  }

  function onDeleted(body) {
    schedule(body.key, null);
  }

  function onTransition(event) {
    // The progress of a change event: the cluster's row again, in the same frame as its status when both came.
    var c = pending.get(event.key) || clusters.get(event.key);
    if (c && event.progress) {
      c.progress = event.progress;
      schedule(event.key, c);
    } else if (event.key === selected) {
      loadTransitions();
    }
  }

  function connect() {
    setConnection('connecting', 'Connecting…');
    source = new EventSource('/fleet/events');
    source.onopen = function () { setConnection('live', 'Live'); };
    source.onerror = function () {
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (the server answered with an error): start again a little later.
        setConnection('reconnecting', 'Disconnected, retrying…');
        // Where requests are reviewed, a token that has expired or been revoked is refused: sign in again.
        fetch('/fleet/clusters', { credentials: 'same-origin' }).then(function (answer) {
          if (answer.status === 401) { window.location.href = '/sign-in'; }
        }, function () {});
        setTimeout(connect, 3000);
      } else {
        setConnection('reconnecting', 'Reconnecting…');
      }
    };
    function on(type, handler) {
      source.addEventListener(type, function (e) {
        var body;
        try { body = JSON.parse(e.data); } catch (err) { return; }
        setConnection('live', 'Live');
        handler(body);
      });
    }
    on('snapshot', onSnapshot);
    on('status', onStatus);
    on('deleted', onDeleted);
    on('transition', onTransition);
  }

  // A page left for another keeps no stream open: over HTTP/1.1 a browser has six connections to a server, and
  // streams of pages in its back-forward cache would hold them. A page brought back from that cache connects again.
  window.addEventListener('pagehide', function () { if (source) source.close(); });
  window.addEventListener('pageshow', function (e) { if (e.persisted) connect(); });
  document.getElementById('detail-close').addEventListener('click', closeDetail);
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') closeDetail(); });
  // "since 12s ago" stays true without a change.
  setInterval(function () {
    document.querySelectorAll('[data-since]').forEach(function (node) {
      var text = 'since ' + relative(node.getAttribute('data-since'));
      if (node.textContent !== text) node.textContent = text;
    });
  }, 5000);

  showView();
  renderSummary();
  if (view.cluster) openDetail(view.cluster);
  connect();
})();
