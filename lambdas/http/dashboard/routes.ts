import type { RouteDef } from '../../catalog-types';
import { dashboardResponses } from './responses';

/** The webhook dashboard: one page and its two assets, served at the root (not under /api). */
export const dashboardRoutes: RouteDef[] = [
  {
    id: 'DashboardPage',
    method: 'GET',
    path: '/dashboard',
    root: true,
    handler: 'http/dashboard/page',
    summary: 'The webhook dashboard page',
    tag: 'dashboard',
    responses: dashboardResponses.DashboardPage,
    auth: 'public',
  },
  {
    id: 'DashboardAssets',
    method: 'GET',
    path: '/dashboard/{asset}',
    root: true,
    handler: 'http/dashboard/page',
    summary: 'The dashboard script and stylesheet',
    tag: 'dashboard',
    responses: dashboardResponses.DashboardAssets,
    auth: 'public',
  },
];
