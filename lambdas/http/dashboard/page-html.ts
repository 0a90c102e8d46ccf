import { pageShell } from '../kit/page-shell';

/**
 * The dashboard's HTML shell. Static: every piece of server data is put in by app.js with
 * textContent, so nothing here is ever built from data. Spanish, as the console; each text names
 * its message (`data-t`, `data-t-label`, dashboard/i18n.ts) and app.js says it in English when the
 * console's language switch chose it.
 */
export const pageHtml = pageShell({
  path: '/dashboard',
  lang: 'es',
  title: 'Webhooks de Despacho · Despacho',
  body: `<header class="top">
  <h1 data-t="title">Webhooks de Despacho</h1>
  <button type="button" id="lang" lang="en" aria-label="Switch to English" data-t="switchLang">English</button>
  <div id="who" hidden>
    <span id="account"></span>
    <a href="/console/webhooks" data-t="backToConsole">Volver a la consola</a>
    <button type="button" id="signout" data-t="signOut">Salir</button>
  </div>
</header>
<main>
  <p id="status" role="status" aria-live="polite"></p>

  <section id="signin" class="panel" aria-labelledby="signin-h">
    <h2 id="signin-h" data-t="signIn">Ingresar</h2>
    <form id="signin-form" novalidate>
      <label for="token" data-t="apiToken">Token de la API</label>
      <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" aria-describedby="token-help token-err">
      <p id="token-help" class="muted" data-t="tokenHelp">El token queda solo en esta pestaña y se olvida al cerrarla.</p>
      <p id="token-err" class="err" hidden></p>
      <button type="submit" data-t="signIn">Ingresar</button>
    </form>
  </section>

  <div id="app" hidden>
    <section aria-labelledby="subs-h">
      <div class="bar">
        <h2 id="subs-h" tabindex="-1" data-t="subscriptions">Suscripciones</h2>
        <button type="button" id="refresh" data-t="refreshSubs">Actualizar suscripciones</button>
      </div>
      <p id="subs-empty" class="muted" hidden data-t="noSubs">Todavía no hay suscripciones. Agregá un destino abajo.</p>
      <div class="scroll" id="subs-wrap">
        <table id="subs">
          <caption class="sr" data-t="subsCaption">Suscripciones de webhooks de tu cuenta</caption>
          <thead><tr>
            <th scope="col" data-t="endpoint">Destino</th><th scope="col" data-t="events">Eventos</th><th scope="col" data-t="health">Salud</th>
            <th scope="col" data-t="failures">Fallas</th><th scope="col" data-t="lastDelivery">Última entrega</th><th scope="col" data-t="active">Activa</th><th scope="col" data-t="actions">Acciones</th>
          </tr></thead>
          <tbody id="subs-body"></tbody>
        </table>
      </div>
    </section>

    <section id="deliveries" class="panel" aria-labelledby="del-h" hidden>
      <div class="bar">
        <h2 id="del-h" tabindex="-1" data-t="deliveries">Entregas</h2>
        <button type="button" id="del-refresh" data-t="refreshDeliveries">Actualizar entregas</button>
        <button type="button" id="del-close" data-t="closeDeliveries">Cerrar entregas</button>
      </div>
      <p id="del-empty" class="muted" hidden data-t="noDeliveries">Todavía no hay entregas.</p>
      <div class="scroll">
        <table id="del-table">
          <caption class="sr" data-t="deliveriesCaption">Registro de entregas, las más recientes primero</caption>
          <thead><tr>
            <th scope="col" data-t="event">Evento</th><th scope="col" data-t="state">Estado</th><th scope="col" data-t="attempts">Intentos</th><th scope="col" data-t="lastResult">Último resultado</th>
            <th scope="col" data-t="nextAttempt">Próximo intento</th><th scope="col" data-t="created">Creada</th><th scope="col" data-t="actions">Acciones</th>
          </tr></thead>
          <tbody id="del-body"></tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Páginas de entregas" data-t-label="deliveryPages">
        <button type="button" id="del-prev" data-t="previousPage">Página anterior</button>
        <span id="del-page"></span>
        <button type="button" id="del-next" data-t="nextPage">Página siguiente</button>
      </nav>
    </section>

    <section class="panel" aria-labelledby="add-h">
      <h2 id="add-h" data-t="addEndpoint">Agregar destino</h2>
      <form id="add-form" novalidate>
        <label for="endpoint_url" data-t="endpointUrl">URL del destino</label>
        <input id="endpoint_url" name="endpoint_url" type="url" inputmode="url" autocomplete="off" spellcheck="false" placeholder="https://example.com/webhooks" aria-describedby="endpoint_url-err">
        <p id="endpoint_url-err" class="err" hidden></p>
        <fieldset id="events" aria-describedby="events-err">
          <legend data-t="events">Eventos</legend>
          <div id="event-groups"><p class="muted" data-t="loadingEvents">Cargando eventos…</p></div>
        </fieldset>
        <p id="events-err" class="err" hidden></p>
        <button type="submit" data-t="addEndpoint">Agregar destino</button>
      </form>
    </section>
  </div>
</main>`,
});
