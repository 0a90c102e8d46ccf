import { pageShell } from '../kit/page-shell';

/**
 * The dashboard's HTML shell. Static: every piece of server data is put in by app.js with
 * textContent, so nothing here is ever built from data.
 */
export const pageHtml = pageShell({
  path: '/dashboard',
  lang: 'en',
  title: 'Webhooks · Despacho',
  body: `<header class="top">
  <h1>Despacho webhooks</h1>
  <div id="who" hidden>
    <span id="account"></span>
    <a href="/console/webhooks">Back to the console</a>
    <button type="button" id="signout">Sign out</button>
  </div>
</header>
<main>
  <p id="status" role="status" aria-live="polite"></p>

  <section id="signin" class="panel" aria-labelledby="signin-h">
    <h2 id="signin-h">Sign in</h2>
    <form id="signin-form" novalidate>
      <label for="token">API token</label>
      <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" aria-describedby="token-help token-err">
      <p id="token-help" class="muted">Your token stays in this browser tab only and is forgotten when the tab closes.</p>
      <p id="token-err" class="err" hidden></p>
      <button type="submit">Sign in</button>
    </form>
  </section>

  <div id="app" hidden>
    <section aria-labelledby="subs-h">
      <div class="bar">
        <h2 id="subs-h" tabindex="-1">Subscriptions</h2>
        <button type="button" id="refresh">Refresh subscriptions</button>
      </div>
      <p id="subs-empty" class="muted" hidden>No subscriptions yet. Add an endpoint below.</p>
      <div class="scroll" id="subs-wrap">
        <table id="subs">
          <caption class="sr">Webhook subscriptions of your account</caption>
          <thead><tr>
            <th scope="col">Endpoint</th><th scope="col">Events</th><th scope="col">Health</th>
            <th scope="col">Failures</th><th scope="col">Last delivery</th><th scope="col">Active</th><th scope="col">Actions</th>
          </tr></thead>
          <tbody id="subs-body"></tbody>
        </table>
      </div>
    </section>

    <section id="deliveries" class="panel" aria-labelledby="del-h" hidden>
      <div class="bar">
        <h2 id="del-h" tabindex="-1">Deliveries</h2>
        <button type="button" id="del-refresh">Refresh deliveries</button>
        <button type="button" id="del-close">Close deliveries</button>
      </div>
      <p id="del-empty" class="muted" hidden>No deliveries yet.</p>
      <div class="scroll">
        <table id="del-table">
          <caption class="sr">Delivery log, newest first</caption>
          <thead><tr>
            <th scope="col">Event</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last result</th>
            <th scope="col">Next attempt</th><th scope="col">Created</th><th scope="col">Actions</th>
          </tr></thead>
          <tbody id="del-body"></tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Delivery pages">
        <button type="button" id="del-prev">Previous page</button>
        <span id="del-page"></span>
        <button type="button" id="del-next">Next page</button>
      </nav>
    </section>

    <section class="panel" aria-labelledby="add-h">
      <h2 id="add-h">Add endpoint</h2>
      <form id="add-form" novalidate>
        <label for="endpoint_url">Endpoint URL</label>
        <input id="endpoint_url" name="endpoint_url" type="url" inputmode="url" autocomplete="off" spellcheck="false" placeholder="https://example.com/webhooks" aria-describedby="endpoint_url-err">
        <p id="endpoint_url-err" class="err" hidden></p>
        <fieldset id="events" aria-describedby="events-err">
          <legend>Events</legend>
          <div id="event-groups"><p class="muted">Loading events…</p></div>
        </fieldset>
        <p id="events-err" class="err" hidden></p>
        <button type="submit">Add endpoint</button>
      </form>
    </section>
  </div>
</main>`,
});
