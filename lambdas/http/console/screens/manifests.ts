import { useEffect, useState } from 'preact/hooks';
import { html } from '../html';
import { day, lang, money, pesos, rateNumber, t, when, type MessageId } from '../i18n';
import { itemDecisionIn } from '../reasons';
import { api, canCloseBatches, messageOf, must, saveBlob, ApiError } from '../api';
import { go, place } from '../router';
import { Link, Pager, Progress, say, Title } from '../ui';
import { DeliveryProof } from './delivery-proof';

const statusLabel = (s: string) => t(`status_${s}` as MessageId);

type Batch = { account_id?: number; account_name?: string | null; manifest_id: string; batch_id: string; status: string; progress: number; summary: { total_articles: number; amount_to_pay: number; currency: string }; closed_at: string | null; created_at: string };

/** How often a batch still processing is asked for its pipeline status. */
const pollMs = 1000;

/** Manifests: the batches, one batch's live pipeline, summary, close and reopen, downloads and decision logs. */
export function ManifestsScreen() {
  const [page, setPage] = useState(1);
  // A broker (or an admin) pages every account's batches by cursor: [page 1, after page 1, ...].
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [next, setNext] = useState<string | null>(null);
  const [statusFilter, setStatusFilter] = useState('');
  const [list, setList] = useState<{ rows: Batch[]; pages?: number } | null>(null);
  const [version, setVersion] = useState(0);
  const id = place.value.item;
  const everyAccount = canCloseBatches.value;

  useEffect(() => {
    let live = true;
    const status = statusFilter ? { status: statusFilter as 'pending' | 'processing' | 'completed' | 'failed' } : {};
    const cursor = cursors[cursors.length - 1];
    const load = everyAccount
      ? must(api.value.GET('/api/v1/couriers/review/batches', { params: { query: { per_page: '15', ...status, ...(cursor ? { cursor } : {}) } } })).then((body) => {
          setNext(body.meta.next_cursor);
          return { rows: body.data as Batch[] };
        })
      : must(api.value.GET('/api/v1/couriers/manifests', { params: { query: { page: String(page), per_page: '15', ...status } } })).then((body) => ({
          rows: body.data,
          pages: body.meta.last_page,
        }));
    load.then((l) => live && setList(l)).catch((err) => say(t('error', { message: messageOf(err) }), true));
    return () => void (live = false);
  }, [page, cursors, statusFilter, version]);
  const pager = everyAccount
    ? { page: cursors.length, onPrev: cursors.length > 1 ? () => setCursors(cursors.slice(0, -1)) : undefined, onNext: next ? () => setCursors([...cursors, next]) : undefined }
    : { page, pages: list?.pages, onPrev: page > 1 ? () => setPage(page - 1) : undefined, onNext: page < (list?.pages ?? 1) ? () => setPage(page + 1) : undefined };

  const open = (e: Event) => {
    e.preventDefault();
    const value = String(new FormData(e.target as HTMLFormElement).get('batch') ?? '').trim();
    if (value) go('manifests', value);
  };

  return html`<${Title}>${t('manifestsTitle')}<//>
    <div class="row-forms">
      <form class="filters" onSubmit=${(e: Event) => e.preventDefault()} aria-label=${t('filter')}>
        <div><label for="m-status">${t('status')}</label>
          <select id="m-status" value=${statusFilter} onChange=${(e: Event) => { setStatusFilter((e.target as HTMLSelectElement).value); setPage(1); setCursors([undefined]); }}>
            ${['', 'pending', 'processing', 'completed', 'failed'].map((s) => html`<option value=${s}>${s ? statusLabel(s) : t('any')}</option>`)}
          </select></div>
      </form>
      <form class="filters" onSubmit=${open} aria-label=${t('openBatch')}>
        <div><label for="m-batch">${t('batchId')}</label><input id="m-batch" name="batch" autocomplete="off" /></div>
        <button type="submit">${t('open')}</button>
      </form>
    </div>
    <div class="split">
      <section aria-labelledby="m-list-h" class="list">
        <h2 id="m-list-h">${t('manifestsCaption')}</h2>
        ${!list ? html`<p>${t('loading')}</p>` : !list.rows.length ? html`<p class="muted">${t('nothing')}</p>` : html`
        <div class="scroll"><table>
          <thead><tr><th scope="col">${t('manifestId')}</th>${everyAccount && html`<th scope="col">${t('account')}</th>`}<th scope="col">${t('status')}</th><th scope="col">${t('progress')}</th><th scope="col">${t('products')}</th><th scope="col">${t('amountToPay')}</th><th scope="col">${t('closed')}</th><th scope="col">${t('created')}</th></tr></thead>
          <tbody>${list.rows.map((b) => html`<tr class=${b.batch_id === id ? 'selected' : ''}>
            <th scope="row"><${Link} screen="manifests" item=${b.batch_id}>${b.manifest_id}<//><br /><span class="muted small">${b.batch_id}</span></th>
            ${everyAccount && html`<td>${b.account_name ?? `#${b.account_id}`}</td>`}<td>${statusLabel(b.status)}</td><td>${b.progress}%</td><td>${b.summary.total_articles}</td><td>${money(b.summary.amount_to_pay)}</td>
            <td>${b.closed_at ? when(b.closed_at) : '—'}</td><td>${when(b.created_at)}</td></tr>`)}</tbody>
        </table></div>
        <${Pager} label=${t('manifestsCaption')} ...${pager} />`}
      </section>
      ${id && html`<${BatchDetail} key=${id} batch=${id} onChanged=${() => setVersion(version + 1)} />`}
    </div>`;
}

type Pipeline = {
  manifest_id: string;
  batch_id: string;
  status: string;
  overall_progress: number;
  pipeline_steps: { key: string; status: string; progress: number }[];
  summary: {
    total_products: number;
    regime_breakdown: { personal: number; commercial: number; prohibited: number };
    amount_to_pay: number;
    currency: string;
    amount_to_pay_ars?: number | null;
    exchange_rate?: { rate: number; date: string; source: string } | null;
    pesos_pending?: { date: string; reason: string };
  };
  error: string | null;
};

function BatchDetail(props: { batch: string; onChanged: () => void }) {
  const [p, setP] = useState<Pipeline | null>(null);
  const [closedAt, setClosedAt] = useState<string | null | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const manifest = { params: { path: { manifest: props.batch } } };

  // Polls the pipeline status while the batch processes; stops once it is completed or failed.
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const body = await must(api.value.GET('/api/v1/couriers/manifests/{manifest}/pipeline-status', manifest));
        if (!live) return;
        const next = body.data;
        setP(next);
        if (next.status !== 'completed' && next.status !== 'failed') timer = setTimeout(poll, pollMs);
        else props.onChanged();
      } catch (err) {
        if (live) say(t('error', { message: messageOf(err) }), true);
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.batch, tick]);

  // Whether it is closed: the manifest record says (the alternative interface's detail, one product).
  useEffect(() => {
    must(api.value.GET('/api/v1/manifests/{manifest}', { params: { path: { manifest: props.batch }, query: { per_page: '1' } } }))
      .then((body) => setClosedAt(body.data.manifest.closed_at))
      .catch(() => setClosedAt(null));
  }, [props.batch, tick]);

  // Closing a batch with products not yet reviewed asks first, saying how many (issue 40).
  const [unreviewed, setUnreviewed] = useState<number | null>(null);
  const askClose = async () => {
    try {
      const body = await must(api.value.GET('/api/v1/couriers/manifests/{manifest}/review', { params: { path: { manifest: props.batch }, query: { per_page: '1' } } }));
      const n = body.meta.products_awaiting ?? 0;
      if (n > 0) return setUnreviewed(n);
    } catch {
      // A batch that cannot be reviewed (not processed) has nothing awaiting review: close as asked.
    }
    await setClosed(true);
  };

  const setClosed = async (close: boolean) => {
    if (!p) return;
    setUnreviewed(null);
    try {
      const path = { params: { path: { batchId: p.batch_id } } };
      const body = await must(close ? api.value.POST('/api/v1/couriers/batches/{batchId}/close', path) : api.value.POST('/api/v1/couriers/batches/{batchId}/reopen', path));
      setClosedAt(body.data.closed_at);
      say(t(close ? 'didClose' : 'didReopen', { batch: p.batch_id }));
      props.onChanged();
    } catch (err) {
      say(err instanceof ApiError && err.status === 403 ? t('notAllowed') : t('error', { message: messageOf(err) }), true);
    }
  };

  const download = async (format: 'json' | 'csv' | 'xlsx') => {
    try {
      // The file as a Blob (openapi-fetch's parseAs), whatever its type; a big one is a redirect fetch follows.
      const answer = await api.value.GET('/api/v1/couriers/manifests/{manifest}/download', { params: { path: { manifest: props.batch }, query: { format, lang: lang.value } }, parseAs: 'blob' });
      if (!answer.response.ok || !answer.data) throw new ApiError(answer.response.status, `HTTP ${answer.response.status}`);
      saveBlob(answer.data as Blob, `manifest-${p?.manifest_id ?? props.batch}-${props.batch}.${format}`);
      say(t('done', { what: t('download', { format }) }));
    } catch (err) {
      say(t('error', { message: messageOf(err) }), true);
    }
  };

  if (!p) return html`<section class="detail"><p>${t('loading')}</p></section>`;
  const done = p.status === 'completed';
  // An AWB's page (a search result's link): its proof of delivery beside the batch.
  const awb = place.value.query.get('awb');
  return html`<section class="detail panel" aria-labelledby="b-h">
    <div class="bar"><h2 id="b-h">${p.manifest_id} · ${p.batch_id}</h2>
      <button type="button" onClick=${() => setTick(tick + 1)}>${t('refresh')}</button>
      <button type="button" onClick=${() => go('manifests')}>${t('close')}</button></div>
    <h3>${t('pipeline')}: ${statusLabel(p.status)}</h3>
    <${Progress} label=${t('progress')} value=${p.overall_progress} />
    ${p.pipeline_steps.map((s) => html`<${Progress} label=${`${t(`stage_${s.key}` as MessageId)} (${statusLabel(s.status)})`} value=${s.progress} />`)}
    ${p.error && html`<p class="err">${p.error}</p>`}
    <h3>${t('summary')}</h3>
    <dl class="facts">
      <dt>${t('products')}</dt><dd>${p.summary.total_products}</dd>
      <dt>${t('personal')}</dt><dd>${p.summary.regime_breakdown.personal}</dd>
      <dt>${t('commercial')}</dt><dd>${p.summary.regime_breakdown.commercial}</dd>
      <dt>${t('prohibited')}</dt><dd>${p.summary.regime_breakdown.prohibited}</dd>
      <dt>${t('amountToPay')}</dt><dd class="amount">${money(p.summary.amount_to_pay)}</dd>
      ${p.summary.exchange_rate && html`<dt>${t('amountToPayArs')}</dt><dd class="amount">${pesos(p.summary.amount_to_pay_ars)}</dd>
        <dt>${t('exchangeRate')}</dt><dd>${t('exchangeRateOf', { rate: rateNumber(p.summary.exchange_rate.rate), date: day(p.summary.exchange_rate.date), source: p.summary.exchange_rate.source })}</dd>`}
      ${p.summary.pesos_pending && html`<dt>${t('amountToPayArs')}</dt><dd><span role="status">${t('pesosPending', { date: day(p.summary.pesos_pending.date) })}</span></dd>`}
      <dt>${t('closed')}</dt><dd>${closedAt ? when(closedAt) : '—'}</dd>
    </dl>
    <div class="buttons">
      ${done && html`<${Link} screen="review" item=${p.batch_id}>${t('goReview')}<//>`}
      ${canCloseBatches.value && (closedAt ? html`<button type="button" onClick=${() => setClosed(false)}>${t('reopenBatch')}</button>` : html`<button type="button" onClick=${askClose}>${t('closeBatch')}</button>`)}
    </div>
    ${unreviewed !== null && html`<div class="confirm panel" role="alertdialog" aria-labelledby="close-q" aria-modal="false">
      <p id="close-q">${t('closeUnreviewed', { n: unreviewed })}</p>
      <div class="buttons"><button type="button" ref=${(el: HTMLButtonElement | null) => el?.focus()} onClick=${() => setClosed(true)}>${t('closeAnyway')}</button>
        <button type="button" onClick=${() => setUnreviewed(null)}>${t('cancel')}</button></div>
    </div>`}
    ${done && html`<h3>${t('downloads')}</h3><div class="buttons">${(['json', 'csv', 'xlsx'] as const).map((f) => html`<button type="button" onClick=${() => download(f)}>${t('download', { format: f.toUpperCase() })}</button>`)}</div>`}
    ${awb && html`<${DeliveryProof} awb=${awb} />`}
    <${DecisionLog} manifest=${p.manifest_id} batch=${p.batch_id} />
    <${ReviewLog} batch=${p.batch_id} version=${closedAt} />
  </section>`;
}

type Decision = { item_key: string; awb_number: string; decision: string; reason: string; decided_at: string };

function DecisionLog(props: { manifest: string; batch: string }) {
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<{ data: Decision[]; pages: number } | null>(null);
  useEffect(() => {
    must(api.value.GET('/api/v1/couriers/manifests/{manifest}/batches/{batch}/decisions', { params: { path: { manifest: props.manifest, batch: props.batch }, query: { page: String(page), per_page: '10' } } }))
      .then((body) => setRows({ data: body.data, pages: body.meta.last_page }))
      .catch((err) => say(t('error', { message: messageOf(err) }), true));
  }, [props.batch, page]);
  if (!rows) return null;
  return html`<section aria-labelledby="dl-h"><h3 id="dl-h">${t('decisionLog')}</h3>
    <div class="scroll" tabindex="0" role="group" aria-labelledby="dl-h"><table>
      <thead><tr><th scope="col">${t('item')}</th><th scope="col">${t('awb')}</th><th scope="col">${t('decision')}</th><th scope="col">${t('reason')}</th><th scope="col">${t('created')}</th></tr></thead>
      <tbody>${rows.data.map((d) => {
        const said = itemDecisionIn(lang.value, d.decision, d.reason);
        return html`<tr><th scope="row">${d.item_key}</th><td>${d.awb_number}</td><td>${said.decision}</td><td>${said.reason}</td><td>${when(d.decided_at)}</td></tr>`;
      })}</tbody>
    </table></div>
    <${Pager} label=${t('decisionLog')} page=${page} pages=${rows.pages} onPrev=${page > 1 ? () => setPage(page - 1) : undefined} onNext=${page < rows.pages ? () => setPage(page + 1) : undefined} />
  </section>`;
}

type ReviewDecision = { revision: number; awb_number: string; ncm_code_before: string | null; ncm_code: string; reason: string; decided_by: string; decided_at: string; customs_duty_before: number | null; customs_duty: number | null };

function ReviewLog(props: { batch: string; version: unknown }) {
  const [rows, setRows] = useState<ReviewDecision[] | null>(null);
  useEffect(() => {
    must(api.value.GET('/api/v1/couriers/manifests/{manifest}/review/decisions', { params: { path: { manifest: props.batch }, query: { per_page: '25' } } }))
      .then((body) => setRows(body.data))
      .catch(() => setRows([]));
  }, [props.batch, props.version]);
  if (!rows?.length) return null;
  // The table may scroll sideways: its box takes the focus so a keyboard can scroll it (axe: scrollable-region-focusable).
  return html`<section aria-labelledby="rl-h"><h3 id="rl-h">${t('reviewDecisions')}</h3>
    <div class="scroll" tabindex="0" role="group" aria-labelledby="rl-h"><table>
      <thead><tr><th scope="col">#</th><th scope="col">${t('awb')}</th><th scope="col">${t('ncm')}</th><th scope="col">${t('duty')}</th><th scope="col">${t('reason')}</th><th scope="col">${t('decidedBy')}</th><th scope="col">${t('created')}</th></tr></thead>
      <tbody>${rows.map((d) => html`<tr><td>${d.revision}</td><th scope="row">${d.awb_number}</th><td>${d.ncm_code_before ?? '—'} → ${d.ncm_code}</td><td>${money(d.customs_duty_before)} → ${money(d.customs_duty)}</td><td>${d.reason}</td><td>${d.decided_by}</td><td>${when(d.decided_at)}</td></tr>`)}</tbody>
    </table></div></section>`;
}
