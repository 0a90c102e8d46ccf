/**
 * The dashboard's script: plain ES2020, no framework, no build step. It talks to the same-origin
 * API under /api with the token kept in sessionStorage. Server strings only ever reach the page
 * through textContent / text nodes (Trusted Types would refuse innerHTML anyway).
 * No backticks in here: the script lives inside a template literal.
 */
export const pageJs = `'use strict';
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var KEY = 'despacho.dashboard.token';
  var token = '';
  var subs = [];
  var lastJson = '';
  var eventsLoaded = false;
  var open = null;
  var notes = {};
  var timer = 0;

  function el(tag, attrs) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v == null || v === false) return;
      if (k === 'text') e.textContent = v;
      else if (k === 'onclick') e.addEventListener('click', v);
      else e.setAttribute(k, v === true ? '' : String(v));
    });
    for (var i = 2; i < arguments.length; i++) if (arguments[i] != null) e.append(arguments[i]);
    return e;
  }

  function say(msg, kind) {
    var s = $('status');
    s.className = kind || 'info';
    s.textContent = msg;
  }

  function messageOf(r) {
    return (r.body && r.body.message) || ('HTTP ' + r.status);
  }

  function Halt() {}

  async function api(method, path, body, signingIn) {
    var headers = { Accept: 'application/json', Authorization: 'Bearer ' + token };
    var init = { method: method, headers: headers, cache: 'no-store', credentials: 'omit' };
    if (body !== undefined) { headers['Content-Type'] = 'application/json'; init.body = JSON.stringify(body); }
    var res;
    try { res = await fetch('/api' + path, init); } catch (e) { return { status: 0, ok: false, body: { message: 'The service could not be reached.' } }; }
    var data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (res.status === 401 && !signingIn) { signOut('Your token is no longer accepted. Sign in again.'); throw new Halt(); }
    return { status: res.status, ok: res.ok, body: data || {} };
  }

  function when(iso, none) {
    if (!iso) return el('span', { 'class': 'muted', text: none });
    var d = new Date(iso);
    return el('time', { datetime: iso, title: iso, text: isNaN(d) ? iso : d.toLocaleString() });
  }

  function sr(text) { return el('span', { 'class': 'sr', text: text }); }

  /** A button that ignores clicks while its action runs; aria-disabled keeps it focusable. */
  function button(label, context, key, fn, cls) {
    var b = el('button', { type: 'button', 'data-key': key, 'class': cls }, label, context ? sr(' ' + context) : null);
    b.addEventListener('click', function () { run(b, fn); });
    return b;
  }

  async function run(b, fn) {
    if (b && b.getAttribute('aria-disabled') === 'true') return;
    if (b) b.setAttribute('aria-disabled', 'true');
    try { await fn(); } catch (e) { if (!(e instanceof Halt)) say('Something went wrong: ' + e.message, 'bad'); } finally { if (b) b.removeAttribute('aria-disabled'); }
  }

  function refocus(container, key, fallback) {
    var b = key && container.querySelector('[data-key="' + CSS.escape(key) + '"]');
    if (b) b.focus(); else if (fallback) fallback.focus();
  }

  function fieldError(id, msg) {
    var p = $(id + '-err');
    var field = $(id);
    p.textContent = msg || '';
    p.hidden = !msg;
    if (msg) field.setAttribute('aria-invalid', 'true'); else field.removeAttribute('aria-invalid');
  }

  /* ---------- sign in / out ---------- */

  async function signIn(value, quiet) {
    token = value;
    var r = await api('GET', '/v1/me', undefined, true);
    if (r.status !== 200) {
      token = '';
      sessionStorage.removeItem(KEY);
      if (!quiet) {
        fieldError('token', r.status === 401 || r.status === 403 ? 'This token was not accepted.' : messageOf(r));
        $('token').focus();
      }
      return;
    }
    sessionStorage.setItem(KEY, token);
    fieldError('token', '');
    $('token').value = '';
    var acc = (r.body.data && r.body.data.account) || {};
    $('account').textContent = 'Signed in as ' + (acc.name || 'account ' + acc.id);
    $('signin').hidden = true;
    $('who').hidden = false;
    $('app').hidden = false;
    say('Signed in as ' + (acc.name || 'account ' + acc.id) + '.', 'good');
    $('subs-h').focus();
    await Promise.all([loadSubs(true), loadEvents()]);
    clearInterval(timer);
    timer = setInterval(function () {
      if (document.visibilityState !== 'visible' || !token) return;
      run(null, async function () { await loadSubs(false); if (open) await loadDeliveries(false); });
    }, 15000);
  }

  function signOut(msg) {
    token = '';
    sessionStorage.removeItem(KEY);
    clearInterval(timer);
    subs = []; lastJson = ''; open = null; notes = {}; eventsLoaded = false;
    $('subs-body').replaceChildren();
    $('del-body').replaceChildren();
    $('event-groups').replaceChildren();
    $('add-form').reset();
    var secret = $('secret');
    if (secret) secret.remove();
    $('deliveries').hidden = true;
    $('app').hidden = true;
    $('who').hidden = true;
    $('account').textContent = '';
    $('signin').hidden = false;
    say(msg || 'Signed out.', msg ? 'bad' : 'info');
    $('token').focus();
  }

  /* ---------- subscriptions ---------- */

  async function loadSubs(force) {
    var r = await api('GET', '/webhook-subscriptions');
    if (!r.ok) { say('Could not load the subscriptions: ' + messageOf(r), 'bad'); return; }
    var json = JSON.stringify(r.body.data);
    if (!force && json === lastJson) return;
    lastJson = json;
    subs = r.body.data || [];
    renderSubs();
  }

  function renderSubs() {
    var body = $('subs-body');
    var active = document.activeElement;
    var key = active && body.contains(active) ? active.getAttribute('data-key') : null;
    body.replaceChildren.apply(body, subs.map(subRow));
    $('subs-empty').hidden = subs.length > 0;
    $('subs-wrap').hidden = subs.length === 0;
    if (key) refocus(body, key, body.querySelector('[data-key="test:' + key.split(':')[1] + '"]') || $('subs-h'));
  }

  var colours = { green: 1, yellow: 1, red: 1, gray: 1 };

  function subRow(s) {
    var colour = colours[s.health_status_color] ? s.health_status_color : 'gray';
    var url = s.endpoint_url;
    var actions = el('td', { 'class': 'actions' },
      button('Send test', url, 'test:' + s.id, function () { return sendTest(s); }),
      button('Deliveries', url, 'del:' + s.id, function () { open = { id: s.id, url: url, page: 1 }; return loadDeliveries(true); }),
      s.active ? null : button('Reactivate', url, 'act:' + s.id, function () { return reactivate(s); }, 'primary'),
      button('Delete', url, 'delete:' + s.id, function () { return remove(s); }, 'danger'));
    if (notes[s.id]) actions.append(el('span', { 'class': 'note ' + notes[s.id].kind, text: notes[s.id].text }));
    return el('tr', { 'data-id': s.id },
      el('th', { scope: 'row' }, url),
      el('td', {}, el.apply(null, ['ul', { 'class': 'events' }].concat((s.events || []).map(function (e) { return el('li', { text: e }); })))),
      el('td', {},
        el('span', { 'class': 'health' }, el('span', { 'class': 'dot ' + colour, 'aria-hidden': 'true' }), s.health_status),
        s.disabled_reason ? el('div', { 'class': 'muted small', text: s.disabled_reason }) : null),
      el('td', {}, s.consecutive_failures + ' in a row', el('br'), el('span', { 'class': 'muted small', text: s.failed_deliveries + ' failed in total' })),
      el('td', {}, when(s.last_delivery_at, 'Never')),
      el('td', { text: s.active ? 'Yes' : 'No' }),
      actions);
  }

  async function sendTest(s) {
    say('Sending a test delivery to ' + s.endpoint_url + '…', 'info');
    var r = await api('POST', '/webhook-subscriptions/' + s.id + '/test');
    var d = r.body.data || {};
    var note;
    if (r.status === 200) note = { kind: 'good', text: 'delivered: HTTP ' + d.status_code + ' in ' + d.response_time_ms + ' ms.' };
    else if (r.status === 502) note = { kind: 'bad', text: 'failed: ' + (d.error || 'no answer') + (d.status_code && String(d.error || '').indexOf(String(d.status_code)) < 0 ? ' (HTTP ' + d.status_code + ')' : '') + '.' };
    else note = { kind: 'bad', text: 'not sent: ' + messageOf(r) };
    notes[s.id] = { kind: note.kind, text: 'Last test ' + note.text };
    say('Test of ' + s.endpoint_url + ' ' + note.text, note.kind);
    renderSubs();
  }

  async function reactivate(s) {
    var r = await api('PUT', '/webhook-subscriptions/' + s.id, { active: true });
    if (r.ok) say('Reactivated ' + s.endpoint_url + '. Retry its failed deliveries from the delivery log.', 'good');
    else say('Could not reactivate: ' + messageOf(r), 'bad');
    await loadSubs(true);
    if (open && open.id === s.id) await loadDeliveries(false);
  }

  async function remove(s) {
    if (!window.confirm('Delete the subscription for ' + s.endpoint_url + '? Nothing more will be delivered to it.')) return;
    var r = await api('DELETE', '/webhook-subscriptions/' + s.id);
    if (!r.ok) { say('Could not delete: ' + messageOf(r), 'bad'); return; }
    say('Deleted the subscription for ' + s.endpoint_url + '.', 'good');
    if (open && open.id === s.id) { open = null; $('deliveries').hidden = true; }
    await loadSubs(true);
    $('subs-h').focus();
  }

  /* ---------- deliveries ---------- */

  async function loadDeliveries(focus) {
    var o = open;
    var r = await api('GET', '/webhook-subscriptions/' + o.id + '/deliveries?per_page=20&page=' + o.page);
    if (open !== o) return;
    if (!r.ok) { say('Could not load the deliveries: ' + messageOf(r), 'bad'); return; }
    var list = r.body.data || [];
    var meta = r.body.meta || { current_page: o.page, last_page: 1, total: list.length };
    var body = $('del-body');
    var active = document.activeElement;
    var key = active && body.contains(active) ? active.getAttribute('data-key') : null;
    body.replaceChildren.apply(body, list.map(function (d) { return deliveryRow(o, d); }));
    $('deliveries').hidden = false;
    $('del-h').textContent = 'Deliveries to ' + o.url;
    $('del-empty').hidden = list.length > 0;
    $('del-table').hidden = list.length === 0;
    $('del-page').textContent = 'Page ' + meta.current_page + ' of ' + meta.last_page + ' (' + meta.total + ' deliveries)';
    $('del-prev').disabled = o.page <= 1;
    $('del-next').disabled = o.page >= meta.last_page;
    if (focus) $('del-h').focus();
    else if (key) refocus(body, key, $('del-h'));
  }

  function deliveryRow(o, d) {
    var attempts = d.attempts || [];
    var last = attempts[attempts.length - 1];
    var result = last ? (last.status_code != null ? 'HTTP ' + last.status_code : 'No answer') + (last.error && last.status_code == null ? ': ' + last.error : '') : 'Not attempted yet';
    var canRetry = d.state === 'failed' || d.state === 'retrying';
    return el('tr', { 'data-id': d.id },
      el('th', { scope: 'row', 'class': 'mono' }, d.event_type),
      el('td', {}, el('span', { 'class': 'state ' + (/^[a-z]+$/.test(d.state) ? d.state : ''), text: d.state })),
      el('td', { text: String(attempts.length) }),
      el('td', { text: result }),
      el('td', {}, when(d.next_attempt_at, '—')),
      el('td', {}, when(d.created_at, '—')),
      el('td', { 'class': 'actions' }, canRetry ? button('Retry', d.event_type + ' delivery ' + d.id, 'retry:' + d.id, function () { return retry(o, d); }, 'primary') : null));
  }

  async function retry(o, d) {
    say('Retrying delivery ' + d.id + '…', 'info');
    var r = await api('POST', '/webhook-subscriptions/' + o.id + '/deliveries/' + d.id + '/retry');
    if (r.ok) say('Delivery ' + d.id + ' (' + d.event_type + '): ' + (r.body.data && r.body.data.state === 'delivered' ? 'delivered.' : messageOf(r)), r.body.data && r.body.data.state === 'delivered' ? 'good' : 'bad');
    else say('Retry refused: ' + messageOf(r), 'bad');
    await loadDeliveries(false);
    await loadSubs(false);
  }

  /* ---------- add an endpoint ---------- */

  async function loadEvents() {
    if (eventsLoaded) return;
    var r = await api('GET', '/webhook-subscriptions/available-events');
    var box = $('event-groups');
    if (!r.ok) { box.replaceChildren(el('p', { 'class': 'err', text: 'Could not load the events: ' + messageOf(r) })); return; }
    var groups = {};
    (r.body.data || []).forEach(function (e) { (groups[e.type] = groups[e.type] || []).push(e); });
    var n = 0;
    box.replaceChildren.apply(box, Object.keys(groups).map(function (type) {
      return el.apply(null, ['fieldset', {}, el('legend', { text: type })].concat(groups[type].map(function (e) {
        var id = 'ev-' + (n++);
        return el('div', { 'class': 'check' },
          el('input', { type: 'checkbox', id: id, name: 'events', value: e.event, 'aria-describedby': id + '-d' }),
          el('label', { 'for': id, text: e.event }),
          el('span', { id: id + '-d', 'class': 'muted small', text: e.description }));
      })));
    }));
    eventsLoaded = true;
  }

  async function addEndpoint(form) {
    fieldError('endpoint_url', '');
    fieldError('events', '');
    var url = $('endpoint_url').value.trim();
    var events = Array.prototype.map.call(form.querySelectorAll('input[name=events]:checked'), function (i) { return i.value; });
    var r = await api('POST', '/webhook-subscriptions', { endpoint_url: url, events: events });
    if (r.status === 201) {
      form.reset();
      await loadSubs(true);
      showSecret(r.body);
      return;
    }
    if (r.status === 422 && r.body.errors) {
      var other = [];
      var first = null;
      Object.keys(r.body.errors).forEach(function (k) {
        var field = k.split('.')[0];
        var msg = [].concat(r.body.errors[k]).join(' ');
        if (field === 'endpoint_url' || field === 'events') {
          var prev = $(field + '-err').hidden ? '' : $(field + '-err').textContent + ' ';
          fieldError(field, prev + msg);
          first = first || field;
        } else other.push(k + ': ' + msg);
      });
      say('The endpoint was not added. ' + (other.length ? other.join(' ') : 'Fix the marked fields.'), 'bad');
      if (first === 'endpoint_url') $('endpoint_url').focus();
      else if (first === 'events') { var box = form.querySelector('input[name=events]'); if (box) box.focus(); }
      return;
    }
    say('The endpoint was not added: ' + messageOf(r), 'bad');
  }

  function showSecret(body) {
    var old = $('secret');
    if (old) old.remove();
    var data = body.data || {};
    var input = el('input', { id: 'secret-value', type: 'text', readonly: true, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'secret-note' });
    input.value = data.hmac_secret || '';
    var panel = el('section', { id: 'secret', 'class': 'panel secret', 'aria-labelledby': 'secret-h' },
      el('h2', { id: 'secret-h', tabindex: '-1', text: 'Endpoint added: its signing secret' }),
      el('p', { id: 'secret-note', 'class': 'important', text: body.important || 'Store this secret now: it is shown only once.' }),
      el('p', { 'class': 'muted small', text: 'For ' + (data.endpoint_url || '') }),
      el('label', { 'for': 'secret-value', text: 'Signing secret' }),
      input,
      el('p', {},
        button('Copy secret', null, 'copy', function () { return copy(input); }),
        button('Done', null, 'done', function () {
          input.value = '';
          panel.remove();
          say('The secret is no longer shown.', 'info');
          refocus($('subs-body'), 'test:' + data.id, $('subs-h'));
        })));
    var subsSection = $('subs-h').closest('section');
    subsSection.parentNode.insertBefore(panel, subsSection);
    say('Endpoint added. Copy its signing secret now: it is shown only once.', 'good');
    $('secret-h').focus();
  }

  async function copy(input) {
    try {
      await navigator.clipboard.writeText(input.value);
      say('Secret copied to the clipboard.', 'good');
    } catch (e) {
      input.focus();
      input.select();
      var done = false;
      try { done = document.execCommand('copy'); } catch (e2) { done = false; }
      say(done ? 'Secret copied to the clipboard.' : 'The browser did not allow copying: the secret is selected, press Ctrl+C (or ⌘C) to copy it.', done ? 'good' : 'bad');
    }
  }

  /* ---------- wiring ---------- */

  document.addEventListener('DOMContentLoaded', function () {
    $('signin-form').addEventListener('submit', function (e) {
      e.preventDefault();
      var value = $('token').value.trim();
      if (!value) { fieldError('token', 'Enter your API token.'); $('token').focus(); return; }
      run(e.submitter || null, function () { return signIn(value, false); });
    });
    $('signout').addEventListener('click', function () { signOut(); });
    $('refresh').addEventListener('click', function () { run($('refresh'), function () { return loadSubs(true); }); });
    $('del-refresh').addEventListener('click', function () { run($('del-refresh'), function () { return loadDeliveries(false); }); });
    $('del-close').addEventListener('click', function () { open = null; $('deliveries').hidden = true; $('subs-h').focus(); });
    $('del-prev').addEventListener('click', function () { if (open && open.page > 1) { open.page--; run(null, function () { return loadDeliveries(true); }); } });
    $('del-next').addEventListener('click', function () { if (open) { open.page++; run(null, function () { return loadDeliveries(true); }); } });
    $('add-form').addEventListener('submit', function (e) {
      e.preventDefault();
      run(e.submitter || null, function () { return addEndpoint(e.target); });
    });
    var saved = sessionStorage.getItem(KEY);
    if (saved) run(null, function () { return signIn(saved, true); });
  });
})();
`;
