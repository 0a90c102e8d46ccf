import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html';
import { lang, money, pesos, reason, sourceLabel, t, type MessageId } from '../i18n';
import { api, isBroker, messageOf, must, ApiError } from '../api';
import { go, place } from '../router';
import { FieldError, Link, Pager, say, Title } from '../ui';
import { ReviewGroups } from './review-groups';
import { NcmPicker, type NcmCandidate } from '../ncm-picker';

type Candidate = NcmCandidate & { score: number };
type Row = {
  awb_number: string;
  item_key: string;
  description: string | null;
  ncm_code: string | null;
  classification_confidence: number | null;
  classification_source: string | null;
  classification_evidence: string | null;
  customs_channel: 'V' | 'A' | 'RO' | null;
  customs_duty: number | null;
  /** In pesos at the batch's rate; null while the batch waits for it (issue 44). */
  customs_duty_ars?: number | null;
  amount_to_pay: number | null;
  reasons: string[];
  review_causes: ('channel_a' | 'channel_ro' | 'low_confidence' | 'risk')[];
  /** The risk rules that flag the product (issue 40, item 5): each with its reason and norm. */
  risk_flags?: { code: string; reason: string; reason_en: string; norm: string }[];
  declared_code: string | null;
  candidates: Candidate[];
  review?: { decided_by: string; reason: string };
};
type Meta = { next_cursor: string | null; review_threshold: number; batch_id: string; manifest_number: string; closed_at: string | null; account_name: string | null };

/** Rows a page shows: a 10,000-item batch is read a page at a time (the API's cursor). */
const perPage = 25;

/** Review: one batch's products in channel A or RO or below the review threshold, and the broker's NCM decision. */
export function ReviewScreen() {
  const batch = place.value.item;
  const open = (e: Event) => {
    e.preventDefault();
    const value = String(new FormData(e.target as HTMLFormElement).get('batch') ?? '').trim();
    if (value) go('review', value);
  };
  return html`<${Title}>${t('reviewTitle')}<//>
    <form class="filters" onSubmit=${open} aria-label=${t('openBatch')}>
      <div><label for="r-batch">${t('batchId')}</label><input id="r-batch" name="batch" autocomplete="off" defaultValue=${batch ?? ''} /></div>
      <button type="submit">${t('open')}</button>
    </form>
    ${batch ? html`<${Queue} key=${batch} batch=${batch} />` : html`<p class="muted">${t('chooseBatch')}</p>`}`;
}

function Queue(props: { batch: string }) {
  // The cursors of the pages seen: [undefined (page 1), after page 1, after page 2, ...].
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [rows, setRows] = useState<Row[] | null>(null);
  const [meta, setMeta] = useState<Meta | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const page = cursors.length;
  // After a decision the page is read again: the next row to review (the one after the decided row,
  // or the one that took its place when it left the queue) opens its editor with focus on its NCM
  // field, so a broker goes on from the keyboard; the heading when none is left, never the top of
  // the document.
  const focusAfter = useRef<{ key: string; index: number } | null>(null);
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    const after = focusAfter.current;
    if (after === null || !rows) return;
    focusAfter.current = null;
    const stayed = rows.findIndex((x) => x.item_key === after.key);
    const at = stayed >= 0 ? stayed + 1 : after.index;
    const next = rows[at];
    if (next) setEditing(next.item_key);
    else section.current?.querySelector<HTMLElement>('#q-h')?.focus();
  }, [rows]);

  useEffect(() => {
    let live = true;
    const cursor = cursors[cursors.length - 1];
    must(api.value.GET('/api/v1/couriers/manifests/{manifest}/review', { params: { path: { manifest: props.batch }, query: { per_page: String(perPage), ...(cursor ? { cursor } : {}) } } }))
      .then((body) => {
        if (!live) return;
        setRows(body.data);
        setMeta(body.meta);
      })
      .catch((err) => live && (setRows([]), say(t('error', { message: messageOf(err) }), true)));
    return () => void (live = false);
  }, [props.batch, cursors, version]);

  if (!rows || !meta) return html`<p>${t('loading')}</p>`;
  return html`<section aria-labelledby="q-h" ref=${section}>
    <h2 id="q-h" tabIndex="-1">${meta.manifest_number}${meta.account_name ? ` · ${meta.account_name}` : ''} · ${meta.batch_id}</h2>
    <p>${t('reviewIntro', { threshold: meta.review_threshold })} <${Link} screen="manifests" item=${meta.batch_id}>${t('manifests')}<//></p>
    <${ReviewGroups} batch=${meta.batch_id} version=${version} onDecided=${() => setVersion(version + 1)} />
    ${!rows.length ? html`<p class="muted">${t('noneToReview')}</p>` : html`
    <div class="scroll"><table class="review">
      <caption>${t('reviewCaption')}</caption>
      <thead><tr><th scope="col">${t('awb')}</th><th scope="col">${t('description')}</th><th scope="col">${t('declared')}</th><th scope="col">${t('ncm')}</th><th scope="col">${t('confidence')}</th><th scope="col">${t('channel')}</th><th scope="col">${t('duty')}</th><th scope="col">${t('reasons')}</th><th scope="col">${t('candidates')}</th>${isBroker.value && html`<th scope="col">${t('actions')}</th>`}</tr></thead>
      <tbody>${rows.map((r) => html`<tr>
        <th scope="row">${r.awb_number}<br /><span class="muted small">${r.item_key}</span></th>
        <td>${r.description ?? '—'}</td>
        <td>${r.declared_code ?? '—'}</td>
        <td>${r.ncm_code ?? '—'}<br /><span class="muted small">${sourceLabel(r.classification_source)}</span></td>
        <td>${r.classification_confidence ?? '—'}</td>
        <td><span class=${`pill ch-${r.customs_channel ?? 'none'}`}>${r.customs_channel ?? '—'}</span></td>
        <td>${money(r.customs_duty)}${r.customs_duty_ars !== null && r.customs_duty_ars !== undefined && html`<br /><span class="muted small">${pesos(r.customs_duty_ars)}</span>`}</td>
        <td><ul class="reasons">${r.review_causes.map((c) => html`<li><strong>${t(`cause_${c}` as MessageId)}</strong></li>`)}${(r.risk_flags ?? []).map((f) => html`<li class="risk">${t('riskFlag')}: ${lang.value === 'es' ? f.reason : f.reason_en} <small>(${f.norm})</small></li>`)}${r.classification_evidence && html`<li class="evidence">${t('evidence')}: ${reason(r.classification_evidence, meta.review_threshold)}</li>`}${r.reasons.filter((x) => !x.startsWith('low-confidence:')).map((x) => html`<li>${reason(x, meta.review_threshold)}</li>`)}${r.review && html`<li>${t('reviewed', { by: r.review.decided_by })}: ${r.review.reason}</li>`}</ul></td>
        <td><ul class="reasons">${r.candidates.map((c) => html`<li>${c.ncm_code} · ${t('dutyRate', { rate: c.duty_rate })} · ${c.description}</li>`)}</ul></td>
        ${isBroker.value && html`<td><button type="button" aria-expanded=${editing === r.item_key} aria-label=${t('correctFor', { awb: r.awb_number })} onClick=${() => setEditing(editing === r.item_key ? null : r.item_key)}>${t('correct')}</button></td>`}
      </tr>${editing === r.item_key && html`<tr class="editor"><td colspan="10"><${Correct} key=${r.item_key} n=${rows.indexOf(r)} batch=${meta.batch_id} row=${r} onDone=${() => { focusAfter.current = { key: r.item_key, index: rows.indexOf(r) }; setEditing(null); setVersion(version + 1); }} onCancel=${() => setEditing(null)} /></td></tr>`}`)}</tbody>
    </table></div>`}
    <${Pager} label=${t('reviewCaption')} page=${page}
      onPrev=${page > 1 ? () => setCursors(cursors.slice(0, -1)) : undefined}
      onNext=${meta.next_cursor ? () => setCursors([...cursors, meta.next_cursor!]) : undefined} />
  </section>`;
}

function Correct(props: { n: number; batch: string; row: Row; onDone: () => void; onCancel: () => void }) {
  const r = props.row;
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const first = useRef<HTMLInputElement>(null);
  const reasonRef = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const ncm = String(f.get('ncm_code') ?? '').trim();
    const reason = String(f.get('reason') ?? '').trim();
    try {
      const body = await must(
        api.value.PUT('/api/v1/couriers/manifests/{manifest}/products/{awb}/classification', {
          params: { path: { manifest: props.batch, awb: r.awb_number } },
          body: { ncm_code: ncm, reason, item_key: r.item_key },
        }),
      );
      const d = body.data;
      say(t('corrected', { awb: r.awb_number, ncm: d.product.ncm_code ?? '', before: money(d.before?.customs_duty ?? r.customs_duty), after: money(d.product.customs_duty), channel: d.product.customs_channel ?? '' }));
      props.onDone();
    } catch (err) {
      if (err instanceof ApiError && Object.keys(err.errors).length) setErrors(err.errors);
      say(err instanceof ApiError && err.status === 403 ? t('notAllowed') : t('error', { message: messageOf(err) }), true);
    }
  };
  const id = (k: string) => `c${props.n}-${k}`;
  return html`<form class="correct" onSubmit=${submit} novalidate aria-label=${t('correctFor', { awb: r.awb_number })}>
    <div class="ncm-field"><label for=${id('ncm')}>${t('newNcm')}</label>
      <${NcmPicker} id=${id('ncm')} label=${t('newNcm')} inputRef=${first} candidates=${r.candidates} current=${{ ncm_code: r.ncm_code, evidence: r.classification_evidence }}
        defaultValue=${r.ncm_code ?? ''} errors=${errors.ncm_code} errorId=${id('ncm-err')} next=${() => reasonRef.current?.focus()} />
      <${FieldError} id=${id('ncm-err')} errors=${errors.ncm_code} /></div>
    <div class="grow"><label for=${id('reason')}>${t('reason')}</label>
      <input id=${id('reason')} ref=${reasonRef} name="reason" autocomplete="off" aria-invalid=${errors.reason ? 'true' : undefined} aria-describedby=${errors.reason ? id('reason-err') : undefined} />
      <${FieldError} id=${id('reason-err')} errors=${errors.reason} /></div>
    <${FieldError} id=${id('item-err')} errors=${errors.item_key} />
    <div class="buttons"><button type="submit">${t('save')}</button><button type="button" onClick=${props.onCancel}>${t('cancel')}</button></div>
  </form>`;
}
