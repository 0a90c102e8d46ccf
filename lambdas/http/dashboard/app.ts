/**
 * The dashboard's script, run in the browser: no framework. It talks to the same-origin API under
 * /api with the token kept in sessionStorage. Server strings only ever reach the page through
 * textContent / text nodes (Trusted Types would refuse innerHTML anyway). Typed for the DOM by
 * tsconfig.app.json beside it; script.ts compiles it for the browser.
 */

import { errorMessageEs, fieldMessageEs } from '../console/api-errors';
import { disabledReasonIn, eventDescriptionsEs, isMessage, langKey, named, tr, type Lang, type MessageId } from './i18n';

interface Answer<T = unknown> {
  status: number;
  ok: boolean;
  body: { data?: T; meta?: PageMeta; message?: string; error?: string; important?: string; errors?: Record<string, string | string[]> };
}

interface PageMeta {
  current_page: number;
  last_page: number;
  total: number;
}

interface Subscription {
  id: string;
  endpoint_url: string;
  events?: string[];
  active: boolean;
  health_status: string;
  health_status_color: string;
  disabled_reason?: string | null;
  consecutive_failures: number;
  failed_deliveries: number;
  last_delivery_at?: string | null;
}

interface Attempt {
  status_code?: number | null;
  error?: string | null;
}

interface Delivery {
  id: string;
  event_type: string;
  state: string;
  attempts?: Attempt[];
  next_attempt_at?: string | null;
  created_at?: string | null;
}

interface Opened {
  id: string;
  url: string;
  page: number;
}

type Kind = 'info' | 'good' | 'bad';
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;
type Child = Node | string | null | undefined;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** Spanish unless the console's language switch (the same key, this tab) chose English. */
let lang: Lang = sessionStorage.getItem(langKey) === 'en' ? 'en' : 'es';
const t = (id: MessageId, params: Record<string, string | number> = {}) => tr(lang, id, params);

/** The page's static words in the language (data-t: the text, data-t-label: the aria-label), and the switch. */
function applyLang() {
  document.documentElement.lang = lang;
  document.title = t('title') + ' · Despacho';
  for (const e of document.querySelectorAll<HTMLElement>('[data-t]')) {
    const id = e.dataset.t!;
    if (isMessage(id)) e.textContent = t(id);
  }
  for (const e of document.querySelectorAll<HTMLElement>('[data-t-label]')) {
    const id = e.dataset.tLabel!;
    if (isMessage(id)) e.setAttribute('aria-label', t(id));
  }
  $('lang').setAttribute('lang', lang === 'es' ? 'en' : 'es');
  $('lang').setAttribute('aria-label', t('switchLangLabel'));
}

function switchLang() {
  lang = lang === 'es' ? 'en' : 'es';
  sessionStorage.setItem(langKey, lang);
  applyLang();
  // What app.js wrote (the rows, the events, the account) is written again in the new language.
  if (token) {
    eventsLoaded = false;
    renderSubs();
    run(null, async () => {
      await loadEvents();
      if (open) await loadDeliveries(false);
    });
    $('account').textContent = t('signedInAs', { name: accountName });
  }
  $('lang').focus();
}
let accountName = '';
const KEY = 'despacho.dashboard.token';
let token = '';
let subs: Subscription[] = [];
let lastJson = '';
let eventsLoaded = false;
let open: Opened | null = null;
let notes: Record<string, { kind: Kind; text: string }> = {};
let timer = 0;

function el(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v == null || v === false) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k === 'onclick') e.addEventListener('click', v as (e: Event) => void);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

function say(msg: string, kind?: Kind) {
  const s = $('status');
  s.className = kind || 'info';
  s.textContent = msg;
}

function messageOf(r: Answer) {
  // The API's message is English; in Spanish the console's sentence for its code (or its status).
  if (lang === 'es') return errorMessageEs(r.body && r.body.error, r.status, r.body && r.body.message);
  return (r.body && r.body.message) || 'HTTP ' + r.status;
}

/** Thrown once the user is signed out mid-action: the action stops without another message. */
class Halt {}

async function api<T = unknown>(method: string, path: string, body?: unknown, signingIn?: boolean): Promise<Answer<T>> {
  const headers: Record<string, string> = { Accept: 'application/json', Authorization: 'Bearer ' + token };
  const init: RequestInit = { method, headers, cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch('/api' + path, init);
  } catch {
    return { status: 0, ok: false, body: { message: t('unreachable') } };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (res.status === 401 && !signingIn) {
    signOut(t('tokenGone'));
    throw new Halt();
  }
  return { status: res.status, ok: res.ok, body: data || {} };
}

function when(iso: string | null | undefined, none: string) {
  if (!iso) return el('span', { class: 'muted', text: none });
  const d = new Date(iso);
  return el('time', { datetime: iso, title: iso, text: isNaN(d.getTime()) ? iso : d.toLocaleString() });
}

function sr(text: string) {
  return el('span', { class: 'sr', text });
}

/** A button that ignores clicks while its action runs; aria-disabled keeps it focusable. */
function button(label: string, context: string | null, key: string, fn: () => Promise<unknown> | void, cls?: string) {
  const b = el('button', { type: 'button', 'data-key': key, class: cls }, label, context ? sr(' ' + context) : null);
  b.addEventListener('click', () => run(b, fn));
  return b;
}

async function run(b: HTMLElement | null, fn: () => Promise<unknown> | void) {
  if (b && b.getAttribute('aria-disabled') === 'true') return;
  if (b) b.setAttribute('aria-disabled', 'true');
  try {
    await fn();
  } catch (e) {
    if (!(e instanceof Halt)) say(t('wentWrong', { message: (e as Error).message }), 'bad');
  } finally {
    if (b) b.removeAttribute('aria-disabled');
  }
}

function refocus(container: HTMLElement, key: string | null, fallback: HTMLElement | null) {
  const b = key && container.querySelector<HTMLElement>('[data-key="' + CSS.escape(key) + '"]');
  if (b) b.focus();
  else if (fallback) fallback.focus();
}

function fieldError(id: string, msg: string) {
  const p = $(id + '-err');
  const field = $(id);
  p.textContent = msg || '';
  p.hidden = !msg;
  if (msg) field.setAttribute('aria-invalid', 'true');
  else field.removeAttribute('aria-invalid');
}

/* ---------- sign in / out ---------- */

async function signIn(value: string, quiet: boolean) {
  token = value;
  const r = await api<{ account?: { id?: number; name?: string } }>('GET', '/v1/me', undefined, true);
  if (r.status !== 200) {
    token = '';
    sessionStorage.removeItem(KEY);
    if (!quiet) {
      fieldError('token', r.status === 401 || r.status === 403 ? t('tokenRefused') : messageOf(r));
      $('token').focus();
    }
    return;
  }
  sessionStorage.setItem(KEY, token);
  fieldError('token', '');
  $<HTMLInputElement>('token').value = '';
  const acc = (r.body.data && r.body.data.account) || {};
  accountName = acc.name || t('accountN', { id: String(acc.id) });
  $('account').textContent = t('signedInAs', { name: accountName });
  $('signin').hidden = true;
  $('who').hidden = false;
  $('app').hidden = false;
  say(t('signedInAsDone', { name: accountName }), 'good');
  $('subs-h').focus();
  await Promise.all([loadSubs(true), loadEvents()]);
  clearInterval(timer);
  timer = window.setInterval(() => {
    if (document.visibilityState !== 'visible' || !token) return;
    run(null, async () => {
      await loadSubs(false);
      if (open) await loadDeliveries(false);
    });
  }, 15000);
}

function signOut(msg?: string) {
  token = '';
  sessionStorage.removeItem(KEY);
  clearInterval(timer);
  subs = [];
  lastJson = '';
  open = null;
  notes = {};
  eventsLoaded = false;
  $('subs-body').replaceChildren();
  $('del-body').replaceChildren();
  $('event-groups').replaceChildren();
  $<HTMLFormElement>('add-form').reset();
  document.getElementById('secret')?.remove();
  $('deliveries').hidden = true;
  $('app').hidden = true;
  $('who').hidden = true;
  $('account').textContent = '';
  $('signin').hidden = false;
  say(msg || t('signedOut'), msg ? 'bad' : 'info');
  $('token').focus();
}

/* ---------- subscriptions ---------- */

async function loadSubs(force: boolean) {
  const r = await api<Subscription[]>('GET', '/webhook-subscriptions');
  if (!r.ok) {
    say(t('subsFailed', { message: messageOf(r) }), 'bad');
    return;
  }
  const json = JSON.stringify(r.body.data);
  if (!force && json === lastJson) return;
  lastJson = json;
  subs = r.body.data || [];
  renderSubs();
}

function renderSubs() {
  const body = $('subs-body');
  const active = document.activeElement;
  const key = active && body.contains(active) ? active.getAttribute('data-key') : null;
  body.replaceChildren(...subs.map(subRow));
  $('subs-empty').hidden = subs.length > 0;
  $('subs-wrap').hidden = subs.length === 0;
  if (key) refocus(body, key, body.querySelector<HTMLElement>('[data-key="test:' + key.split(':')[1] + '"]') || $('subs-h'));
}

const colours = new Set(['green', 'yellow', 'red', 'gray']);

function subRow(s: Subscription) {
  const colour = colours.has(s.health_status_color) ? s.health_status_color : 'gray';
  const url = s.endpoint_url;
  const actions = el(
    'td',
    { class: 'actions' },
    button(t('sendTest'), url, 'test:' + s.id, () => sendTest(s)),
    button(t('deliveries'), url, 'del:' + s.id, () => {
      open = { id: s.id, url, page: 1 };
      return loadDeliveries(true);
    }),
    s.active ? null : button(t('reactivate'), url, 'act:' + s.id, () => reactivate(s), 'primary'),
    button(t('delete'), url, 'delete:' + s.id, () => remove(s), 'danger'),
  );
  const note = notes[s.id];
  if (note) actions.append(el('span', { class: 'note ' + note.kind, text: note.text }));
  return el(
    'tr',
    { 'data-id': s.id },
    el('th', { scope: 'row' }, url),
    el('td', {}, el('ul', { class: 'events' }, ...(s.events || []).map((e) => el('li', { text: e })))),
    el(
      'td',
      {},
      el('span', { class: 'health' }, el('span', { class: 'dot ' + colour, 'aria-hidden': 'true' }), named(lang, 'health', s.health_status)),
      s.disabled_reason ? el('div', { class: 'muted small', text: disabledReasonIn(lang, s.disabled_reason) }) : null,
    ),
    el('td', {}, t('inARow', { n: s.consecutive_failures }), el('br'), el('span', { class: 'muted small', text: t('failedInTotal', { n: s.failed_deliveries }) })),
    el('td', {}, when(s.last_delivery_at, t('never'))),
    el('td', { text: s.active ? t('yes') : t('no') }),
    actions,
  );
}

async function sendTest(s: Subscription) {
  say(t('sendingTest', { url: s.endpoint_url }), 'info');
  const r = await api<{ status_code?: number; response_time_ms?: number; error?: string }>('POST', '/webhook-subscriptions/' + s.id + '/test');
  const d = r.body.data || {};
  let note: { kind: Kind; text: string };
  if (r.status === 200) note = { kind: 'good', text: t('testDelivered', { code: String(d.status_code), ms: String(d.response_time_ms) }) };
  else if (r.status === 502)
    note = {
      kind: 'bad',
      text: t('testFailed', { error: d.error || t('noAnswerLower'), code: d.status_code && String(d.error || '').indexOf(String(d.status_code)) < 0 ? ' (HTTP ' + d.status_code + ')' : '' }),
    };
  else note = { kind: 'bad', text: t('testNotSent', { message: messageOf(r) }) };
  notes[s.id] = { kind: note.kind, text: t('lastTest', { note: note.text }) };
  say(t('testOf', { url: s.endpoint_url, note: note.text }), note.kind);
  renderSubs();
}

async function reactivate(s: Subscription) {
  const r = await api('PUT', '/webhook-subscriptions/' + s.id, { active: true });
  if (r.ok) say(t('reactivated', { url: s.endpoint_url }), 'good');
  else say(t('reactivateFailed', { message: messageOf(r) }), 'bad');
  await loadSubs(true);
  if (open && open.id === s.id) await loadDeliveries(false);
}

async function remove(s: Subscription) {
  if (!window.confirm(t('confirmDelete', { url: s.endpoint_url }))) return;
  const r = await api('DELETE', '/webhook-subscriptions/' + s.id);
  if (!r.ok) {
    say(t('deleteFailed', { message: messageOf(r) }), 'bad');
    return;
  }
  say(t('deleted', { url: s.endpoint_url }), 'good');
  if (open && open.id === s.id) {
    open = null;
    $('deliveries').hidden = true;
  }
  await loadSubs(true);
  $('subs-h').focus();
}

/* ---------- deliveries ---------- */

async function loadDeliveries(focus: boolean) {
  const o = open!;
  const r = await api<Delivery[]>('GET', '/webhook-subscriptions/' + o.id + '/deliveries?per_page=20&page=' + o.page);
  if (open !== o) return;
  if (!r.ok) {
    say(t('deliveriesFailed', { message: messageOf(r) }), 'bad');
    return;
  }
  const list = r.body.data || [];
  const meta = r.body.meta || { current_page: o.page, last_page: 1, total: list.length };
  const body = $('del-body');
  const active = document.activeElement;
  const key = active && body.contains(active) ? active.getAttribute('data-key') : null;
  body.replaceChildren(...list.map((d) => deliveryRow(o, d)));
  $('deliveries').hidden = false;
  $('del-h').textContent = t('deliveriesTo', { url: o.url });
  $('del-empty').hidden = list.length > 0;
  $('del-table').hidden = list.length === 0;
  $('del-page').textContent = t('deliveriesPage', { page: meta.current_page, pages: meta.last_page, total: meta.total });
  $<HTMLButtonElement>('del-prev').disabled = o.page <= 1;
  $<HTMLButtonElement>('del-next').disabled = o.page >= meta.last_page;
  if (focus) $('del-h').focus();
  else if (key) refocus(body, key, $('del-h'));
}

function deliveryRow(o: Opened, d: Delivery) {
  const attempts = d.attempts || [];
  const last = attempts[attempts.length - 1];
  const result = last
    ? (last.status_code != null ? 'HTTP ' + last.status_code : t('noAnswer')) + (last.error && last.status_code == null ? ': ' + last.error : '')
    : t('notAttempted');
  const canRetry = d.state === 'failed' || d.state === 'retrying';
  return el(
    'tr',
    { 'data-id': d.id },
    el('th', { scope: 'row', class: 'mono' }, d.event_type),
    el('td', {}, el('span', { class: 'state ' + (/^[a-z]+$/.test(d.state) ? d.state : ''), text: named(lang, 'state', d.state) })),
    el('td', { text: String(attempts.length) }),
    el('td', { text: result }),
    el('td', {}, when(d.next_attempt_at, '—')),
    el('td', {}, when(d.created_at, '—')),
    el('td', { class: 'actions' }, canRetry ? button(t('retry'), t('deliveryOf', { event: d.event_type, id: d.id }), 'retry:' + d.id, () => retry(o, d), 'primary') : null),
  );
}

async function retry(o: Opened, d: Delivery) {
  say(t('retrying', { id: d.id }), 'info');
  const r = await api<{ state?: string }>('POST', '/webhook-subscriptions/' + o.id + '/deliveries/' + d.id + '/retry');
  const delivered = r.body.data && r.body.data.state === 'delivered';
  if (r.ok) say(t('retried', { id: d.id, event: d.event_type, result: delivered ? t('deliveredDot') : messageOf(r) }), delivered ? 'good' : 'bad');
  else say(t('retryRefused', { message: messageOf(r) }), 'bad');
  await loadDeliveries(false);
  await loadSubs(false);
}

/* ---------- add an endpoint ---------- */

async function loadEvents() {
  if (eventsLoaded) return;
  const r = await api<{ type: string; event: string; description: string }[]>('GET', '/webhook-subscriptions/available-events');
  const box = $('event-groups');
  if (!r.ok) {
    box.replaceChildren(el('p', { class: 'err', text: t('eventsFailed', { message: messageOf(r) }) }));
    return;
  }
  const groups: Record<string, { event: string; description: string }[]> = {};
  for (const e of r.body.data || []) (groups[e.type] = groups[e.type] || []).push(e);
  let n = 0;
  box.replaceChildren(
    ...Object.keys(groups).map((type) =>
      el(
        'fieldset',
        {},
        el('legend', { text: named(lang, 'type', type) }),
        ...groups[type].map((e) => {
          const id = 'ev-' + n++;
          return el(
            'div',
            { class: 'check' },
            el('input', { type: 'checkbox', id, name: 'events', value: e.event, 'aria-describedby': id + '-d' }),
            el('label', { for: id, text: e.event }),
            el('span', { id: id + '-d', class: 'muted small', text: lang === 'es' ? (eventDescriptionsEs[e.event] ?? e.description) : e.description }),
          );
        }),
      ),
    ),
  );
  eventsLoaded = true;
}

async function addEndpoint(form: HTMLFormElement) {
  fieldError('endpoint_url', '');
  fieldError('events', '');
  const url = $<HTMLInputElement>('endpoint_url').value.trim();
  const events = Array.from(form.querySelectorAll<HTMLInputElement>('input[name=events]:checked'), (i) => i.value);
  const r = await api<{ id?: string; endpoint_url?: string; hmac_secret?: string }>('POST', '/webhook-subscriptions', { endpoint_url: url, events });
  if (r.status === 201) {
    form.reset();
    await loadSubs(true);
    showSecret(r.body);
    return;
  }
  const errors = r.body.errors;
  if (r.status === 422 && errors) {
    const other: string[] = [];
    let first: string | null = null;
    for (const k of Object.keys(errors)) {
      const field = k.split('.')[0];
      const msg = ([] as string[])
        .concat(errors[k])
        .map((m) => (lang === 'es' ? fieldMessageEs(field, m) : m))
        .join(' ');
      if (field === 'endpoint_url' || field === 'events') {
        const prev = $(field + '-err').hidden ? '' : $(field + '-err').textContent + ' ';
        fieldError(field, prev + msg);
        first = first || field;
      } else other.push(k + ': ' + msg);
    }
    say(t('notAdded', { detail: other.length ? other.join(' ') : t('fixMarked') }), 'bad');
    if (first === 'endpoint_url') $('endpoint_url').focus();
    else if (first === 'events') form.querySelector<HTMLInputElement>('input[name=events]')?.focus();
    return;
  }
  say(t('notAddedBecause', { message: messageOf(r) }), 'bad');
}

function showSecret(body: Answer<{ id?: string; endpoint_url?: string; hmac_secret?: string }>['body']) {
  document.getElementById('secret')?.remove();
  const data = body.data || {};
  const input = el('input', {
    id: 'secret-value',
    type: 'text',
    readonly: true,
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-describedby': 'secret-note',
  }) as HTMLInputElement;
  input.value = data.hmac_secret || '';
  const panel = el(
    'section',
    { id: 'secret', class: 'panel secret', 'aria-labelledby': 'secret-h' },
    el('h2', { id: 'secret-h', tabindex: '-1', text: t('secretTitle') }),
    el('p', { id: 'secret-note', class: 'important', text: lang === 'es' || !body.important ? t('secretOnce') : body.important }),
    el('p', { class: 'muted small', text: t('secretFor', { url: data.endpoint_url || '' }) }),
    el('label', { for: 'secret-value', text: t('signingSecret') }),
    input,
    el(
      'p',
      {},
      button(t('copySecret'), null, 'copy', () => copy(input)),
      button(t('done'), null, 'done', () => {
        input.value = '';
        panel.remove();
        say(t('secretHidden'), 'info');
        refocus($('subs-body'), 'test:' + data.id, $('subs-h'));
      }),
    ),
  );
  const subsSection = $('subs-h').closest('section')!;
  subsSection.parentNode!.insertBefore(panel, subsSection);
  say(t('added'), 'good');
  $('secret-h').focus();
}

async function copy(input: HTMLInputElement) {
  try {
    await navigator.clipboard.writeText(input.value);
    say(t('copied'), 'good');
  } catch {
    input.focus();
    input.select();
    let done = false;
    try {
      done = document.execCommand('copy');
    } catch {
      done = false;
    }
    say(
      done ? t('copied') : t('copyRefused'),
      done ? 'good' : 'bad',
    );
  }
}

/* ---------- wiring ---------- */

document.addEventListener('DOMContentLoaded', () => {
  applyLang();
  $('lang').addEventListener('click', switchLang);
  $('signin-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const value = $<HTMLInputElement>('token').value.trim();
    if (!value) {
      fieldError('token', t('enterToken'));
      $('token').focus();
      return;
    }
    run((e as SubmitEvent).submitter || null, () => signIn(value, false));
  });
  $('signout').addEventListener('click', () => signOut());
  $('refresh').addEventListener('click', () => run($('refresh'), () => loadSubs(true)));
  $('del-refresh').addEventListener('click', () => run($('del-refresh'), () => loadDeliveries(false)));
  $('del-close').addEventListener('click', () => {
    open = null;
    $('deliveries').hidden = true;
    $('subs-h').focus();
  });
  $('del-prev').addEventListener('click', () => {
    if (open && open.page > 1) {
      open.page--;
      run(null, () => loadDeliveries(true));
    }
  });
  $('del-next').addEventListener('click', () => {
    if (open) {
      open.page++;
      run(null, () => loadDeliveries(true));
    }
  });
  $('add-form').addEventListener('submit', (e) => {
    e.preventDefault();
    run((e as SubmitEvent).submitter || null, () => addEndpoint(e.target as HTMLFormElement));
  });
  const saved = sessionStorage.getItem(KEY);
  if (saved) run(null, () => signIn(saved, true));
});

export {};
