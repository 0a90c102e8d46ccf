/**
 * The token-scopes migration (issue 41, item 2): before every route named a scope, a token could
 * call every route that named none, and its orders scopes opened shipping. A token issued then
 * has no `scopesVersion`; its first use writes out what it could do (`legacyScopes`, at the
 * authorizer's check: services/auth/request-check.ts), and this writes out every other one, so
 * the token lists show each token's real scopes and none waits for a use to get them.
 *
 * One call works through the tokens in id order for about `budgetMs` and answers a cursor; the
 * operator CLI (`migrate token-scopes`) calls again with it until `done`. Each write is conditional
 * on the token not being written out yet, so a run is safe to repeat and to make while the service
 * runs (a first use meanwhile writes the same scopes).
 */
import { listTokens, writeOutScopes } from '#infra/entities/auth';
import { legacyScopes } from '#catalog/types';
import { decodeIdCursor, encodeIdCursor } from '#infra/cursors';

export interface TokenScopesMigrationReport {
  /** True when every token was gone through; else call again with `cursor`. */
  done: boolean;
  cursor: string | null;
  /** Tokens gone through by this call. */
  tokens: number;
  /** Tokens whose scopes this call wrote out. */
  written: number;
}

/** `budgetMs`: how long one call goes on before it answers a cursor (it always writes one token). */
export async function migrateTokenScopes(input: { cursor?: string }, opts: { budgetMs?: number; now?: () => number } = {}): Promise<TokenScopesMigrationReport> {
  const now = opts.now ?? Date.now;
  const deadline = now() + (opts.budgetMs ?? 20_000);
  const from = input.cursor === undefined ? 0 : await decodeIdCursor(input.cursor, 't', 'token');
  const report: TokenScopesMigrationReport = { done: false, cursor: null, tokens: 0, written: 0 };
  const tokens = (await listTokens()).filter((t) => t.id >= from).sort((x, y) => x.id - y.id);
  for (const token of tokens) {
    if (report.tokens > 0 && now() > deadline) return { ...report, cursor: await encodeIdCursor('t', token.id) };
    if (token.scopesVersion !== 2 && (await writeOutScopes(token.tokenHash, legacyScopes(token.scopes ?? [], token.role)))) report.written++;
    report.tokens++;
  }
  return { ...report, done: true };
}
