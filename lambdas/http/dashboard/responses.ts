import type { RouteResponses } from '#catalog/types';
import { failure, file } from '../kit/responses';

/** The answers of the webhook dashboard's page and assets, for openapi.json. */

export const dashboardResponses = {
  DashboardPage: { answers: { 200: file('The dashboard page', ['text/html']) } },
  DashboardAssets: {
    answers: { 200: file('app.js or app.css', ['text/javascript', 'text/css']), 404: failure('No dashboard file by that name', ['not_found']) },
  },
} satisfies Record<string, RouteResponses>;
