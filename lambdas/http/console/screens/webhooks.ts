import { useEffect, useState } from 'preact/hooks';
import { html } from '../html';
import { t, when, type MessageId } from '../i18n';
import { api, messageOf, must } from '../api';
import { say, Title } from '../ui';

type Sub = { id: number; endpoint_url: string; events: string[]; active: boolean; health_status: string; consecutive_failures: number; last_delivery_at: string | null };

/**
 * Webhooks: the account's subscriptions at a glance, and the webhook dashboard (/dashboard), where
 * they are managed, one link away; the console signs the dashboard in with the same token.
 */
export function WebhooksScreen() {
  const [subs, setSubs] = useState<Sub[] | null>(null);
  useEffect(() => {
    must(api.value.GET('/api/webhook-subscriptions'))
      .then((body) => setSubs(body.data))
      .catch((err) => (setSubs([]), say(t('error', { message: messageOf(err) }), true)));
  }, []);
  return html`<${Title}>${t('webhooksTitle')}<//>
    <p>${t('webhooksIntro')}</p>
    <p><a class="button" href="/dashboard">${t('openDashboard')}</a></p>
    ${!subs ? html`<p>${t('loading')}</p>` : !subs.length ? html`<p class="muted">${t('nothing')}</p>` : html`
    <div class="scroll"><table>
      <caption>${t('subsCaption')}</caption>
      <thead><tr><th scope="col">${t('endpoint')}</th><th scope="col">${t('events')}</th><th scope="col">${t('health')}</th><th scope="col">${t('active')}</th><th scope="col">${t('lastDelivery')}</th></tr></thead>
      <tbody>${subs.map((s) => html`<tr><th scope="row">${s.endpoint_url}</th><td>${s.events.join(', ')}</td><td>${t(`health_${s.health_status}` as MessageId)}${s.consecutive_failures ? ` (${s.consecutive_failures})` : ''}</td><td>${s.active ? t('yes') : t('no')}</td><td>${when(s.last_delivery_at)}</td></tr>`)}</tbody>
    </table></div>`}`;
}
