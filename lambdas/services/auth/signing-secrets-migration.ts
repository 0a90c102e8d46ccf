/**
 * The signing-secrets migration (issue 31, item 3): accounts' manifest signing secrets and webhook
 * subscriptions' secrets written before they were sealed sit in their items in clear. The functions
 * that use one seal it on first use (read-through, `openSigningSecret`, `withSigningSecret`); this
 * seals every one left, so no secret stays in clear on an item nobody reads.
 *
 * One call works through the accounts in id order for about `budgetMs` and answers a cursor; the
 * operator CLI (`migrate signing-secrets`) calls again with it until `done`. Every write is
 * conditional on the item still holding that plain secret and nothing sealed, so a run is safe to
 * repeat, to stop anywhere and to make while the service runs (a rotation meanwhile wins).
 */
import { listAccounts, sealLegacySigningSecret } from '#infra/entities/auth';
import { listSubscriptions, sealLegacySecret } from '#infra/entities/webhooks';
import { decodeIdCursor, encodeIdCursor } from '#infra/cursors';

export interface SigningSecretsMigrationReport {
  /** True when every account was gone through; else call again with `cursor`. */
  done: boolean;
  cursor: string | null;
  /** Accounts finished by this call. */
  accounts: number;
  /** Manifest signing secrets this call sealed. */
  manifest_secrets: number;
  /** Webhook subscription secrets this call sealed. */
  webhook_secrets: number;
}

/** `budgetMs`: how long one call goes on before it answers a cursor (it always finishes one account). */
export async function migrateSigningSecrets(input: { cursor?: string }, opts: { budgetMs?: number; now?: () => number } = {}): Promise<SigningSecretsMigrationReport> {
  const now = opts.now ?? Date.now;
  const deadline = now() + (opts.budgetMs ?? 20_000);
  const from = input.cursor === undefined ? 0 : await decodeIdCursor(input.cursor, 'a', 'account');
  const report: SigningSecretsMigrationReport = { done: false, cursor: null, accounts: 0, manifest_secrets: 0, webhook_secrets: 0 };
  const accounts = (await listAccounts()).filter((a) => a.id >= from).sort((x, y) => x.id - y.id);
  for (const account of accounts) {
    if (report.accounts > 0 && now() > deadline) return { ...report, cursor: await encodeIdCursor('a', account.id) };
    if (await sealLegacySigningSecret(account)) report.manifest_secrets++;
    for (const sub of await listSubscriptions(account.id)) if (await sealLegacySecret(sub)) report.webhook_secrets++;
    report.accounts++;
  }
  return { ...report, done: true };
}
