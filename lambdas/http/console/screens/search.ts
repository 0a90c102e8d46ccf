import { useEffect, useState } from 'preact/hooks';
import { html } from '../html';
import { t, type MessageId } from '../i18n';
import { api, messageOf, must } from '../api';
import { followHref, goTo, place } from '../router';
import { say, Title } from '../ui';

/** The groups of the search's answer, in the order the screen shows them. */
const groups = ['batches', 'awbs', 'tax_ids', 'consignees', 'products', 'documents'] as const;
type GroupName = (typeof groups)[number];

interface Result {
  kind: string;
  value: string;
  link: string;
  account_name: string | null;
  account_id: number;
  manifest_number: string | null;
  batch_id: string | null;
  mawb_number?: string | null;
  awb_number?: string | null;
  tax_id?: string | null;
  consignee_name?: string | null;
  description?: string | null;
  file_name?: string;
  document_type?: string | null;
  status?: string | null;
}
type Answer = Record<GroupName, { results: Result[]; more: boolean }>;

/** The top bar's search field: opens /console/search?q=... (issue 40). */
export function SearchField() {
  const q = place.value.screen === 'search' ? (place.value.query.get('q') ?? '') : '';
  const submit = (e: Event) => {
    e.preventDefault();
    const value = String(new FormData(e.target as HTMLFormElement).get('q') ?? '').trim();
    if (value) goTo(`/console/search?q=${encodeURIComponent(value)}`);
  };
  return html`<form class="top-search" role="search" onSubmit=${submit}>
    <label class="visually-hidden" for="top-q">${t('searchLabel')}</label>
    <input id="top-q" name="q" type="search" key=${q} defaultValue=${q} maxlength="200" autocomplete="off" placeholder=${t('searchPlaceholder')} />
    <button type="submit">${t('search')}</button>
  </form>`;
}

/** What a result says beside its value: where it sits and whose it is. */
function detailOf(r: Result): string {
  const parts = [
    r.kind === 'batch' ? r.mawb_number : null,
    r.kind === 'taxid' || r.kind === 'awb' || r.kind === 'product' ? r.consignee_name : null,
    r.kind === 'consignee' ? r.tax_id : null,
    r.kind !== 'batch' && r.awb_number && r.awb_number !== r.value ? `AWB ${r.awb_number}` : null,
    r.kind === 'document' && r.document_type ? t(`type_${r.document_type}` as MessageId) : null,
    r.kind !== 'batch' ? r.manifest_number : null,
    r.account_name ?? String(r.account_id),
  ];
  return parts.filter(Boolean).join(' · ');
}

/** Search: the results of the top bar's field, grouped by kind, each a link to the screen that shows it. */
export function SearchScreen() {
  const q = place.value.query.get('q')?.trim() ?? '';
  const [answer, setAnswer] = useState<{ q: string; data: Answer } | null>(null);
  useEffect(() => {
    if (!q) return;
    let live = true;
    void (async () => {
      try {
        const body = await must(api.value.GET('/api/v1/couriers/review/search', { params: { query: { q } } }));
        if (!live) return;
        setAnswer({ q, data: body.data as Answer });
        const n = groups.reduce((sum, g) => sum + body.data[g].results.length, 0);
        say(n ? t('searchFound', { n }) : t('searchNone', { q }));
      } catch (err) {
        if (live) say(t('error', { message: messageOf(err) }), true);
      }
    })();
    return () => {
      live = false;
    };
  }, [q]);

  const data = answer?.q === q ? answer.data : null;
  return html`<${Title}>${q ? t('searchFor', { q }) : t('searchTitle')}<//>
    ${!q && html`<p class="muted">${t('searchEmpty')}</p>`}
    ${data &&
    groups
      .filter((g) => data[g].results.length > 0)
      .map(
        (g) => html`<section class="search-group" aria-labelledby=${`sg-${g}`}>
          <h2 id=${`sg-${g}`}>${t(`group_${g}` as MessageId)} <span class="muted">(${data[g].results.length}${data[g].more ? '+' : ''})</span></h2>
          <ul class="search-results">
            ${data[g].results.map(
              (r) => html`<li><a href=${r.link} onClick=${(e: MouseEvent) => followHref(e, r.link)}>${r.kind === 'document' ? (r.file_name ?? r.value) : r.value}</a>
                <span class="muted"> ${detailOf(r)}</span></li>`,
            )}
          </ul>
          ${data[g].more && html`<p class="muted">${t('searchMore')}</p>`}
        </section>`,
      )}`;
}
