import { useEffect, useState } from 'preact/hooks';
import { html } from '../html';
import { money, t, when } from '../i18n';
import { api, canCloseBatches, messageOf, must } from '../api';
import { go } from '../router';
import { Link, Pager, say, Title } from '../ui';

type Inbox = {
  documents: { awaiting_validation: number; awaiting_approval: number; by_account: { account_id: number; account_name: string | null; awaiting_validation: number; awaiting_approval: number; oldest_at: string | null }[] };
  review: { products_awaiting: number; at_stake: number; batches_open: number; flights: number; risk_flags: number; batches_processing: number };
  flights: {
    mawb_number: string;
    oldest_at: string;
    products_awaiting: number;
    at_stake: number;
    risk_flags: number;
    batches: { batch_id: string; manifest_number: string; account_id: number; account_name: string | null; created_at: string; products: number; products_awaiting: number; at_stake: number; risk_flags: number }[];
  }[];
};

const courierOf = (r: { account_name: string | null; account_id: number }) => r.account_name ?? `#${r.account_id}`;

/**
 * The inbox (issue 40): where a broker starts. What awaits validation and approval per courier,
 * and the flights whose processed batches are not closed, oldest first, each batch with what awaits
 * review and a link to review it; the counts are the API's (GET /v1/couriers/review/inbox).
 */
export function InboxScreen() {
  const [data, setData] = useState<Inbox | null>(null);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [next, setNext] = useState<string | null>(null);
  const page = cursors.length;

  useEffect(() => {
    // A partner has no inbox across couriers: its documents are its start.
    if (!canCloseBatches.value) return go('documents');
    let live = true;
    const cursor = cursors[cursors.length - 1];
    must(api.value.GET('/api/v1/couriers/review/inbox', { params: { query: { per_page: '10', ...(cursor ? { cursor } : {}) } } }))
      .then((body) => {
        if (!live) return;
        setData(body.data);
        setNext(body.meta.next_cursor);
      })
      .catch((err) => say(t('error', { message: messageOf(err) }), true));
    return () => void (live = false);
  }, [cursors]);

  if (!data) return html`<${Title}>${t('inboxTitle')}<//><p>${t('loading')}</p>`;
  const { documents: d, review: r } = data;
  return html`<${Title}>${t('inboxTitle')}<//>
    <section class="panel" aria-labelledby="in-docs-h">
      <h2 id="in-docs-h">${t('inboxDocs')}</h2>
      <p><${Link} screen="documents">${t('inboxAwaitingValidation', { n: d.awaiting_validation })} · ${t('inboxAwaitingApproval', { n: d.awaiting_approval })}<//></p>
      ${d.by_account.length > 0 && html`<div class="scroll"><table>
        <caption>${t('inboxDocsCaption')}</caption>
        <thead><tr><th scope="col">${t('courier')}</th><th scope="col">${t('state_uploaded')}</th><th scope="col">${t('state_validated')}</th><th scope="col">${t('created')}</th></tr></thead>
        <tbody>${d.by_account.map((a) => html`<tr><th scope="row">${courierOf(a)}</th><td>${a.awaiting_validation}</td><td>${a.awaiting_approval}</td><td>${when(a.oldest_at)}</td></tr>`)}</tbody>
      </table></div>`}
    </section>
    <section class="panel" aria-labelledby="in-review-h">
      <h2 id="in-review-h">${t('inboxReview')}</h2>
      <p>${t('inboxReviewLine', { n: r.products_awaiting, batches: r.batches_open, flights: r.flights, amount: money(r.at_stake) })}
        ${r.risk_flags > 0 ? ` ${t('inboxRisk', { n: r.risk_flags })}` : ''}${r.batches_processing > 0 ? ` ${t('inboxProcessing', { n: r.batches_processing })}` : ''}</p>
      ${!data.flights.length ? html`<p class="muted">${t('nothingToDo')}</p>` : html`<div class="scroll"><table class="inbox">
        <caption>${t('inboxFlights')}</caption>
        <thead><tr><th scope="col">${t('flight')}</th><th scope="col">${t('courier')}</th><th scope="col">${t('manifestId')}</th><th scope="col">${t('awaiting')}</th><th scope="col">${t('atStake')}</th><th scope="col">${t('riskFlags')}</th><th scope="col">${t('created')}</th></tr></thead>
        <tbody>${data.flights.flatMap((f) =>
          f.batches.map((b, k) => html`<tr>
            ${k === 0 ? html`<th scope="rowgroup" rowspan=${f.batches.length}>${f.mawb_number}<br /><span class="muted">${t('awaiting')}: ${f.products_awaiting}</span></th>` : null}
            <td>${courierOf(b)}</td>
            <td><${Link} screen="manifests" item=${b.batch_id}>${b.manifest_number}<//></td>
            <td>${b.products_awaiting > 0 ? html`<${Link} screen="review" item=${b.batch_id}>${t('reviewThis', { manifest: b.manifest_number })}: ${b.products_awaiting}<//>` : '0'}</td>
            <td class="amount">${money(b.at_stake)}</td><td>${b.risk_flags}</td><td>${when(b.created_at)}</td></tr>`),
        )}</tbody>
      </table></div>
      <${Pager} label=${t('inboxFlights')} page=${page} onPrev=${page > 1 ? () => setCursors(cursors.slice(0, -1)) : undefined} onNext=${next ? () => setCursors([...cursors, next]) : undefined} />`}
    </section>`;
}
