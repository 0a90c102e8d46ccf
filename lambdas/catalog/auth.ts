import type { RouteDef } from './types';
import { IdParams, RevokeQuery } from '#http/kit/schemas';

export const Me = {
  id: 'Me',
  method: 'GET',
  path: '/v1/me',
  handler: 'http/auth/me',
  summary: "The calling token's account, role and scopes",
  tag: 'account',
  auth: {},
  rate: 'account',
  uses: { table: ['GetItem'] },
} satisfies RouteDef;

export const MyTokensList = {
  id: 'MyTokensList',
  method: 'GET',
  path: '/v1/me/tokens',
  handler: 'http/auth/tokens',
  summary: "List the tokens of the caller's account (never their values)",
  tag: 'account',
  auth: { scopes: ['tokens:manage'] },
  rate: 'account',
  uses: { table: ['Query'] },
} satisfies RouteDef;

export const MyTokensRevoke = {
  id: 'MyTokensRevoke',
  method: 'DELETE',
  path: '/v1/me/tokens/{id}',
  handler: 'http/auth/tokens',
  summary: "Revoke one of the caller's account's tokens",
  tag: 'account',
  auth: { scopes: ['tokens:manage'] },
  rate: 'account',
  // BatchWriteItem: the revocation closes the token's rate windows (services/auth/rate-window.ts).
  uses: { table: ['Query', 'GetItem', 'UpdateItem', 'BatchWriteItem'] },
  schemas: { params: IdParams, query: RevokeQuery },
} satisfies RouteDef;

/** The calling token's account and its tokens. */
export const authRoutes = { Me, MyTokensList, MyTokensRevoke };
