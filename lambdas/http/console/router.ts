import { signal } from '@preact/signals';

/** The screens of the nav bar, each at /console/<screen>[/<item>]: reachable from it and by address. */
export const screens = ['inbox', 'documents', 'manifests', 'review', 'quota', 'webhooks'] as const;
/** Every screen: the nav bar's and the search's results (/console/search?q=..., opened from the top bar's field). */
export const allScreens = [...screens, 'search'] as const;
export type Screen = (typeof allScreens)[number];

/**
 * The scope each screen reads with (docs/partners/authentication.md): a token without it does
 * not see the screen in the nav bar, and its address says which scope is missing instead of
 * calling the API to be refused. A screen's actions need their own scopes; the API judges those.
 */
export const screenScopes: Record<Screen, string> = {
  inbox: 'review:read',
  documents: 'documents:read',
  manifests: 'manifests:read',
  review: 'review:read',
  quota: 'manifests:read',
  webhooks: 'webhooks:read',
  search: 'review:read',
};

export interface Place {
  screen: Screen;
  item: string | null;
  /** The address's query (`?q=...` of the search, `?awb=...` of a result's link). */
  query: URLSearchParams;
}

function parse(path: string, search = ''): Place {
  const [, , screen, item] = path.split('/');
  const known = (allScreens as readonly string[]).includes(screen) ? (screen as Screen) : 'inbox';
  return { screen: known, item: item ? decoded(item) : null, query: new URLSearchParams(search) };
}

/** A path segment decoded; one that is not valid percent-encoding (`%E0`) names no item, so the screen opens on its list. */
function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export const place = signal<Place>(parse(location.pathname, location.search));

/** Goes to a console address with its query (a search, a search result's link). */
export function goTo(href: string): void {
  const url = new URL(href, location.origin);
  if (location.pathname + location.search !== url.pathname + url.search) history.pushState(null, '', url.pathname + url.search);
  place.value = parse(url.pathname, url.search);
  focusHeading();
}

/** A click on a link to a console address with a query navigates without reloading. */
export function followHref(e: MouseEvent, href: string): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  goTo(href);
}

export const hrefOf = (screen: Screen, item?: string | null) => `/console/${screen}${item ? `/${encodeURIComponent(item)}` : ''}`;

/** Goes to a screen: the address changes (history), the screen renders, focus moves to its heading. */
export function go(screen: Screen, item?: string | null): void {
  const href = hrefOf(screen, item);
  if (location.pathname !== href) history.pushState(null, '', href);
  place.value = { screen, item: item ?? null, query: new URLSearchParams() };
  focusHeading();
}

export function focusHeading(): void {
  requestAnimationFrame(() => document.getElementById('screen-title')?.focus());
}

addEventListener('popstate', () => {
  place.value = parse(location.pathname, location.search);
  focusHeading();
});

/** A click on an in-console link navigates without reloading (modified clicks open new tabs as usual). */
export function follow(e: MouseEvent, screen: Screen, item?: string | null): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  go(screen, item);
}
