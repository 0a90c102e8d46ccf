import { useState } from 'preact/hooks';
import { html } from '../html';
import { t, when, type MessageId } from '../i18n';
import { api, messageOf, must, ApiError } from '../api';
import { go, place } from '../router';
import { FieldError, Link, say, Title } from '../ui';

type Answer = {
  tax_id: string;
  tax_id_formatted: string;
  year: number;
  limit: number;
  used: number;
  remaining: number;
  others: number;
  shipments: { awb_number: string; account_id: number; batches: { batch_id: string; manifest_number: string; status: string; closed_at: string | null; created_at: string }[] }[];
};

/** Quota: a tax id's personal shipments of the year and the batches that used them. */
export function QuotaScreen() {
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [year, setYear] = useState(String(new Date().getFullYear()));
  const taxId = place.value.item;

  const load = async (id: string, y: string) => {
    try {
      const body = await must(api.value.GET('/api/v1/couriers/quota/{tax_id}/shipments', { params: { path: { tax_id: id }, query: { year: y } } }));
      setAnswer(body.data);
      setErrors({});
    } catch (err) {
      setAnswer(null);
      if (err instanceof ApiError && Object.keys(err.errors).length) setErrors(err.errors);
      say(t('error', { message: messageOf(err) }), true);
    }
  };
  const [loaded, setLoaded] = useState<string | null>(null);
  if (taxId && loaded !== `${taxId}|${year}`) {
    setLoaded(`${taxId}|${year}`);
    void load(taxId, year);
  }

  const submit = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const id = String(f.get('tax_id') ?? '').replace(/\D/g, '');
    setYear(String(f.get('year') ?? year));
    go('quota', id || null);
    if (!id) setErrors({ tax_id: [t('tokenEmpty').replace('token', 'CUIT')] });
  };

  return html`<${Title}>${t('quotaTitle')}<//>
    <form class="filters" onSubmit=${submit} novalidate aria-label=${t('search')}>
      <div><label for="q-tax">${t('taxId')}</label>
        <input id="q-tax" name="tax_id" inputmode="numeric" autocomplete="off" defaultValue=${taxId ?? ''} aria-invalid=${errors.tax_id ? 'true' : undefined} aria-describedby=${errors.tax_id ? 'q-tax-err' : undefined} />
        <${FieldError} id="q-tax-err" errors=${errors.tax_id} /></div>
      <div><label for="q-year">${t('year')}</label><input id="q-year" name="year" inputmode="numeric" defaultValue=${year} size="6" /></div>
      <button type="submit">${t('search')}</button>
    </form>
    ${answer && html`<section aria-labelledby="q-h">
      <h2 id="q-h">${answer.tax_id_formatted}</h2>
      <p class="amount">${t('quotaUsed', { used: answer.used, limit: answer.limit, year: answer.year, remaining: answer.remaining })}</p>
      ${answer.others > 0 && html`<p class="muted">${t('quotaOthers', { n: answer.others })}</p>`}
      ${answer.shipments.length > 0 && html`<div class="scroll"><table>
        <caption>${t('quotaCaption')}</caption>
        <thead><tr><th scope="col">${t('awb')}</th><th scope="col">${t('account')}</th><th scope="col">${t('batches')}</th></tr></thead>
        <tbody>${answer.shipments.map((s) => html`<tr><th scope="row">${s.awb_number}</th><td>${s.account_id}</td>
          <td><ul class="reasons">${s.batches.map((b) => html`<li><${Link} screen="manifests" item=${b.batch_id}>${b.manifest_number} (${b.batch_id})<//> · ${t(`status_${b.status}` as MessageId)}${b.closed_at ? ` · ${t('closed')} ${when(b.closed_at)}` : ''}</li>`)}</ul></td></tr>`)}</tbody>
      </table></div>`}
    </section>`}`;
}
