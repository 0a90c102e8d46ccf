import { generateToken, hashToken } from './tokens';
import { putToken, type TokenRecord } from '../../infra/entities/accounts';
import type { Role, Scope } from '../../catalog-types';

/**
 * Issues a token: the plain value is returned once and only its SHA-256 hash is stored.
 * `value` lets the operator seed a token they chose (ADMIN_TOKEN on the twin).
 */
export async function issueToken(
  input: { accountId: number; name: string; email?: string; role: Role; scopes: Scope[]; value?: string; id?: number },
  at: string,
): Promise<{ token: string; record: TokenRecord }> {
  const token = input.value ?? generateToken();
  const record = await putToken({
    id: input.id,
    tokenHash: hashToken(token),
    accountId: input.accountId,
    name: input.name,
    email: input.email,
    role: input.role,
    scopes: [...new Set(input.scopes)],
    createdAt: at,
  });
  return { token, record };
}
