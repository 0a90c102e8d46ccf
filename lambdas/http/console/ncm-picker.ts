import { useEffect, useRef, useState } from 'preact/hooks';
import type { Ref } from 'preact';
import { html } from './html';
import { evidenceText, percent, t } from './i18n';
import { api, must } from './api';

/** A code the classifier proposed for the product (the review's and the groups' answers): why, in `matched_words`. */
export type NcmCandidate = { ncm_code: string; description: string; duty_rate: number; vat_rate: number; matched_words: string[] };

type Option = {
  ncm_code: string;
  description: string;
  description_en?: string | null;
  duty_rate: number;
  vat_rate: number;
  /** The classifier's candidate: the words it matched. */
  matched_words?: string[];
};

/** Typing waits this long before it asks the API (one request per pause, not per key). */
const debounceMs = 200;
const limit = 20;

/** What a query is worth asking: a digit (a code prefix, at most 8 digits), or two letters of a word. */
function searchable(q: string): boolean {
  if (/^[\d.\s]+$/.test(q)) return /\d/.test(q) && q.replace(/\D/g, '').length <= 8;
  return q.replace(/[^\p{L}\p{N}]/gu, '').length >= 2;
}

/** Folded as the API folds: lower case, accents removed. */
const fold = (s: string) => s.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '');

/** A candidate meets what is typed: its code starts with the digits, or each word starts a word of its description. */
function candidateMeets(c: NcmCandidate, q: string): boolean {
  if (/^[\d.\s]+$/.test(q)) return c.ncm_code.replace(/\D/g, '').startsWith(q.replace(/\D/g, ''));
  const words = fold(c.description).split(/[^a-z0-9]+/);
  return fold(q)
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .every((w) => words.some((x) => x.startsWith(w)) || c.matched_words.some((m) => m.startsWith(w)));
}

/**
 * The NCM field of a decision as a combobox (WAI-ARIA 1.2, "combobox with listbox popup", list
 * autocomplete): the classifier's candidates first, each with why it was proposed; typing words
 * (Spanish or English) or the start of a code asks GET /v1/customs/tariff/ncm after a pause, and
 * its rows follow. Each option shows the description, "Arancel X%" and "IVA Y%" (rates, never a
 * bare percent that reads as a probability). Down and Up move (Down opens the list), Enter picks
 * and moves on to `next` (the reason field), Escape closes; the input keeps DOM focus, the active
 * option is `aria-activedescendant`.
 */
export function NcmPicker(props: {
  id: string;
  label: string;
  candidates: NcmCandidate[];
  /** The product's NCM now, with the evidence of its classification (shown on its candidate). */
  current?: { ncm_code: string | null; evidence: string | null };
  defaultValue?: string;
  errors?: string[];
  errorId?: string;
  inputRef?: Ref<HTMLInputElement>;
  /** Where focus goes once an option is picked with Enter. */
  next?: () => void;
}) {
  const { id } = props;
  const [text, setText] = useState(props.defaultValue ?? '');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [found, setFound] = useState<{ q: string; rows: Option[]; total: number } | null>(null);
  const [busy, setBusy] = useState(false);
  const [picked, setPicked] = useState<Option | null>(null);
  const asked = useRef(0);
  const listRef = useRef<HTMLUListElement>(null);

  const q = text.trim();
  const typed = q !== '' && q !== (props.defaultValue ?? '').trim();
  // Asks the API once typing pauses; an answer to an older query is dropped.
  useEffect(() => {
    if (!typed || !searchable(q)) {
      setFound(null);
      setBusy(false);
      return;
    }
    const n = ++asked.current;
    setBusy(true);
    const timer = setTimeout(() => {
      must(api.value.GET('/api/v1/customs/tariff/ncm', { params: { query: { q, limit: String(limit) } } }))
        .then((body) => n === asked.current && setFound({ q, rows: body.data, total: body.meta.total }))
        .catch(() => n === asked.current && setFound({ q, rows: [], total: 0 }))
        .finally(() => n === asked.current && setBusy(false));
    }, debounceMs);
    return () => clearTimeout(timer);
  }, [q, typed]);

  const candidates = typed ? props.candidates.filter((c) => candidateMeets(c, q)) : props.candidates;
  const shown = new Set(candidates.map((c) => c.ncm_code));
  const options: Option[] = [...candidates, ...(typed && found?.q === q ? found.rows.filter((r) => !shown.has(r.ncm_code)) : [])];
  const expanded = open && options.length > 0;
  const optionId = (k: number) => `${id}-opt-${k}`;

  useEffect(() => {
    if (active >= options.length) setActive(options.length ? options.length - 1 : -1);
  }, [options.length]);
  useEffect(() => {
    if (expanded && active >= 0) document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  }, [active, expanded]);

  const pick = (o: Option, moveOn: boolean) => {
    setText(o.ncm_code);
    setPicked(o);
    setOpen(false);
    setActive(-1);
    if (moveOn) props.next?.();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      if (!open) setOpen(true);
      if (options.length) setActive(active < 0 || active >= options.length - 1 ? 0 : active + 1);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) setOpen(true);
      if (options.length) setActive(active <= 0 ? options.length - 1 : active - 1);
    } else if (e.key === 'Enter') {
      if (expanded && active >= 0 && options[active]) {
        e.preventDefault();
        pick(options[active], true);
      }
    } else if (e.key === 'Escape') {
      if (open) {
        e.preventDefault();
        setOpen(false);
        setActive(-1);
      }
    }
  };

  const onInput = (e: Event) => {
    setText((e.target as HTMLInputElement).value);
    setPicked(null);
    setOpen(true);
    setActive(-1);
  };

  const rates = (o: Option) => `${t('dutyRateLabel', { rate: percent(o.duty_rate) })} · ${t('vatRateLabel', { rate: percent(o.vat_rate) })}`;
  const why = (o: Option) => {
    const parts: string[] = [];
    if (o.matched_words) parts.push(o.matched_words.length ? t('ncmProposedFor', { words: o.matched_words.join(', ') }) : t('ncmProposed'));
    if (props.current?.evidence && props.current.ncm_code === o.ncm_code) parts.push(t('ncmCurrentEvidence', { evidence: evidenceText(props.current.evidence) }));
    return parts;
  };
  const live =
    !open ? ''
    : busy ? t('ncmSearching')
    : typed && found?.q === q && !options.length ? t('ncmNone', { q })
    : options.length ? t('ncmCount', { n: options.length })
    : '';
  const describedBy = [`${id}-help`, picked ? `${id}-picked` : '', props.errors?.length && props.errorId ? props.errorId : ''].filter(Boolean).join(' ');

  return html`<div class="combo"><div class="combo-box">
    <input id=${id} ref=${props.inputRef} name="ncm_code" type="text" role="combobox" autocomplete="off" spellcheck=${false}
      aria-autocomplete="list" aria-expanded=${expanded ? 'true' : 'false'} aria-controls=${`${id}-list`}
      aria-activedescendant=${expanded && active >= 0 ? optionId(active) : undefined}
      aria-invalid=${props.errors?.length ? 'true' : undefined} aria-describedby=${describedBy}
      value=${text} onInput=${onInput} onKeyDown=${onKeyDown}
      onBlur=${() => setOpen(false)} onClick=${() => setOpen(!open)} />
    <ul id=${`${id}-list`} role="listbox" class="combo-list" aria-label=${t('ncmOptions')} hidden=${!expanded}>
      ${options.map(
        (o, k) => html`<li id=${optionId(k)} role="option" aria-selected=${k === active ? 'true' : 'false'} class=${k === active ? 'active' : undefined}
          onMouseDown=${(e: MouseEvent) => e.preventDefault()} onClick=${() => pick(o, true)}>
          <span class="opt-code">${o.ncm_code}</span>${o.matched_words ? html` <span class="opt-tag">${t('ncmCandidate')}</span>` : null}
          <span class="opt-desc">${o.description}${o.description_en ? html` <span class="muted">(${o.description_en})</span>` : null}</span>
          <span class="opt-rates">${rates(o)}</span>
          ${why(o).map((w) => html`<span class="opt-why">${w}</span>`)}
        </li>`,
      )}
    </ul></div>
    <p id=${`${id}-help`} class="muted small">${t('ncmHelp')}</p>
    ${picked && html`<p id=${`${id}-picked`} class="small">${t('ncmPicked', { ncm: picked.ncm_code, description: picked.description, rates: rates(picked) })}</p>`}
    <span class="visually-hidden" aria-live="polite">${live}</span>
  </div>`;
}
