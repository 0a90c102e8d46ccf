import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { data, failure, file, json, timestamp } from '../kit/responses';

/** The answers of the public system routes, for openapi.json. */

export const systemResponses = {
  Health: { answers: { 200: data('The service answers', v.strictObject({ status: v.literal('ok'), stage: v.string(), time: timestamp })) } },
  OpenApi: {
    answers: {
      200: json(
        'This OpenAPI 3.1 document',
        v.looseObject({ openapi: v.literal('3.1.0'), info: v.looseObject({ title: v.string(), version: v.string() }), paths: v.record(v.string(), v.unknown()) }),
        { 'Cache-Control': { description: 'public, max-age=300' } },
      ),
    },
  },
  ApiDocs: { answers: { 200: file('The reference page', ['text/html']) } },
  ApiDocsScript: { answers: { 200: file('redoc.js: Redoc and the call that renders openapi.json', ['text/javascript']), 404: failure('No such file', ['not_found']) } },
} satisfies Record<string, RouteResponses>;
