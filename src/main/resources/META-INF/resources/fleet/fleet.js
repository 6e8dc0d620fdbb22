// The fleet page: every cluster's conditions, live from the server's event stream (/fleet/events), with a detail
// panel of one cluster's recent transitions (/fleet/clusters/NS/NAME/transitions). No framework: the DOM is built
// with textContent only, so nothing from the feed is ever parsed as HTML.
(function () {
  'use strict';

  var CONDITIONS = ['ControlPlaneInitialized', 'ControlPlaneReady', 'WorkersReady', 'DefaultCNIConfigured', 'Ready'];

  /** key ("namespace/name") -> {key, document, progress} */
  var clusters = new Map();
  /** key -> <tr> */
  var rows = new Map();
  var selected = null;
  var source = null;

  var tbody = document.getElementById('clusters');

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  /** The colour of a condition: green True, red False with severity Error, amber other False, grey otherwise. */
  function tone(status, severity) {
    if (status === 'True') return 'ok';
    if (status === 'False') return severity === 'Error' ? 'error' : 'warn';
    return 'unknown';
  }

  function conditionOf(document, type) {
    var list = (document && document.status && document.status.conditions) || [];
    for (var i = 0; i < list.length; i++) {
      if (list[i].type === type) return list[i];
    }
    return null;
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
    tr.tabIndex = 0;

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
      td.title = type + ': ' + (c ? c.status + (c.reason ? ' (' + c.reason + ')' : '') + (c.message ? ' — ' + c.message : '')
          + (c.lastTransitionTime ? '\nsince ' + c.lastTransitionTime : '') : 'not reported');
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
      var failure = el('div', 'failure-line', (status.failureReason || 'Failure') + (status.failureMessage ? ': ' + status.failureMessage : ''));
      failure.setAttribute('data-failure-reason', status.failureReason || '');
      why.appendChild(failure);
    }
    if (ready && ready.lastTransitionTime) {
      var since = el('div', 'since', 'since ' + relative(ready.lastTransitionTime));
      since.setAttribute('data-since', ready.lastTransitionTime);
      why.appendChild(since);
    }
    tr.appendChild(why);

    tr.addEventListener('click', function () { openDetail(cluster.key); });
    tr.addEventListener('keydown', function (e) { if (e.key === 'Enter') openDetail(cluster.key); });
    if (cluster.key === selected) tr.classList.add('selected');
    return tr;
  }

  /** Puts the cluster's row in place, in key order; flashes it when it changed live. */
  function upsertRow(cluster, flash) {
    var tr = renderRow(cluster);
    var old = rows.get(cluster.key);
    if (old) {
      tbody.replaceChild(tr, old);
    } else {
      var before = null;
      rows.forEach(function (row, key) {
        if (key > cluster.key && (before === null || key < before.getAttribute('data-cluster'))) before = row;
      });
      tbody.insertBefore(tr, before);
    }
    rows.set(cluster.key, tr);
    if (flash) tr.classList.add('changed');
  }

  function removeRow(key) {
    var tr = rows.get(key);
    if (tr) tr.remove();
    rows.delete(key);
  }

  function renderSummary() {
    var total = clusters.size;
    var ready = 0;
    var failing = 0;
    clusters.forEach(function (c) {
      var r = conditionOf(c.document, 'Ready');
      if (r && r.status === 'True') ready++;
      if (r && r.status === 'False' && r.severity === 'Error') failing++;
    });
    var counts = document.getElementById('counts');
    counts.textContent = total + (total === 1 ? ' cluster, ' : ' clusters, ') + ready + ' Ready';
    counts.setAttribute('data-clusters', total);
    counts.setAttribute('data-ready', ready);
    var attention = document.getElementById('attention');
    attention.hidden = failing === 0;
    attention.textContent = failing + ' failing';
    document.getElementById('empty').hidden = total > 0;
    document.title = ready + '/' + total + ' Ready · Fleet status';
  }

  // ---- detail panel

  function openDetail(key) {
    selected = key;
    rows.forEach(function (tr, k) { tr.classList.toggle('selected', k === key); });
    document.getElementById('detail').hidden = false;
    document.getElementById('detail').setAttribute('data-cluster', key);
    document.getElementById('transitions').replaceChildren();
    renderDetail();
    loadTransitions();
  }

  function closeDetail() {
    selected = null;
    rows.forEach(function (tr) { tr.classList.remove('selected'); });
    document.getElementById('detail').hidden = true;
    document.getElementById('detail').removeAttribute('data-cluster');
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
      failure.replaceChildren(el('strong', null, status.failureReason || 'Failure'), el('span', null, status.failureMessage || ''));
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
      fill.style.width = (entry[1] && entry[1].desired ? Math.min(100, 100 * entry[1].ready / entry[1].desired) : 0) + '%';
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
      cni.textContent = 'Default CNI: ' + status.defaultCNI.name + (status.defaultCNI.version ? ' ' + status.defaultCNI.version : '')
          + ' (' + status.defaultCNI.status + ')';
    }
  }

  function renderTransitions(events) {
    var list = document.getElementById('transitions');
    list.replaceChildren();
    document.getElementById('transitions-empty').hidden = events.length > 0;
    events.forEach(function (event, index) {
      var li = el('li', 'event' + (index === 0 ? ' fresh' : '') + (event.type.endsWith('.deleted') ? ' deleted-event' : ''));
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
    fetch('/fleet/clusters/' + encodeURIComponent(parts[0]) + '/' + encodeURIComponent(parts.slice(1).join('/')) + '/transitions',
        {cache: 'no-store'})
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
    clusters.clear();
    rows.forEach(function (tr) { tr.remove(); });
    rows.clear();
    list.forEach(function (c) {
      clusters.set(c.key, c);
      upsertRow(c, false);
    });
    renderSummary();
    if (selected) { renderDetail(); loadTransitions(); }
  }

  function onStatus(c) {
    var known = clusters.get(c.key);
    // The progress comes with change events; a status keeps the last one seen.
    if (!c.progress && known) c.progress = known.progress;
    clusters.set(c.key, c);
    upsertRow(c, true);
    renderSummary();
    if (c.key === selected) { renderDetail(); loadTransitions(); }
  }

  function onDeleted(body) {
    clusters.delete(body.key);
    removeRow(body.key);
    renderSummary();
    if (body.key === selected) renderDetail();
  }

  function onTransition(event) {
    var c = clusters.get(event.key);
    if (c && event.progress) {
      c.progress = event.progress;
      upsertRow(c, false);
    }
    if (event.key === selected) { renderDetail(); loadTransitions(); }
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

  document.getElementById('detail-close').addEventListener('click', closeDetail);
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') closeDetail(); });
  // "since 12s ago" stays true without a change.
  setInterval(function () {
    document.querySelectorAll('[data-since]').forEach(function (node) {
      node.textContent = 'since ' + relative(node.getAttribute('data-since'));
    });
  }, 5000);

  renderSummary();
  connect();
})();
