import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { roles, scopes } from '#catalog/types';
import { Account, Token, cascaded } from '../admin/responses';
import { data, failure, integer } from '../kit/responses';

/** The answers of the caller's own account routes, for openapi.json. */

export const accountResponses = {
  Me: {
    answers: {
      200: data('The account and the token making the request', v.strictObject({ account: Account, token: v.strictObject({ id: integer, role: v.picklist(roles), scopes: v.array(v.picklist(scopes)) }) })),
    },
  },
  MyTokensList: { answers: { 200: data("The account's tokens (never their values)", v.array(Token), { extra: { count: integer } }) } },
  MyTokensRevoke: { answers: { 200: data('The token, revoked (with cascade=true, what it made too)', Token, { message: true, extra: cascaded }), 404: failure('No such token of this account', ['not_found']) } },
} satisfies Record<string, RouteResponses>;
