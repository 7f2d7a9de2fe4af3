(function () {
  'use strict';
  var body = document.body;
  try {
    main();
  } catch (e) {
    body.dataset.error = String(e && e.stack || e);
    var box = document.createElement('div');
    box.id = 'error';
    box.textContent = 'The preview failed: ' + body.dataset.error;
    document.getElementById('panel').prepend(box);
    throw e;
  }

  function main() {
    var DATA = JSON.parse(document.getElementById('preview-data').textContent);
    var PIN_CHOICES = DATA.pinChoices, ASPECT = DATA.aspect;
    var HIGHLIGHT = '#e0148c', CONTESTED = '#d00000';
    var identities = DATA.identity || [];
    // Fill colour and radius (px) by weight: hand weights 1..10 from purple
    // through red and orange to brown, neighbours in clearly different hues
    // (a real master's hand weights crowd into two or three adjacent values);
    // the machine weights 11, 12 and 13 green, blue and grey, smaller.
    var PIN = {
      1: ['#2e0854', 6.5], 2: ['#5b1a8e', 6.5], 3: ['#9c27b0', 6.5], 4: ['#d81b7a', 6.5], 5: ['#e8381c', 6.5],
      6: ['#f28e00', 6.5], 7: ['#e6c000', 6.5], 8: ['#9a9a00', 6.5], 9: ['#8d6e3f', 6.5], 10: ['#5a4030', 6.5],
      11: ['#14967a', 5.5], 12: ['#3a78c9', 4.5], 13: ['#8d959d', 4]
    };
    function pinStyle(w) { return PIN[w] || ['#000000', 4]; }

    function Side(raw, name) {
      var s = raw.stations, n = s.id.length, i;
      this.name = name; this.label = raw.label; this.version = raw.version; this.n = n;
      // Float64 holds every value a bundle's INTEGER columns hold here exactly
      // (s_id below 2^53; micro-degrees; weights).
      this.id = Float64Array.from(s.id); this.lat = Float64Array.from(s.lat); this.lng = Float64Array.from(s.lng);
      this.weight = Float64Array.from(s.weight); this.enabled = Uint8Array.from(s.enabled, function (v) { return v === 1 ? 1 : 0; });
      this.names = s.name; this.yomi = s.yomi; this.operatorOf = s.operator;
      this.dist = new Float64Array(n);
      this.index = new Map();
      for (i = 0; i < n; i++) this.index.set(this.id[i], i);
      this.operators = new Map();
      for (i = 0; i < raw.operators.id.length; i++) this.operators.set(raw.operators.id[i], raw.operators.name[i]);
      this.lines = raw.lines;
      this.linesOf = [];
      for (i = 0; i < n; i++) this.linesOf.push([]);
      var L_ = raw.lines;
      for (var l = 0; l < L_.id.length; l++) {
        var st = L_.stations[l];
        for (var k = 0; k < st.length; k++) {
          var list = this.linesOf[st[k]];
          if (list[list.length - 1] !== l) list.push(l);
        }
      }
      // Readings with katakana folded to hiragana, so either finds a station.
      this.search = s.yomi.map(hiragana);
      this.changed = new Map();   // s_id -> change entries
    }

    function hiragana(text) {
      return text.replace(/[\u30a1-\u30f6]/g, function (c) { return String.fromCharCode(c.charCodeAt(0) - 0x60); });
    }

    var sides = { candidate: new Side(DATA.candidate, 'candidate') };
    if (DATA.baseline) sides.baseline = new Side(DATA.baseline, 'baseline');
    // The stations' changes, drawn on the map; the other tables' are listed by name.
    var changes = DATA.changes ? DATA.changes.entries : [];
    var otherChanges = DATA.changes ? DATA.changes.others || [] : [];
    changes.forEach(function (c) {
      ['candidate', 'baseline'].forEach(function (n) {
        var side = sides[n];
        if (!side) return;
        if (!side.changed.has(c.id)) side.changed.set(c.id, []);
        side.changed.get(c.id).push(c);
      });
    });

    // ---------------------------------------------------------------
    // The apps' query (bundle.md, "How the clients read it"):
    //   SELECT stations.*, (lat - clat)^2 + (lng - clng)^2 AS distance FROM stations
    //   WHERE lat >= south AND lat < north AND lng >= west AND lng < east AND enabled = 1
    //   ORDER BY stations.weight, distance LIMIT pins
    // on integer micro-degrees, for the view (lat, lng, span) enlarged 1.1x.
    // span is the view's height in degrees of latitude; its width is
    // span * 0.6 / cos(lat). Every number below is computed in this order in
    // double precision, as the tests compute it for their SQL.
    function roundHalfAway(x) { return x < 0 ? -Math.round(-x) : Math.round(x); }

    function queryBox(view) {
      var clat = roundHalfAway(view.lat * 1e6), clng = roundHalfAway(view.lng * 1e6);
      var h = Math.floor(view.span * 1.1 * 1e6);
      var w = Math.floor(view.span * ASPECT / Math.cos(view.lat * Math.PI / 180) * 1.1 * 1e6);
      var south = clat - Math.floor(h / 2), west = clng - Math.floor(w / 2);
      return { clat: clat, clng: clng, south: south, north: south + h, west: west, east: west + w };
    }

    var W, D, ID;   // the columns appOrder compares; set by appQuery before it sorts
    // APP-ORDER: ORDER BY stations.weight, distance. SQLite returns rows equal
    // in both in no defined order; the page breaks such ties by s_id so a view
    // always shows the same pins (the tests' SQL adds ", s_id" to match).
    function appOrder(a, b) { return W[a] - W[b] || D[a] - D[b] || ID[a] - ID[b]; }

    // The indexes of the stations the apps show for the view, first row first.
    // Distances stay below 2^53, exact in doubles, for any view up to 60 degrees.
    function appQuery(side, box, limit) {
      var lat = side.lat, lng = side.lng, en = side.enabled, dist = side.dist, hits = [];
      for (var i = 0; i < side.n; i++) {
        var y = lat[i], x = lng[i];
        if (en[i] === 1 && y >= box.south && y < box.north && x >= box.west && x < box.east) {
          var dy = y - box.clat, dx = x - box.clng;
          dist[i] = dy * dy + dx * dx;
          hits.push(i);
        }
      }
      W = side.weight; D = dist; ID = side.id;
      hits.sort(appOrder);
      return { pins: hits.slice(0, limit), inBox: hits };
    }

    // ---------------------------------------------------------------
    // State: which bundle, how many pins, and the view the query runs on. The
    // view is the hash's numbers while the map stays where the hash put it, so
    // the query uses them exactly rather than what Leaflet fitted.
    var hash = parseHash();
    var state = {
      side: hash.side,
      pins: hash.pins || DATA.defaultPins,
      view: hash.view || { lat: 36.2, lng: 137.6, span: 21 },
      viewAt: null, applying: false,
      shown: [], hidden: [], inBox: 0, box: null,
      highlight: true
    };

    function parseHash() {
      var q = {};
      location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
        var i = kv.indexOf('=');
        if (i > 0) q[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1));
      });
      function number(v) { return v !== undefined && v.trim() !== '' && isFinite(Number(v)) ? Number(v) : null; }
      var lat = number(q.lat), lng = number(q.lng), span = number(q.span), pins = number(q.pins), bench = number(q.bench);
      return {
        view: lat !== null && lng !== null && span !== null && span > 0 ? { lat: lat, lng: lng, span: span } : null,
        pins: PIN_CHOICES.indexOf(pins) >= 0 ? pins : null,
        side: q.side === 'baseline' && DATA.baseline ? 'baseline' : 'candidate',
        bench: bench !== null && bench >= 1 ? Math.floor(bench) : 0
      };
    }

    function hashText() {
      var v = state.view;
      return '#lat=' + v.lat + '&lng=' + v.lng + '&span=' + v.span + '&pins=' + state.pins + (state.side === 'baseline' ? '&side=baseline' : '');
    }

    function writeHash() {
      // replaceState: a pan is not a page to go back to, and it fires no hashchange.
      if (location.hash !== hashText()) history.replaceState(null, '', hashText());
    }

    // Hash numbers are rounded (lat, lng to about a metre, span to 4 digits)
    // and the query runs on the rounded ones, so a reload repeats it exactly.
    function roundView(v) { return { lat: +v.lat.toFixed(5), lng: +v.lng.toFixed(5), span: +v.span.toPrecision(4) }; }

    // ---------------------------------------------------------------
    // The map. No tile layer by default: the lines are the base map.
    var map = L.map('map', {
      zoomSnap: 0, zoomDelta: 0.5, wheelPxPerZoomLevel: 90, preferCanvas: true,
      minZoom: 3, maxZoom: 19, worldCopyJump: false, attributionControl: true
    });
    map.attributionControl.setPrefix('Leaflet');
    map.attributionControl.addAttribution('stations: the bundle');
    map.createPane('pins').style.zIndex = 450;

    function mapKey() {
      var c = map.getCenter(), s = map.getSize();
      return c.lat + ',' + c.lng + ',' + map.getZoom() + ',' + s.x + ',' + s.y;
    }

    // The zoom at which the map, centred on the view, spans `span` degrees of
    // latitude top to bottom. Mercator stretches the northern half more, so it
    // is solved for rather than read off.
    function zoomFor(view) {
      var H = map.getSize().y, c = map.project([view.lat, view.lng], 0);
      function extent(z) {
        var half = H / 2 / Math.pow(2, z);
        return map.unproject([c.x, c.y - half], 0).lat - map.unproject([c.x, c.y + half], 0).lat;
      }
      var lo = -2, hi = 30;
      for (var k = 0; k < 60; k++) {
        var mid = (lo + hi) / 2;
        if (extent(mid) > view.span) lo = mid; else hi = mid;
      }
      return (lo + hi) / 2;
    }

    function viewFromMap() {
      var c = map.getCenter(), b = map.getBounds();
      return roundView({ lat: c.lat, lng: c.lng, span: b.getNorth() - b.getSouth() });
    }

    // The view the query runs on: the one last applied while the map has not
    // moved since, else where the user took the map (and the hash follows).
    function currentView() {
      if (!state.applying && mapKey() !== state.viewAt) {
        state.view = viewFromMap();
        state.viewAt = mapKey();
        writeHash();
      }
      return state.view;
    }

    function applyView(view, rewriteHash) {
      state.view = view;
      state.applying = true;
      try {
        map.setView([view.lat, view.lng], zoomFor(view), { animate: false });
      } finally {
        state.applying = false;
      }
      state.viewAt = mapKey();
      if (rewriteHash) writeHash();
      if (pinLayer._map) redraw();
    }

    // ---------------------------------------------------------------
    // The rail network, every line through its stations in s_sort order.
    var lineRenderer = L.canvas({ padding: 0.3 });
    var lineLayer = null, lineSide = null;
    function drawLines() {
      var side = sides[state.side];
      if (lineSide === side) return;
      if (lineLayer) map.removeLayer(lineLayer);
      var group = [], lines = side.lines, order = [];
      for (var l = 0; l < lines.id.length; l++) order.push(l);
      // Disabled lines underneath, Shinkansen on top.
      function rank(l) { return lines.enabled[l] !== 1 ? 0 : lines.type[l] === 1 ? 2 : 1; }
      order.sort(function (a, b) { return rank(a) - rank(b) || a - b; });
      order.forEach(function (l) {
        var st = lines.stations[l];
        if (st.length < 2) return;
        var points = st.map(function (i) { return [side.lat[i] / 1e6, side.lng[i] / 1e6]; });
        var r = rank(l);
        group.push(L.polyline(points, {
          renderer: lineRenderer, interactive: false, smoothFactor: 1,
          color: r === 0 ? '#d3d8dc' : r === 2 ? '#5b6773' : '#9aa4ae', weight: r === 2 ? 2.6 : r === 1 ? 1.5 : 1, opacity: 0.9
        }));
      });
      lineLayer = L.layerGroup(group).addTo(map);
      lineSide = side;
    }

    // ---------------------------------------------------------------
    // The pins, on a canvas of their own that redraws (query included) at the
    // end of every pan and zoom, in step with Leaflet's own renderers.
    var PinLayer = L.Renderer.extend({
      options: { padding: 0.05, pane: 'pins' },
      onAdd: function () {
        L.Renderer.prototype.onAdd.call(this);
        redraw();
      },
      _initContainer: function () {
        this._container = document.createElement('canvas');
        this._ctx = this._container.getContext('2d');
      },
      _destroyContainer: function () {
        L.DomUtil.remove(this._container);
        delete this._ctx;
        delete this._container;
      },
      _update: function () {
        if (this._map._animatingZoom && this._bounds) return;
        L.Renderer.prototype._update.call(this);
        var b = this._bounds, size = b.getSize(), c = this._container, m = L.Browser.retina ? 2 : 1;
        L.DomUtil.setPosition(c, b.min);
        c.width = m * size.x; c.height = m * size.y;
        c.style.width = size.x + 'px'; c.style.height = size.y + 'px';
        this._ctx.setTransform(m, 0, 0, m, -m * b.min.x, -m * b.min.y);
        this.fire('update');
      },
      _updatePaths: function () { redraw(); }
    });
    var pinLayer = new PinLayer();

    // Stations' Mercator points at zoom 0, once per bundle: a redraw then
    // scales and shifts numbers (what latLngToLayerPoint does, without its
    // objects), which is most of a country view's time with 9,000 dots.
    function projected(side) {
      if (!side.x0) {
        side.x0 = new Float64Array(side.n); side.y0 = new Float64Array(side.n);
        for (var i = 0; i < side.n; i++) {
          var p = map.project([side.lat[i] / 1e6, side.lng[i] / 1e6], 0);
          side.x0[i] = p.x; side.y0[i] = p.y;
        }
      }
      var scale = Math.pow(2, map.getZoom()), origin = map.getPixelOrigin();
      return { side: side, scale: scale, ox: origin.x, oy: origin.y };
    }
    function pointOf(frame, i) {
      return L.point(Math.round(frame.side.x0[i] * frame.scale) - frame.ox, Math.round(frame.side.y0[i] * frame.scale) - frame.oy);
    }
    function point(side, i) { return pointOf(projected(side), i); }
    function pointAt(latlng) { return map.latLngToLayerPoint([latlng[0] / 1e6, latlng[1] / 1e6]); }

    function redraw() {
      var side = sides[state.side], view = currentView();
      var box = queryBox(view), result = appQuery(side, box, state.pins);
      state.shown = result.pins; state.inBox = result.inBox.length; state.box = box;
      state.hidden = result.inBox.slice(result.pins.length);
      drawPins(side);
      var ids = new Array(result.pins.length);
      for (var k = 0; k < result.pins.length; k++) ids[k] = side.id[result.pins[k]];
      body.dataset.pins = ids.join(',');
      body.dataset.side = state.side;
      body.dataset.view = view.lat + ',' + view.lng + ',' + view.span;
      body.dataset.hash = location.hash;
      updateLegend(side);
      updateStatus(side, view);
    }

    function drawPins(side) {
      var ctx = pinLayer._ctx, c = pinLayer._container;
      if (!ctx) return;
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, c.width, c.height);
      ctx.restore();
      var shown = state.shown, onTop = new Set();
      for (var k = 0; k < shown.length; k++) onTop.add(shown[k]);
      // The stations the query leaves out, as dots: what the weights hide here.
      var f = projected(side), x0 = side.x0, y0 = side.y0, hidden = state.hidden;
      // Darker than the lines they sit on, smaller than any pin; finer and
      // fainter zoomed out, where thousands would bury the lines.
      var span = state.view.span, d = span > 4 ? 1.5 : span > 1 ? 2 : 3;
      ctx.fillStyle = span > 4 ? 'rgba(54,65,76,0.45)' : '#36414c';
      for (k = 0; k < hidden.length; k++) {
        var h = hidden[k];
        ctx.fillRect(Math.round(x0[h] * f.scale) - f.ox - d / 2, Math.round(y0[h] * f.scale) - f.oy - d / 2, d, d);
      }
      if (state.highlight && changes.length) drawChangeMarks(side, ctx, onTop);
      drawIdentityMarks(side, ctx);
      // Last row first, so the first row of the query is drawn on top.
      for (k = shown.length - 1; k >= 0; k--) {
        var i = shown[k], p = pointOf(f, i), st = pinStyle(side.weight[i]);
        if (state.highlight && side.changed.has(side.id[i])) {
          ctx.beginPath(); ctx.arc(p.x, p.y, st[1] + 3, 0, 2 * Math.PI);
          ctx.lineWidth = 2.5; ctx.strokeStyle = HIGHLIGHT; ctx.stroke();
        }
        // A white edge parts overlapping pins; a faint dark one keeps light colours visible on the pale map.
        ctx.beginPath(); ctx.arc(p.x, p.y, st[1], 0, 2 * Math.PI);
        ctx.fillStyle = st[0]; ctx.fill();
        ctx.lineWidth = 1.2; ctx.strokeStyle = '#ffffff'; ctx.stroke();
        ctx.beginPath(); ctx.arc(p.x, p.y, st[1] + 1.1, 0, 2 * Math.PI);
        ctx.lineWidth = 0.8; ctx.strokeStyle = 'rgba(0,0,0,0.35)'; ctx.stroke();
      }
    }

    // An s_id that waits for the maintainer's decision: a wide double ring, shown or not,
    // enabled or not, whatever the highlight says: it is what a plan cannot pass.
    function drawIdentityMarks(side, ctx) {
      var b = pinLayer._bounds;
      for (var k = 0; k < identities.length; k++) {
        var i = side.index.get(identities[k].id);
        if (i === undefined) continue;
        var p = point(side, i);
        if (!b.contains(p)) continue;
        ctx.strokeStyle = CONTESTED;
        ctx.lineWidth = 2.5;
        ctx.beginPath(); ctx.arc(p.x, p.y, 11, 0, 2 * Math.PI); ctx.stroke();
        ctx.lineWidth = 1.2;
        ctx.beginPath(); ctx.arc(p.x, p.y, 15, 0, 2 * Math.PI); ctx.stroke();
      }
    }

    // Moves as a dashed line from the other bundle's place to this one's; a
    // changed station the query does not show as a small hollow ring.
    function drawChangeMarks(side, ctx, onTop) {
      var b = pinLayer._bounds, other = sides[side.name === 'candidate' ? 'baseline' : 'candidate'];
      ctx.lineWidth = 1.5; ctx.strokeStyle = HIGHLIGHT;
      for (var k = 0; k < changes.length; k++) {
        var c = changes[k];
        if (c.kind === 'moved') {
          var here = pointAt(side.name === 'candidate' ? c['new'] : c.old), there = pointAt(side.name === 'candidate' ? c.old : c['new']);
          if (!b.intersects(L.bounds(here, there))) continue;
          ctx.setLineDash([4, 3]);
          ctx.beginPath(); ctx.moveTo(there.x, there.y); ctx.lineTo(here.x, here.y); ctx.stroke();
          ctx.setLineDash([]);
          ctx.beginPath(); ctx.arc(there.x, there.y, 4, 0, 2 * Math.PI); ctx.stroke();
        }
        var i = side.index.get(c.id);
        if (i === undefined || onTop.has(i)) continue;
        var p = point(side, i);
        if (!b.contains(p)) continue;
        ctx.beginPath(); ctx.arc(p.x, p.y, 3, 0, 2 * Math.PI); ctx.stroke();
      }
    }

    // ---------------------------------------------------------------
    // Panel: legend, status, pins setting, sides, changes, search.
    var legend = document.getElementById('legend'), legendCounts = {};
    (function () {
      var rows = [];
      for (var w = 1; w <= 13; w++) rows.push(w);
      rows.forEach(function (w) {
        var tr = legend.insertRow(), st = pinStyle(w), sw = document.createElement('span');
        sw.className = 'swatch';
        sw.style.background = st[0]; sw.style.width = sw.style.height = (2 * st[1]) + 'px';
        tr.insertCell().appendChild(sw);
        tr.insertCell().textContent = 'weight ' + w + (w === 1 ? ' (hand, shown first)' : w === 10 ? ' (hand)' : w === 11 ? ' (machine)' : w === 13 ? ' (machine, shown last)' : '');
        var n = tr.insertCell(); n.className = 'n'; legendCounts[w] = n;
      });
      var tr = legend.insertRow(), dot = document.createElement('span');
      dot.className = 'dot';
      tr.insertCell().appendChild(dot);
      tr.insertCell().textContent = 'a station in view that the query leaves out';
      legendCounts.hidden = tr.insertCell(); legendCounts.hidden.className = 'n';
      tr = legend.insertRow();
      var ring = document.createElement('span');
      ring.className = 'ring';
      tr.insertCell().appendChild(ring);
      tr.insertCell().textContent = 'changed (small ring: changed, not shown)';
      tr.insertCell();
      tr.hidden = !changes.length;
      tr = legend.insertRow();
      var contested = document.createElement('span');
      contested.className = 'ring contested';
      tr.insertCell().appendChild(contested);
      tr.insertCell().textContent = 's_id to decide (raw/identity.csv)';
      tr.insertCell().textContent = identities.length ? String(identities.length) : '';
      tr.hidden = !identities.length;
    })();

    function updateLegend(side) {
      var counts = {};
      for (var k = 0; k < state.shown.length; k++) { var w = side.weight[state.shown[k]]; counts[w] = (counts[w] || 0) + 1; }
      for (var w = 1; w <= 13; w++) legendCounts[w].textContent = counts[w] ? counts[w] + ' shown' : '';
      legendCounts.hidden.textContent = state.hidden.length ? state.hidden.length + ' left out' : '';
    }

    var status = document.getElementById('status');
    function updateStatus(side, view) {
      status.textContent = side.name + ' (version ' + side.version + '): ' + state.shown.length + ' pins of ' + state.inBox +
        ' stations in the query box; view ' + view.lat + ', ' + view.lng + ', span ' + view.span + '\u00b0';
    }

    var bundles = document.getElementById('bundles');
    bundles.textContent = 'candidate: ' + sides.candidate.label + ' (version ' + sides.candidate.version + ')' +
      (sides.baseline ? ' \u2014 baseline: ' + sides.baseline.label + ' (version ' + sides.baseline.version + ')' : '');

    var pinsSelect = document.getElementById('pins');
    PIN_CHOICES.forEach(function (n) {
      var o = document.createElement('option');
      o.value = n; o.textContent = n + (n === DATA.defaultPins ? ' (default)' : '');
      pinsSelect.appendChild(o);
    });
    pinsSelect.value = state.pins;
    pinsSelect.addEventListener('change', function () { state.pins = Number(pinsSelect.value); writeHash(); redraw(); });

    var radios = document.querySelectorAll('input[name=side]');
    if (sides.baseline) {
      document.getElementById('side-choice').hidden = false;
      document.getElementById('highlight-choice').hidden = false;
      document.getElementById('candidate-name').textContent = 'candidate (v' + sides.candidate.version + ')';
      document.getElementById('baseline-name').textContent = 'baseline (v' + sides.baseline.version + ')';
    }
    function setSide(name) {
      state.side = name;
      radios.forEach(function (r) { r.checked = r.value === name; });
      drawLines();
      writeHash();
      if (pinLayer._map) redraw();
    }
    radios.forEach(function (r) { r.addEventListener('change', function () { if (r.checked) setSide(r.value); }); });
    radios.forEach(function (r) { r.checked = r.value === state.side; });

    document.getElementById('highlight').addEventListener('change', function (e) { state.highlight = e.target.checked; redraw(); });

    var tiles = null;
    document.getElementById('osm').addEventListener('change', function (e) {
      if (e.target.checked) {
        // Opt-in only: the page never needs the network unless asked here.
        tiles = tiles || L.tileLayer('https://tile.openstreetmap.org/{z}/{x}/{y}.png',
          { maxZoom: 19, opacity: 0.6, attribution: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors' });
        tiles.addTo(map);
      } else if (tiles) {
        map.removeLayer(tiles);
      }
    });

    // A station: centred, zoomed in to a town's size when the map shows more
    // than a region, and its popup opened.
    function focusStation(id) {
      var side = sides[state.side], i = side.index.get(id), at = side;
      if (i === undefined) {
        at = sides[state.side === 'candidate' ? 'baseline' : 'candidate'];
        i = at && at.index.get(id);
        if (i === undefined) return;
      }
      var span = Math.min(currentView().span, 0.4);
      applyView(roundView({ lat: at.lat[i] / 1e6, lng: at.lng[i] / 1e6, span: span }), true);
      openStation(at, i);
    }

    function el(tag, className, text) {
      var e = document.createElement(tag);
      if (className) e.className = className;
      if (text !== undefined) e.textContent = text;
      return e;
    }

    function weightText(w) { return w + (w >= 1 && w <= 10 ? ' (hand)' : w >= 11 && w <= 13 ? ' (machine)' : ''); }

    function changeText(c) {
      switch (c.kind) {
        case 'moved': return 'moved ' + c.metres.toFixed(1) + ' m (from ' + (c.old[0] / 1e6).toFixed(6) + ', ' + (c.old[1] / 1e6).toFixed(6) + ')';
        case 'renamed': return 'renamed ' + c.old + ' \u2192 ' + c['new'];
        case 'weight': return 'weight ' + c.old + ' \u2192 ' + c['new'];
        case 'added': return 'added (not in the baseline)';
        case 'removed': return 'removed (only in the baseline)';
        case 'disabled': return 'disabled (enabled 1 \u2192 0)';
        case 'reenabled': return 're-enabled (enabled 0 \u2192 1)';
        default: return c.old + ' \u2192 ' + c['new'];
      }
    }

    function openStation(side, i) {
      var box = el('div'), id = side.id[i];
      var title = el('div');
      title.appendChild(el('span', 'name', side.names[i]));
      title.appendChild(document.createTextNode(' '));
      title.appendChild(el('span', 'dim', side.yomi[i]));
      box.appendChild(title);
      box.appendChild(el('div', null, 's_id ' + id + ' \u00b7 weight ' + weightText(side.weight[i]) + (side.enabled[i] ? '' : ' \u00b7 disabled')));
      var op = side.operators.get(side.operatorOf[i]);
      if (op !== undefined) box.appendChild(el('div', 'dim', op));
      var names = side.linesOf[i].map(function (l) { return side.lines.name[l]; });
      box.appendChild(el('div', null, 'lines: ' + (names.length ? names.join(', ') : 'none')));
      var rank = side === sides[state.side] ? state.shown.indexOf(i) : -1;
      box.appendChild(el('div', 'dim', side !== sides[state.side] ? 'only in the ' + side.name :
        rank >= 0 ? 'pin ' + (rank + 1) + ' of ' + state.shown.length + ' in this view' :
        side.enabled[i] ? 'not among the ' + state.pins + ' pins of this view' : 'disabled: the apps never show it'));
      (side.changed.get(id) || []).forEach(function (c) {
        box.appendChild(el('div', 'change', changeText(c) + (c.cause ? ' [' + (c.cause === 'machine weights' ? 'follows the changes' : c.cause) + ']' : '')));
      });
      L.popup({ maxWidth: 260, autoPan: false }).setLatLng([side.lat[i] / 1e6, side.lng[i] / 1e6]).setContent(box).openOn(map);
    }

    // A pin is hit within its radius and a few pixels more; the first row of
    // the query wins, as it is the one drawn on top.
    function pinAt(layerPoint) {
      var side = sides[state.side];
      for (var k = 0; k < state.shown.length; k++) {
        var i = state.shown[k], r = pinStyle(side.weight[i])[1] + 4;
        if (point(side, i).distanceTo(layerPoint) <= r) return i;
      }
      return -1;
    }
    map.on('click', function (e) {
      var i = pinAt(e.layerPoint);
      if (i >= 0) openStation(sides[state.side], i);
    });
    map.on('mousemove', function (e) { map.getContainer().style.cursor = pinAt(e.layerPoint) >= 0 ? 'pointer' : ''; });

    // Search by name or reading: prefix matches first, then the rest.
    var search = document.getElementById('search'), results = document.getElementById('results');
    function findStations(text) {
      var side = sides[state.side], q = text.trim(), qk = hiragana(q), found = [];
      if (!q) return found;
      for (var i = 0; i < side.n; i++) {
        var name = side.names[i], yomi = side.search[i], rank = -1;
        if (name.indexOf(q) === 0) rank = 0;
        else if (yomi.indexOf(qk) === 0) rank = 1;
        else if (name.indexOf(q) > 0) rank = 2;
        else if (yomi.indexOf(qk) > 0) rank = 3;
        if (rank >= 0) found.push([rank, side.enabled[i] ? 0 : 1, side.weight[i], side.id[i], i]);
      }
      found.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]; });
      return found.slice(0, 40).map(function (f) { return f[4]; });
    }
    function showResults() {
      var side = sides[state.side], found = findStations(search.value);
      results.textContent = '';
      found.forEach(function (i) {
        var b = el('button');
        b.type = 'button';
        b.appendChild(document.createTextNode(side.names[i] + ' '));
        var lines = side.linesOf[i].map(function (l) { return side.lines.name[l]; }).slice(0, 3).join(', ');
        b.appendChild(el('span', 'dim', side.yomi[i] + (lines ? ' \u00b7 ' + lines : '') + (side.enabled[i] ? '' : ' \u00b7 disabled')));
        b.addEventListener('click', function () { results.hidden = true; focusStation(side.id[i]); });
        results.appendChild(b);
      });
      results.hidden = found.length === 0;
    }
    search.addEventListener('input', showResults);
    search.addEventListener('focus', showResults);
    search.addEventListener('keydown', function (e) {
      if (e.key === 'Enter') {
        var first = results.querySelector('button');
        if (first) first.click();
      } else if (e.key === 'Escape') {
        results.hidden = true;
      }
    });
    document.addEventListener('click', function (e) { if (!document.getElementById('finder').contains(e.target)) results.hidden = true; });

    // The s_ids to decide, each with its evidence and the row that settles it.
    if (identities.length) {
      document.getElementById('identities').hidden = false;
      var identityList = document.getElementById('identity-list');
      identities.forEach(function (c) {
        var b = el('button');
        b.type = 'button';
        b.className = 'identity';
        b.appendChild(document.createTextNode(c.name + ' '));
        b.appendChild(el('span', 'dim', 's_id ' + c.id + ' \u00b7 ' + c.kind + ': ' + c.reason));
        b.appendChild(el('code', null, c.decision));
        b.addEventListener('click', function () { focusStation(c.id); });
        identityList.appendChild(b);
      });
      body.dataset.identities = identities.map(function (c) { return c.kind + ':' + c.id; }).join(',');
    }

    // The change list, as computed from the two bundles when the page was written: every
    // change by the name of its station, line or operator, with its cause.
    if (DATA.changes || DATA.nothingChanged) {
      var section = document.getElementById('changes'), list = document.getElementById('change-list');
      section.hidden = false;
      if (DATA.nothingChanged || (!changes.length && !otherChanges.length)) {
        var none = el('p', null, DATA.nothingChanged || 'Nothing changed: the two bundles hold the same rows.');
        none.id = 'nothing-changed';
        list.appendChild(none);
        document.getElementById('changes-tables').textContent = '';
        body.dataset.changes = '0';
      } else {
        document.getElementById('changes-direction').textContent = 'from the baseline to the candidate';
        document.getElementById('changes-tables').textContent = DATA.changes.tables.join('; ');
        body.dataset.changes = String(changes.length + otherChanges.length);
        var TITLES = { moved: 'Moved', renamed: 'Renamed', weight: 'Weight changed', added: 'Added', disabled: 'Disabled',
                       reenabled: 'Re-enabled', removed: 'Removed', changed: 'Other values changed' };
        var groups = {}, following = [], retiered = [];
        changes.forEach(function (c) {
          if (c.follows) (c.cause === 'machine weights' ? following : retiered).push(c); else (groups[c.kind] = groups[c.kind] || []).push(c);
        });
        ['moved', 'renamed', 'weight', 'added', 'disabled', 'reenabled', 'removed', 'changed'].forEach(function (kind) {
          if (groups[kind]) addGroup('Stations: ' + TITLES[kind].toLowerCase(), groups[kind]);
        });
        // Machine weights drawn again around the changes above: one group, after them.
        if (following.length) addGroup('Machine weights that follow the changes above', following);
        // Hand weights moved between levels 1..10 (raw/weights.csv re-tiered): one group too.
        if (retiered.length) addGroup('Hand weights re-tiered', retiered);
        var TABLES = { lines: 'Lines', operators: 'Operators', stations_lines: 'Stations joining or leaving a line',
                       renumbered_stations: 'Renumbered stations' };
        ['lines', 'operators', 'stations_lines', 'renumbered_stations'].forEach(function (table) {
          var items = otherChanges.filter(function (c) { return c.table === table; });
          if (items.length) addGroup(TABLES[table], items);
        });
      }
    }

    function addGroup(title, items) {
      var d = el('details'), filled = false;
      d.appendChild(el('summary', null, title + ' (' + items.length + ')'));
      // A national weight change can list thousands: built when first opened.
      function fill() {
        if (filled) return;
        filled = true;
        items.forEach(function (c) { d.appendChild(changeButton(c)); });
      }
      d.addEventListener('toggle', function () { if (d.open) fill(); });
      if (items.length <= 200) { d.open = true; fill(); }
      document.getElementById('change-list').appendChild(d);
    }

    // One change: its name, what changed, and why; a station's or line's takes the map there.
    function changeButton(c) {
      var b = el('button'), key = c.table === 'lines' ? 'l_id ' : c.table === 'operators' ? 'o_id ' : 's_id ';
      b.type = 'button';
      b.dataset.table = c.table; b.dataset.id = String(c.id); b.dataset.kind = c.kind;
      if (c.cause) b.dataset.cause = c.cause;
      b.appendChild(document.createTextNode(c.name + ' '));
      b.appendChild(el('span', 'dim', key + c.id + ' \u00b7 ' + changeText(c)));
      if (c.cause) b.appendChild(el('span', 'cause', c.cause === 'machine weights' ? 'follows the changes above' : c.cause));
      b.addEventListener('click', function () {
        if (c.table === 'stations' || c.table === 'stations_lines' || c.table === 'renumbered_stations') focusStation(c.id);
        else if (c.table === 'lines') focusLine(c.id);
      });
      return b;
    }

    // Frames a line's stations, on the side shown if it has the line, else the other.
    function focusLine(id) {
      var names = [state.side, state.side === 'candidate' ? 'baseline' : 'candidate'];
      for (var n = 0; n < names.length; n++) {
        var side = sides[names[n]];
        if (!side) continue;
        var l = side.lines.id.indexOf(id);
        if (l < 0 || !side.lines.stations[l].length) continue;
        var st = side.lines.stations[l], s = Infinity, nn = -Infinity, w = Infinity, e = -Infinity;
        for (var k = 0; k < st.length; k++) {
          var i = st[k];
          s = Math.min(s, side.lat[i]); nn = Math.max(nn, side.lat[i]); w = Math.min(w, side.lng[i]); e = Math.max(e, side.lng[i]);
        }
        var lat = (s + nn) / 2e6, lng = (w + e) / 2e6;
        var span = Math.max((nn - s) / 1e6, (e - w) / 1e6 * Math.cos(lat * Math.PI / 180) / ASPECT, 0.02) * 1.3;
        applyView(roundView({ lat: lat, lng: lng, span: span }), true);
        return;
      }
    }

    window.addEventListener('hashchange', function () {
      var h = parseHash();
      if (h.pins) { state.pins = h.pins; pinsSelect.value = h.pins; }
      if (h.side !== state.side) setSide(h.side);
      if (h.view) applyView(h.view, false); else redraw();
    });

    // ---------------------------------------------------------------
    // Start: the view first (Leaflet adds layers to a map with a view), then
    // the lines, then the pins, whose first draw runs the first query. A hash
    // without a view or pins gets them, so a reload shows what this load showed.
    applyView(state.view, !hash.view || !hash.pins);
    drawLines();
    pinLayer.addTo(map);
    body.dataset.ready = '1';

    // &bench=N: N pans of 60 px around a square, each timed from the pan to its
    // pixels: reading one back makes the browser finish drawing both canvases.
    if (hash.bench) {
      var steps = [[60, 0], [0, 60], [-60, 0], [0, -60]], total = 0, worst = 0;
      for (var n = 0; n < hash.bench; n++) {
        var t0 = performance.now();
        map.panBy(steps[n % 4], { animate: false });
        lineRenderer._ctx.getImageData(0, 0, 1, 1);
        pinLayer._ctx.getImageData(0, 0, 1, 1);
        var dt = performance.now() - t0;
        total += dt; worst = Math.max(worst, dt);
      }
      body.dataset.benchMs = (total / hash.bench).toFixed(2);
      body.dataset.benchMaxMs = worst.toFixed(2);
      body.dataset.benchRuns = String(hash.bench);
    }

    // What the page loaded besides itself; empty unless tiles were asked for.
    window.addEventListener('load', function () {
      body.dataset.resources = performance.getEntriesByType('resource').map(function (e) { return e.name; }).join(' ');
    });
  }
})();
