import { createHash } from 'node:crypto';
import { now } from '../clock';

/**
 * OAuth client-credentials tokens (FedEx, UPS, USPS), cached until they expire. A token is a
 * secret: it lives in this process's memory only (a warm Lambda reuses it), never in the table.
 *
 * - The key is the carrier, the token URL, the client id and a hash of the secret: new
 *   credentials (a PUT of the carrier account) get a new token, never the old one.
 * - A token is used until 60 s before its `expires_in`, so no call leaves with one that dies on the way.
 * - Callers asking at once share one token request.
 * - `forget` drops a token the carrier refused (401), so the next call asks for a fresh one.
 * - At most `maxEntries` tokens are kept (the oldest goes first): the cache does not grow with the accounts served.
 */
export interface OAuthToken {
  accessToken: string;
  /** Seconds, as the carrier's token answer says. */
  expiresIn: number;
}

const skewMs = 60_000;

export class OAuthTokenCache {
  private readonly tokens = new Map<string, { accessToken: string; expiresAt: number }>();
  private readonly pending = new Map<string, Promise<string>>();

  constructor(private readonly maxEntries = 500) {}

  static key(carrier: string, tokenUrl: string, clientId: string, clientSecret: string): string {
    return `${carrier} ${tokenUrl} ${clientId} ${createHash('sha256').update(clientSecret).digest('base64url')}`;
  }

  async token(key: string, fetchToken: () => Promise<OAuthToken>): Promise<string> {
    const held = this.tokens.get(key);
    if (held && held.expiresAt - skewMs > now().getTime()) return held.accessToken;
    const waiting = this.pending.get(key);
    if (waiting) return waiting;
    const asked = (async () => {
      const fresh = await fetchToken();
      const expiresAt = now().getTime() + Math.max(0, fresh.expiresIn) * 1000;
      this.tokens.delete(key);
      this.tokens.set(key, { accessToken: fresh.accessToken, expiresAt });
      while (this.tokens.size > this.maxEntries) this.tokens.delete(this.tokens.keys().next().value as string);
      return fresh.accessToken;
    })();
    this.pending.set(key, asked);
    try {
      return await asked;
    } finally {
      this.pending.delete(key);
    }
  }

  forget(key: string): void {
    this.tokens.delete(key);
  }

  get size(): number {
    return this.tokens.size;
  }
}

/** The one cache the carrier adapters share. */
export const carrierTokens = new OAuthTokenCache();
