import * as v from 'valibot';
import type { RouteResponses } from '../../catalog-types';
import { data, file, timestamp } from '../kit/responses';

/** The answers of the public system routes, for openapi.json. */

export const systemResponses = {
  Health: { answers: { 200: data('The service answers', v.object({ status: v.literal('ok'), stage: v.string(), time: timestamp })) } },
  OpenApi: { answers: { 200: file('This document', ['application/json'], { 'Cache-Control': { description: 'public, max-age=300' } }) } },
} satisfies Record<string, RouteResponses>;
