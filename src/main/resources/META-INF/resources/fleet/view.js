// What the fleet page shows of the fleet: the state each cluster counts under, which clusters the filters let
// through, their order, and all of it as the URL's hash (so a filtered view can be shared and survives a reload).
// Pure functions of the clusters ({key, document, progress}) and the view; fleet.js does the DOM.
var FleetView = (function () {
  'use strict';

  var CONDITIONS = ['ControlPlaneInitialized', 'ControlPlaneReady', 'WorkersReady', 'DefaultCNIConfigured', 'Ready'];
  var SORTS = ['name', '-name', 'since', '-since'];
  var STATES = ['all', 'ready', 'not-ready', 'error', 'unknown'];

  function conditionOf(document, type) {
    var list = (document && document.status && document.status.conditions) || [];
    for (var i = 0; i < list.length; i++) {
      if (list[i].type === type) return list[i];
    }
    return null;
  }

  /**
   * Where a cluster counts: ready (Ready True), error (Ready False with severity Error), unknown (Ready Unknown or not
   * reported yet), or warning (Ready False otherwise: progressing, or stuck without an error). "Not Ready" is all
   * but ready.
   */
  function stateOf(cluster) {
    var ready = conditionOf(cluster.document, 'Ready');
    if (!ready || ready.status === 'Unknown' || !ready.status) return 'unknown';
    if (ready.status === 'True') return 'ready';
    return ready.severity === 'Error' ? 'error' : 'warning';
  }

  function inState(state, wanted) {
    if (wanted === 'all') return true;
    if (wanted === 'not-ready') return state !== 'ready';
    return state === wanted;
  }

  /** The count per state of the header: all, ready, not-ready, error, unknown. */
  function tally(clusters) {
    var counts = {all: 0, ready: 0, 'not-ready': 0, error: 0, unknown: 0};
    clusters.forEach(function (c) {
      var state = stateOf(c);
      STATES.forEach(function (s) { if (inState(state, s)) counts[s]++; });
    });
    return counts;
  }

  /** Every reason a cluster shows: its conditions' and its failure's. */
  function reasonsOf(cluster) {
    var status = cluster.document.status || {};
    var reasons = (status.conditions || []).map(function (c) { return c.reason; });
    reasons.push(status.failureReason);
    return reasons.filter(Boolean);
  }

  function namespaceOf(cluster) {
    return cluster.key.split('/')[0];
  }

  function nameOf(cluster) {
    return cluster.key.split('/').slice(1).join('/');
  }

  /** When Ready last changed, in ms; NaN when it has no time. */
  function since(cluster) {
    var ready = conditionOf(cluster.document, 'Ready');
    return ready ? Date.parse(ready.lastTransitionTime) : NaN;
  }

  /** The view as the page starts it: everything, by name. */
  function empty() {
    return {state: 'all', namespace: '', condition: '', status: 'False', reason: '', q: '', sort: 'name', cluster: ''};
  }

  function matches(cluster, view) {
    if (!inState(stateOf(cluster), view.state)) return false;
    if (view.namespace && namespaceOf(cluster) !== view.namespace) return false;
    if (view.q && nameOf(cluster).toLowerCase().indexOf(view.q.toLowerCase()) < 0) return false;
    if (view.condition) {
      var c = conditionOf(cluster.document, view.condition);
      if ((c && c.status ? c.status : 'Unknown') !== view.status) return false;
    }
    return !view.reason || reasonsOf(cluster).indexOf(view.reason) >= 0;
  }

  /** The order of rows: by namespace/name, or by when Ready last changed (newest first for "since"); ties by name. */
  function comparator(sort) {
    var descending = sort.charAt(0) === '-';
    var field = descending ? sort.slice(1) : sort;
    return function (a, b) {
      var byName = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
      if (field === 'name') return descending ? -byName : byName;
      var ta = since(a);
      var tb = since(b);
      // Clusters without a time last, whichever the direction.
      if (isNaN(ta) || isNaN(tb)) return isNaN(ta) && isNaN(tb) ? byName : isNaN(ta) ? 1 : -1;
      var bySince = descending ? ta - tb : tb - ta;
      return bySince !== 0 ? bySince : byName;
    };
  }

  function fromHash(hash) {
    var params = new URLSearchParams((hash || '').replace(/^#/, ''));
    var view = empty();
    Object.keys(view).forEach(function (k) { if (params.has(k)) view[k] = params.get(k); });
    if (STATES.indexOf(view.state) < 0) view.state = 'all';
    if (SORTS.indexOf(view.sort) < 0) view.sort = 'name';
    if (CONDITIONS.indexOf(view.condition) < 0) view.condition = '';
    if (['True', 'False', 'Unknown'].indexOf(view.status) < 0) view.status = 'False';
    return view;
  }

  /** Only what differs from the page's start, so that the plain page has a plain URL. */
  function toHash(view) {
    var params = new URLSearchParams();
    var start = empty();
    Object.keys(start).forEach(function (k) {
      if (k === 'status' && !view.condition) return;
      if (view[k] !== start[k] || (k === 'status' && view.condition)) params.set(k, view[k]);
    });
    var text = params.toString();
    return text ? '#' + text : '';
  }

  return {
    CONDITIONS: CONDITIONS, conditionOf: conditionOf, stateOf: stateOf, tally: tally, reasonsOf: reasonsOf,
    namespaceOf: namespaceOf, matches: matches, comparator: comparator, empty: empty, fromHash: fromHash, toHash: toHash
  };
})();
