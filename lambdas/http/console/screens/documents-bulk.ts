import { useState } from 'preact/hooks';
import { html } from '../html';
import { lang, t, type MessageId } from '../i18n';
import { api, messageOf, must, ApiError } from '../api';
import { FieldError, say } from '../ui';

type Action = 'validate' | 'validate_and_approve' | 'approve' | 'reject';

/**
 * Documents many at once (issue 40): the selected documents validated, approved, validated and
 * approved in one step, or rejected with one reason (POST /v1/transport/documents/review); the
 * status line says what happened to each kind, and names the documents refused and why.
 */
export function BulkBar(props: { ids: number[]; onDone: () => void }) {
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const act = async (action: Action, form: HTMLFormElement) => {
    const f = new FormData(form);
    const notes = String(f.get('notes') ?? '').trim() || undefined;
    const reason = String(f.get('reason') ?? '').trim() || undefined;
    if (action === 'reject' && !reason) {
      setErrors({ reason: [t('reasonNeeded')] });
      form.querySelector<HTMLInputElement>('#bulk-reason')?.focus();
      return;
    }
    try {
      const body = await must(api.value.POST('/api/v1/transport/documents/review', { body: { action, ids: props.ids, ...(action === 'reject' ? { reason } : notes ? { notes } : {}) } }));
      const d = body.data;
      // The API's message is English; the console says the refusal from the document's state.
      const refused = d.results
        .filter((r) => r.outcome === 'refused')
        .map((r) => t('bulkRefused', { id: r.id, message: lang.value === 'en' ? (r.message ?? '') : t('bulkRefusedState', { state: r.state ? t(`state_${r.state}` as MessageId).toLowerCase() : '—' }) }));
      setErrors({});
      say([t('bulkDone', { done: d.done, already: d.already, refused: d.refused, missing: d.not_found }), ...refused].join(' '), d.refused > 0);
      form.reset();
      props.onDone();
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) setErrors(err.errors);
      say(err instanceof ApiError && err.status === 403 ? t('notAllowed') : t('error', { message: messageOf(err) }), true);
    }
  };
  const button = (action: Action, label: string) =>
    html`<button type="button" disabled=${!props.ids.length} onClick=${(e: Event) => act(action, (e.target as HTMLElement).closest('form')!)}>${label}</button>`;
  return html`<form class="bulk panel" aria-label=${t('selectedN', { n: props.ids.length })} onSubmit=${(e: Event) => e.preventDefault()}>
    <p role="status">${t('selectedN', { n: props.ids.length })}</p>
    <div><label for="bulk-notes">${t('bulkNotes')}</label><input id="bulk-notes" name="notes" autocomplete="off" /></div>
    <div><label for="bulk-reason">${t('bulkReason')}</label>
      <input id="bulk-reason" name="reason" autocomplete="off" aria-invalid=${errors.reason ? 'true' : undefined} aria-describedby=${errors.reason ? 'bulk-reason-err' : undefined} />
      <${FieldError} id="bulk-reason-err" errors=${errors.reason} /></div>
    <div class="buttons">${button('validate', t('validateSelected'))}${button('validate_and_approve', t('validateAndApproveSelected'))}${button('approve', t('approveSelected'))}${button('reject', t('rejectSelected'))}</div>
    <${FieldError} id="bulk-ids-err" errors=${errors.ids} />
  </form>`;
}
