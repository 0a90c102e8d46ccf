import { generateToken } from '#core/auth/tokens';
import { seedAdminToken } from '#services/auth/accounts';
import { nowIso } from '#infra/clock';

/**
 * The first admin token of a deployed stage, written with the operator's AWS credentials through
 * the same entity code the service uses. `value` (ADMIN_TOKEN) picks the token; else one is generated.
 */
export async function bootstrapAdminToken(table: string, value?: string): Promise<{ token: string; created: boolean }> {
  process.env.TABLE_NAME = table;
  const token = value || generateToken();
  const { created } = await seedAdminToken(token, nowIso());
  return { token, created };
}
