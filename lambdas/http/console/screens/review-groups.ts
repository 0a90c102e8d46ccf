import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html';
import { money, t } from '../i18n';
import { api, isBroker, messageOf, must, ApiError } from '../api';
import { FieldError, Pager, say } from '../ui';
import { NcmPicker, type NcmCandidate } from '../ncm-picker';

type Group = {
  group_id: string;
  description: string | null;
  declared_code: string | null;
  products: number;
  awbs: number;
  amount_to_pay: number;
  ncm_codes: { ncm_code: string; products: number }[];
  candidates: NcmCandidate[];
};

/**
 * The review's groups (issue 40): products awaiting review with the same normalized description and
 * declared code, largest first; a broker decides a whole group with one NCM and one reason, and the
 * status line says how many changed and what moved. `onDecided` reads the queue again.
 */
export function ReviewGroups(props: { batch: string; version: number; onDecided: () => void }) {
  const [groups, setGroups] = useState<Group[] | null>(null);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [next, setNext] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, Record<string, string[]>>>({});
  const page = cursors.length;
  // After a decision the groups are read again: focus goes to the NCM field of the group that took
  // the decided one's place (or the last one), or to the products' heading when no group is left.
  const focusAfter = useRef<number | null>(null);
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    const at = focusAfter.current;
    if (at === null || !groups) return;
    focusAfter.current = null;
    const fields = section.current?.querySelectorAll<HTMLInputElement>('input[role="combobox"]') ?? [];
    const next = fields[Math.min(at, fields.length - 1)];
    if (next) next.focus();
    else document.getElementById('q-h')?.focus();
  }, [groups]);

  useEffect(() => {
    let live = true;
    const cursor = cursors[cursors.length - 1];
    must(api.value.GET('/api/v1/couriers/manifests/{manifest}/review/groups', { params: { path: { manifest: props.batch }, query: { per_page: '10', ...(cursor ? { cursor } : {}) } } }))
      .then((body) => {
        if (!live) return;
        // A group of one is its product's row below: only groups of two or more are decided here.
        setGroups(body.data.filter((g) => g.products > 1));
        setNext(body.meta.next_cursor);
      })
      .catch(() => live && setGroups([]));
    return () => void (live = false);
  }, [props.batch, props.version, cursors]);

  const decide = async (e: Event, g: Group) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    try {
      const body = await must(
        api.value.PUT('/api/v1/couriers/manifests/{manifest}/review/groups/{group}/classification', {
          params: { path: { manifest: props.batch, group: g.group_id } },
          body: { ncm_code: String(f.get('ncm_code') ?? '').trim(), reason: String(f.get('reason') ?? '').trim() },
        }),
      );
      const d = body.data;
      setErrors({ ...errors, [g.group_id]: {} });
      focusAfter.current = groups?.indexOf(g) ?? 0;
      say(d.changed ? t('groupDecided', { changed: d.changed, ncm: d.ncm_code ?? '', left: d.left_review, duty: money(d.customs_duty_moved), amount: money(d.amount_to_pay_moved) }) : t('groupAlready'));
      props.onDecided();
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) setErrors({ ...errors, [g.group_id]: err.errors });
      say(err instanceof ApiError && err.status === 403 ? t('notAllowed') : t('error', { message: messageOf(err) }), true);
    }
  };

  if (!groups?.length) return null;
  return html`<section class="panel" aria-labelledby="groups-h" ref=${section}>
    <h2 id="groups-h">${t('groupsTitle')}</h2>
    <p class="muted">${t('groupsIntro')}</p>
    <ul class="groups">${groups.map((g) => {
      const id = `g-${g.group_id}`;
      const err = errors[g.group_id] ?? {};
      return html`<li key=${g.group_id}>
        <p><strong>${g.description ?? '—'}</strong> · ${t('groupProducts', { n: g.products, awbs: g.awbs })} · ${money(g.amount_to_pay)}${g.declared_code ? ` · ${t('declaredIs', { code: g.declared_code })}` : ''}
          ${g.ncm_codes.length ? html`<br /><span class="muted">NCM: ${g.ncm_codes.map((c) => `${c.ncm_code} (${c.products})`).join(', ')}</span>` : null}</p>
        ${isBroker.value && html`<form class="decide" onSubmit=${(e: Event) => decide(e, g)} aria-label=${`${t('decideGroup')}: ${g.description ?? ''}`}>
          <div class="ncm-field"><label for=${`${id}-ncm`}>${t('groupNcm')}</label>
            <${NcmPicker} id=${`${id}-ncm`} label=${t('groupNcm')} candidates=${g.candidates} errors=${err.ncm_code} errorId=${`${id}-ncm-err`}
              next=${() => document.getElementById(`${id}-reason`)?.focus()} />
            <${FieldError} id=${`${id}-ncm-err`} errors=${err.ncm_code} /></div>
          <div><label for=${`${id}-reason`}>${t('groupReason')}</label>
            <input id=${`${id}-reason`} name="reason" required autocomplete="off" aria-invalid=${err.reason ? 'true' : undefined} aria-describedby=${err.reason ? `${id}-reason-err` : undefined} />
            <${FieldError} id=${`${id}-reason-err`} errors=${err.reason} /></div>
          <button type="submit">${t('decideGroup')} (${g.products})</button>
        </form>`}
      </li>`;
    })}</ul>
    ${(page > 1 || next) && html`<${Pager} label=${t('groupsTitle')} page=${page} onPrev=${page > 1 ? () => setCursors(cursors.slice(0, -1)) : undefined} onNext=${next ? () => setCursors([...cursors, next]) : undefined} />`}
  </section>`;
}
