import { signal } from '@preact/signals';

/** The screens, each at /console/<screen>[/<item>]: reachable from the nav bar and by address. */
export const screens = ['inbox', 'documents', 'manifests', 'review', 'quota', 'webhooks'] as const;
export type Screen = (typeof screens)[number];

export interface Place {
  screen: Screen;
  item: string | null;
}

function parse(path: string): Place {
  const [, , screen, item] = path.split('/');
  const known = (screens as readonly string[]).includes(screen) ? (screen as Screen) : 'inbox';
  return { screen: known, item: item ? decodeURIComponent(item) : null };
}

export const place = signal<Place>(parse(location.pathname));

export const hrefOf = (screen: Screen, item?: string | null) => `/console/${screen}${item ? `/${encodeURIComponent(item)}` : ''}`;

/** Goes to a screen: the address changes (history), the screen renders, focus moves to its heading. */
export function go(screen: Screen, item?: string | null): void {
  const href = hrefOf(screen, item);
  if (location.pathname !== href) history.pushState(null, '', href);
  place.value = { screen, item: item ?? null };
  focusHeading();
}

export function focusHeading(): void {
  requestAnimationFrame(() => document.getElementById('screen-title')?.focus());
}

addEventListener('popstate', () => {
  place.value = parse(location.pathname);
  focusHeading();
});

/** A click on an in-console link navigates without reloading (modified clicks open new tabs as usual). */
export function follow(e: MouseEvent, screen: Screen, item?: string | null): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  go(screen, item);
}
