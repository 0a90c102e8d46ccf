import { useEffect, useState } from 'preact/hooks';
import { html } from '../html';
import { t, when, type MessageId } from '../i18n';
import { api, isBroker, messageOf, must, ApiError } from '../api';
import { go, place } from '../router';
import { FieldError, Link, Pager, say, Title } from '../ui';
import { BulkBar } from './documents-bulk';

const stateLabel = (s: string) => t(`state_${s}` as MessageId);
const typeLabel = (s: string) => t(`type_${s}` as MessageId);
const states = ['uploaded', 'validated', 'approved', 'rejected', 'superseded'] as const;
const types = ['awb', 'manifest', 'customs', 'delivery', 'other'] as const;

interface Filters {
  state?: (typeof states)[number];
  document_type?: (typeof types)[number];
  manifest_id?: string;
  awb_number?: string;
}

type Listed = { id: number; account_id: number; account_name: string | null; document_type: string; document_type_label: string; file_name: string; state: string; state_label: string; manifest_id: string | null; awb_number: string | null; version: number; created_at: string };

/** Documents: the queue (awaiting validation by default for a broker), filters as the API's, a document's preview, actions and history. */
export function DocumentsScreen() {
  const [filters, setFilters] = useState<Filters>(isBroker.value ? { state: 'uploaded' } : {});
  const [page, setPage] = useState(1);
  const [list, setList] = useState<{ rows: Listed[]; pages: number } | null>(null);
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<number[]>([]);
  const id = place.value.item;
  const bulk = isBroker.value;
  const toggle = (docId: number, on: boolean) => setSelected(on ? [...selected.filter((x) => x !== docId), docId] : selected.filter((x) => x !== docId));

  useEffect(() => {
    let live = true;
    must(api.value.GET('/api/v1/transport/documents', { params: { query: { ...filters, page: String(page), per_page: '15' } } }))
      .then((body) => live && (setList({ rows: body.data, pages: body.meta.last_page }), setSelected([])))
      .catch((err) => say(t('error', { message: messageOf(err) }), true));
    return () => void (live = false);
  }, [filters, page, version]);

  const submit = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const value = (k: string) => (String(f.get(k) ?? '').trim() || undefined) as never;
    setFilters({ state: value('state'), document_type: value('document_type'), manifest_id: value('manifest_id'), awb_number: value('awb_number') });
    setPage(1);
  };

  return html`<${Title}>${t('docsTitle')}<//>
    <form class="filters" onSubmit=${submit} aria-label=${t('filter')}>
      <div><label for="f-state">${t('state')}</label>
        <select id="f-state" name="state">${[html`<option value="">${t('any')}</option>`, ...states.map((s) => html`<option value=${s} selected=${filters.state === s}>${stateLabel(s)}</option>`)]}</select></div>
      <div><label for="f-type">${t('type')}</label>
        <select id="f-type" name="document_type">${[html`<option value="">${t('any')}</option>`, ...types.map((s) => html`<option value=${s} selected=${filters.document_type === s}>${typeLabel(s)}</option>`)]}</select></div>
      <div><label for="f-manifest">${t('manifestId')}</label><input id="f-manifest" name="manifest_id" defaultValue=${filters.manifest_id ?? ''} /></div>
      <div><label for="f-awb">${t('awb')}</label><input id="f-awb" name="awb_number" defaultValue=${filters.awb_number ?? ''} /></div>
      <button type="submit">${t('filter')}</button>
    </form>
    <div class="split">
      <section aria-labelledby="docs-list-h" class="list">
        <h2 id="docs-list-h">${t('docsCaption')}</h2>
        ${!list ? html`<p>${t('loading')}</p>` : !list.rows.length ? html`<p class="muted">${t('nothing')}</p>` : html`
        <div class="scroll"><table>
          <thead><tr>${bulk && html`<td><input type="checkbox" aria-label=${t('selectAllDocs')} checked=${list.rows.length > 0 && selected.length === list.rows.length} onChange=${(e: Event) => setSelected((e.target as HTMLInputElement).checked ? list.rows.map((d) => d.id) : [])} /></td>`}<th scope="col">#</th><th scope="col">${t('file')}</th>${bulk && html`<th scope="col">${t('courier')}</th>`}<th scope="col">${t('type')}</th><th scope="col">${t('state')}</th><th scope="col">${t('manifestId')}</th><th scope="col">${t('awb')}</th><th scope="col">${t('created')}</th></tr></thead>
          <tbody>${list.rows.map((d) => html`<tr class=${String(d.id) === id ? 'selected' : ''}>
            ${bulk && html`<td><input type="checkbox" aria-label=${t('selectDoc', { id: d.id })} checked=${selected.includes(d.id)} onChange=${(e: Event) => toggle(d.id, (e.target as HTMLInputElement).checked)} /></td>`}
            <td>${d.id}</td>
            <th scope="row"><${Link} screen="documents" item=${String(d.id)}>${d.file_name}<//></th>
            ${bulk && html`<td>${d.account_name ?? `#${d.account_id}`}</td>`}<td>${typeLabel(d.document_type)}</td><td><span class=${`pill ${d.state}`}>${stateLabel(d.state)}</span></td>
            <td>${d.manifest_id ?? '—'}</td><td>${d.awb_number ?? '—'}</td><td>${when(d.created_at)}</td></tr>`)}</tbody>
        </table></div>
        ${bulk && html`<${BulkBar} ids=${selected} onDone=${() => setVersion(version + 1)} />`}
        <${Pager} label=${t('docsCaption')} page=${page} pages=${list.pages} onPrev=${page > 1 ? () => setPage(page - 1) : undefined} onNext=${page < list.pages ? () => setPage(page + 1) : undefined} />`}
      </section>
      ${id && html`<${DocumentDetail} key=${id} id=${Number(id)} onChanged=${() => setVersion(version + 1)} />`}
    </div>`;
}

type Actor = { name: string; email: string | null } | null;
type Detail = Omit<Listed, 'account_id' | 'account_name'> & {
  mime_type: string;
  file_size_human: string;
  uploader: Actor;
  validator: Actor;
  approver: Actor;
  rejecter: Actor;
  validation_notes: string | null;
  approval_notes: string | null;
  validated_at: string | null;
  approved_at: string | null;
  rejection_reason: string | null;
  rejected_at: string | null;
  superseded_by: number | null;
};

/** Who did it and when, or a dash. */
const byOn = (who: Actor, at: string | null) => (who || at ? t('byOn', { who: who?.name ?? '—', when: when(at) }) : '—');
type History = { current: { id: number; version: number; state: string; created_at: string }; history: { id: number; version: number; state: string; superseded_by: number | null; supersede_reason: string | null }[] };

function DocumentDetail(props: { id: number; onChanged: () => void }) {
  const [doc, setDoc] = useState<Detail | null>(null);
  const [history, setHistory] = useState<History | null>(null);
  const [preview, setPreview] = useState<{ url: string; type: string } | null>(null);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [version, setVersion] = useState(0);
  const path = { params: { path: { id: String(props.id) } } };

  useEffect(() => {
    let live = true;
    let objectUrl: string | undefined;
    (async () => {
      try {
        const [d, h] = await Promise.all([must(api.value.GET('/api/v1/transport/documents/{id}', path)), must(api.value.GET('/api/v1/transport/documents/{id}/history', path))]);
        if (!live) return;
        setDoc(d.data);
        setHistory(h.data);
        const mime = d.data.mime_type;
        if (mime === 'application/pdf' || mime.startsWith('image/')) {
          const link = await must(api.value.GET('/api/v1/transport/documents/{id}/download', path));
          const file = await fetch((link.data as { download_url: string }).download_url);
          if (!file.ok || !live) return;
          objectUrl = URL.createObjectURL(new Blob([await file.arrayBuffer()], { type: mime }));
          setPreview({ url: objectUrl, type: mime });
        }
      } catch (err) {
        if (live) say(t('error', { message: messageOf(err) }), true);
      }
    })();
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [props.id, version]);

  const act = async (action: 'validate' | 'approve' | 'reject', form: HTMLFormElement) => {
    const f = new FormData(form);
    const text = String(f.get('note') ?? '').trim();
    if (action === 'reject' && !text) {
      setErrors({ reason: [t('reasonNeeded')] });
      (form.elements.namedItem('note') as HTMLElement).focus();
      return;
    }
    try {
      const body = action === 'reject' ? { reason: text } : text ? { notes: text } : {};
      await must(api.value.PUT(`/api/v1/transport/documents/{id}/${action}` as '/api/v1/transport/documents/{id}/validate', { ...path, body }));
      setErrors({});
      say(t(`did_${action}`, { id: props.id }));
      setVersion(version + 1);
      props.onChanged();
    } catch (err) {
      if (err instanceof ApiError && Object.keys(err.errors).length) setErrors({ reason: Object.values(err.errors).flat() });
      say(err instanceof ApiError && err.status === 403 ? t('notAllowed') : t('error', { message: messageOf(err) }), true);
    }
  };

  if (!doc) return html`<section class="detail"><p>${t('loading')}</p></section>`;
  const canAct = isBroker.value && (doc.state === 'uploaded' || doc.state === 'validated');
  return html`<section class="detail panel" aria-labelledby="doc-h">
    <div class="bar"><h2 id="doc-h">${t('details')}: ${doc.file_name}</h2>
      <button type="button" onClick=${() => go('documents')}>${t('close')}</button></div>
    <dl class="facts">
      <dt>${t('state')}</dt><dd><span class=${`pill ${doc.state}`}>${stateLabel(doc.state)}</span></dd>
      <dt>${t('type')}</dt><dd>${typeLabel(doc.document_type)}</dd>
      <dt>${t('file')}</dt><dd>${doc.mime_type}, ${doc.file_size_human}</dd>
      <dt>${t('version')}</dt><dd>${doc.version}</dd>
      <dt>${t('uploader')}</dt><dd>${byOn(doc.uploader, doc.created_at)}</dd>
      ${(doc.validator || doc.validated_at) && html`<dt>${t('validatedBy')}</dt><dd>${byOn(doc.validator, doc.validated_at)}</dd>`}
      ${doc.validation_notes && html`<dt>${t('validationNotes')}</dt><dd>${doc.validation_notes}</dd>`}
      ${(doc.approver || doc.approved_at) && html`<dt>${t('approvedBy')}</dt><dd>${byOn(doc.approver, doc.approved_at)}</dd>`}
      ${doc.approval_notes && html`<dt>${t('approvalNotes')}</dt><dd>${doc.approval_notes}</dd>`}
      ${(doc.rejecter || doc.rejected_at) && html`<dt>${t('rejectedBy')}</dt><dd>${byOn(doc.rejecter, doc.rejected_at)}</dd>`}
      ${doc.rejection_reason && html`<dt>${t('rejectionReason')}</dt><dd>${doc.rejection_reason}</dd>`}
      ${doc.superseded_by && html`<dt>${t('history')}</dt><dd><${Link} screen="documents" item=${String(doc.superseded_by)}>${t('supersededBy', { id: doc.superseded_by })}<//></dd>`}
    </dl>
    <h3>${t('preview')}</h3>
    ${preview
      ? preview.type.startsWith('image/')
        ? html`<img class="preview" src=${preview.url} alt=${t('previewOf', { name: doc.file_name })} />`
        : html`<iframe class="preview" src=${preview.url} title=${t('previewOf', { name: doc.file_name })}></iframe>
          <p><a href=${preview.url} target="_blank" rel="noopener">${t('openFile')}</a></p>`
      : html`<p class="muted">${t('noPreview')}</p>`}
    ${canAct && html`<form class="actions" onSubmit=${(e: Event) => e.preventDefault()} novalidate>
      <label for="doc-note">${t('notes')} / ${t('reason')}</label>
      <textarea id="doc-note" name="note" rows="2" aria-invalid=${errors.reason ? 'true' : undefined} aria-describedby=${errors.reason ? 'doc-note-err' : undefined}></textarea>
      <${FieldError} id="doc-note-err" errors=${errors.reason} />
      <div class="buttons">
        ${doc.state === 'uploaded' && html`<button type="button" onClick=${(e: Event) => act('validate', (e.target as HTMLElement).closest('form')!)}>${t('validate')}</button>`}
        ${doc.state === 'validated' && html`<button type="button" onClick=${(e: Event) => act('approve', (e.target as HTMLElement).closest('form')!)}>${t('approve')}</button>`}
        <button type="button" class="danger" onClick=${(e: Event) => act('reject', (e.target as HTMLElement).closest('form')!)}>${t('reject')}</button>
      </div>
    </form>`}
    <h3>${t('history')}</h3>
    ${history && html`<ol class="history">
      <li><${Link} screen="documents" item=${String(history.current.id)}>#${history.current.id}<//> v${history.current.version} · ${stateLabel(history.current.state)} · ${when(history.current.created_at)}</li>
      ${history.history.map((h) => html`<li><${Link} screen="documents" item=${String(h.id)}>#${h.id}<//> v${h.version} · ${stateLabel(h.state)}${h.superseded_by ? ` → #${h.superseded_by}` : ''}${h.supersede_reason ? ` (${h.supersede_reason})` : ''}</li>`)}
    </ol>`}
  </section>`;
}
