import type { RouteDef } from '../../catalog-types';
import { IdParams } from '../kit/schemas';
import { accountResponses } from './responses';

/** The calling token's account and its tokens. */
export const accountRoutes: RouteDef[] = [
  {
    id: 'Me',
    method: 'GET',
    path: '/v1/me',
    handler: 'http/account/me',
    summary: "The calling token's account, role and scopes",
    tag: 'account',
    responses: accountResponses.Me,
    auth: {},
    rate: 'account',
    uses: { table: ['GetItem'] },
  },
  {
    id: 'MyTokensList',
    method: 'GET',
    path: '/v1/me/tokens',
    handler: 'http/account/tokens',
    summary: "List the tokens of the caller's account (never their values)",
    tag: 'account',
    responses: accountResponses.MyTokensList,
    auth: {},
    rate: 'account',
    uses: { table: ['Query'] },
  },
  {
    id: 'MyTokensRevoke',
    method: 'DELETE',
    path: '/v1/me/tokens/{id}',
    handler: 'http/account/tokens',
    summary: "Revoke one of the caller's account's tokens",
    tag: 'account',
    responses: accountResponses.MyTokensRevoke,
    auth: {},
    rate: 'account',
    uses: { table: ['Query', 'GetItem', 'UpdateItem'] },
    schemas: { params: IdParams },
  },
];
