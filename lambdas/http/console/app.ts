/**
 * The console (issue 33): one page for the broker's staff and the partners, Preact + htm +
 * signals, calling the API only through the typed client. Screens: Documents, Manifests, Review,
 * Quota, Webhooks, each at /console/<screen>, and the top bar's search (/console/search?q=...,
 * the broker's and the admin's). What shows and what is allowed follows the token's
 * role, as the API decides it (a refused action answers 403 all the same).
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html';
import { lang, setLang, t } from './i18n';
import { api, canCloseBatches, me, messageOf, must, remember, rememberMe, token, ApiError } from './api';
import { focusHeading, place, screens, screenScopes, type Screen } from './router';
import { Link, say, status } from './ui';
import { InboxScreen } from './screens/inbox';
import { DocumentsScreen } from './screens/documents';
import { ManifestsScreen } from './screens/manifests';
import { ReviewScreen } from './screens/review';
import { QuotaScreen } from './screens/quota';
import { WebhooksScreen } from './screens/webhooks';
import { SearchField, SearchScreen } from './screens/search';

async function loadMe(): Promise<boolean> {
  const asked = token.value;
  try {
    const body = await must(api.value.GET('/api/v1/me'));
    // Signed out (or in as another) while it was asked: this answer is not the caller's any more.
    if (token.value !== asked) return false;
    rememberMe(body.data);
    return true;
  } catch (err) {
    if (token.value !== asked) return false;
    if (err instanceof ApiError && err.status === 401) remember(null);
    else say(t('error', { message: messageOf(err) }), true);
    return false;
  }
}

function SignIn() {
  const [error, setError] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const value = input.current?.value.trim() ?? '';
    if (!value) {
      setError(t('tokenEmpty'));
      input.current?.focus();
      return;
    }
    remember(value);
    if (await loadMe()) {
      setError('');
      say(t('signedInAs', { name: me.value!.account.name, role: t(`role_${me.value!.token.role}`) }));
      focusHeading();
    } else {
      remember(null);
      setError(t('tokenRefused'));
      input.current?.focus();
    }
  };
  return html`<main id="main" class="signin">
    <h1 id="screen-title" tabindex="-1">${t('appName')}</h1>
    <form class="panel" onSubmit=${submit} novalidate>
      <label for="token">${t('token')}</label>
      <input id="token" ref=${input} type="password" autocomplete="off" spellcheck=${false} aria-describedby=${error ? 'token-help token-err' : 'token-help'} aria-invalid=${error ? 'true' : undefined} />
      <p id="token-help" class="muted">${t('tokenHelp')}</p>
      ${error && html`<p id="token-err" class="err">${error}</p>`}
      <button type="submit">${t('signIn')}</button>
    </form>
  </main>`;
}

const screenViews: Record<Screen, () => unknown> = {
  inbox: InboxScreen,
  documents: DocumentsScreen,
  manifests: ManifestsScreen,
  review: ReviewScreen,
  quota: QuotaScreen,
  webhooks: WebhooksScreen,
  search: SearchScreen,
};

/** A screen the token has no scope for: which one it lacks, instead of a call the API refuses. */
function Lacking() {
  const screen = place.value.screen;
  return html`<h1 id="screen-title" tabindex="-1">${t(screen)}</h1>
    <p class="panel err">${t('lacksScope', { scopes: screenScopes[screen] })}</p>`;
}

function LangSwitch() {
  return html`<button type="button" class="link" lang=${lang.value === 'es' ? 'en' : 'es'} aria-label=${t('switchLangLabel')} onClick=${() => setLang(lang.value === 'es' ? 'en' : 'es')}>${t('switchLang')}</button>`;
}

function Shell() {
  const here = place.value;
  // The status line tells what the last action did on this screen; another screen starts clear.
  const shown = useRef(here.screen);
  useEffect(() => {
    if (shown.current !== here.screen) say('');
    shown.current = here.screen;
  }, [here.screen]);
  const who = me.value!;
  const holds = (s: Screen) => who.token.scopes.includes(screenScopes[s]);
  const View = (holds(here.screen) ? screenViews[here.screen] : Lacking) as () => ReturnType<typeof html>;
  return html`
    <a class="skip" href="#main">${t('skip')}</a>
    <header class="top">
      <p class="brand">${t('appName')}</p>
      <nav aria-label=${t('mainNav')}>
        <ul>${screens.filter((s) => (s !== 'inbox' || canCloseBatches.value) && holds(s)).map((s) => html`<li><${Link} screen=${s} current=${s === here.screen}>${t(s)}<//></li>`)}</ul>
      </nav>
      ${who.token.role !== 'partner' && holds('search') && html`<${SearchField} />`}
      <div class="who">
        <span>${who.account.name} · ${t(`role_${who.token.role}`)}</span>
        <${LangSwitch} />
        <button type="button" onClick=${() => { remember(null); say(''); }}>${t('signOut')}</button>
      </div>
    </header>
    <p class=${status.value.error ? 'status err' : 'status'} role="status" aria-live="polite">${status.value.text}</p>
    <main id="main" tabindex="-1"><${View} key=${here.screen} /></main>`;
}

function App() {
  // With the caller kept from sign-in, the screen renders at once and /v1/me is asked beside it
  // (a revoked token signs out when it answers 401); without it, the screen waits for /v1/me.
  const [ready, setReady] = useState(!token.value || Boolean(me.value));
  useEffect(() => {
    if (token.value) void loadMe().then(() => setReady(true));
  }, []);
  if (!ready) return html`<p class="status" role="status">${t('loading')}</p>`;
  return html`${me.value ? html`<${Shell} />` : html`<div class="signin-top"><${LangSwitch} /></div><${SignIn} />`}`;
}

render(html`<${App} />`, document.getElementById('root')!);
