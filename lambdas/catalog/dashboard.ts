import type { RouteDef } from './types';

export const DashboardPage = {
  id: 'DashboardPage',
  method: 'GET',
  path: '/dashboard',
  root: true,
  handler: 'http/dashboard/page',
  summary: 'The webhook dashboard page',
  tag: 'dashboard',
  auth: 'public',
} satisfies RouteDef;

export const DashboardAssets = {
  id: 'DashboardAssets',
  method: 'GET',
  path: '/dashboard/{asset}',
  root: true,
  handler: 'http/dashboard/page',
  summary: 'The dashboard script and stylesheet',
  tag: 'dashboard',
  auth: 'public',
} satisfies RouteDef;

/** The webhook dashboard: one page and its two assets, served at the root (not under /api). */
export const dashboardRoutes = { DashboardPage, DashboardAssets };
