import { signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { html } from './html';
import { t } from './i18n';
import { follow, hrefOf, type Screen } from './router';

/** The status line every screen reports to (role=status, read out by screen readers). */
export const status = signal<{ text: string; error?: boolean }>({ text: '' });
export const say = (text: string, error = false) => (status.value = { text, error });

export function Link(props: { screen: Screen; item?: string | null; children: ComponentChildren; current?: boolean }) {
  return html`<a href=${hrefOf(props.screen, props.item)} aria-current=${props.current ? 'page' : undefined} onClick=${(e: MouseEvent) => follow(e, props.screen, props.item)}>${props.children}</a>`;
}

export function Title(props: { children: ComponentChildren }) {
  return html`<h1 id="screen-title" tabindex="-1">${props.children}</h1>`;
}

export function FieldError(props: { id: string; errors?: string[] }) {
  return props.errors?.length ? html`<p id=${props.id} class="err">${props.errors.join(' ')}</p>` : null;
}

export function Progress(props: { label: string; value: number }) {
  return html`<div class="progress"><span class="progress-label">${props.label}</span>
    <progress value=${props.value} max="100" aria-label=${props.label}></progress>
    <span class="progress-value">${props.value}%</span></div>`;
}

export function Pager(props: { label: string; page: number; pages?: number; onPrev?: () => void; onNext?: () => void }) {
  return html`<nav class="pager" aria-label=${props.label}>
    <button type="button" disabled=${!props.onPrev} onClick=${props.onPrev}>${t('previous')}</button>
    <span>${props.pages ? t('pageOf', { page: props.page, pages: props.pages }) : t('pageN', { page: props.page })}</span>
    <button type="button" disabled=${!props.onNext} onClick=${props.onNext}>${t('next')}</button>
  </nav>`;
}
