import { createDespachoClient, type DespachoClient } from '../../../clients/typescript/index';
import { signal, computed } from '@preact/signals';
import { errorMessageEs, fieldErrorsEs } from './api-errors';
import { lang } from './i18n';

/**
 * The console calls the API only through the typed client (clients/typescript), with the token the
 * user pasted, kept in this tab's sessionStorage (and under the dashboard's key too, so the webhook
 * dashboard opens signed in).
 */
const tokenKey = 'despacho.console.token';
const dashboardKey = 'despacho.dashboard.token';

export interface Me {
  account: { id: number; name: string; kind: string };
  token: { id: number; role: 'admin' | 'broker' | 'partner'; scopes: string[] };
}

const meKey = 'despacho.console.me';

export const token = signal<string | null>(sessionStorage.getItem(tokenKey));
/**
 * The caller (account, role, scopes) as GET /v1/me answered at sign-in, kept for the tab so a
 * reload renders its screen at once while /v1/me is asked again beside the screen's own call. It
 * only chooses what the page shows; the API decides what is allowed.
 */
export const me = signal<Me | null>(token.value ? readMe() : null);

function readMe(): Me | null {
  try {
    return JSON.parse(sessionStorage.getItem(meKey) ?? 'null') as Me | null;
  } catch {
    return null;
  }
}

export function rememberMe(value: Me): void {
  me.value = value;
  sessionStorage.setItem(meKey, JSON.stringify(value));
}
export const api = computed<DespachoClient>(() => createDespachoClient({ baseUrl: location.origin, token: token.value ?? undefined, retry: false }));

export const isBroker = computed(() => me.value?.token.role === 'broker');
export const canCloseBatches = computed(() => me.value?.token.role === 'broker' || me.value?.token.role === 'admin');

export function remember(value: string | null): void {
  token.value = value;
  if (value) {
    sessionStorage.setItem(tokenKey, value);
    sessionStorage.setItem(dashboardKey, value);
  } else {
    sessionStorage.removeItem(tokenKey);
    sessionStorage.removeItem(dashboardKey);
    sessionStorage.removeItem(meKey);
    me.value = null;
  }
}

/**
 * A failed call: the API's status, code, message and field errors, the message and the field errors
 * in the console's language (the API answers English; api-errors.ts says them in Spanish).
 */
export class ApiError extends Error {
  readonly errors: Record<string, string[]>;
  constructor(
    readonly status: number,
    message: string,
    errors: Record<string, string[]> = {},
    readonly code?: string,
  ) {
    super(lang.value === 'es' ? errorMessageEs(code, status, message) : message);
    this.errors = lang.value === 'es' ? fieldErrorsEs(errors) : errors;
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The success body of a call, or an ApiError with what the API said. */
export async function must<T>(call: Promise<Answer<T>>): Promise<NonNullable<T>> {
  let res: Answer<T>;
  try {
    res = await call;
  } catch (err) {
    throw new ApiError(0, err instanceof Error ? err.message : String(err));
  }
  if (res.response.ok && res.data !== undefined && res.data !== null) return res.data as NonNullable<T>;
  const e = (res.error ?? {}) as { message?: string; error?: string; errors?: Record<string, string[]> };
  throw new ApiError(res.response.status, e.message ?? `HTTP ${res.response.status}`, e.errors ?? {}, e.error);
}

/** A message for the status line from any failure. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

/** Saves a Blob as a file (an <a download> clicked, its object URL released after). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
