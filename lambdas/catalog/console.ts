import type { RouteDef } from './types';

export const ConsolePage = {
  id: 'ConsolePage',
  method: 'GET',
  path: '/console',
  root: true,
  handler: 'http/console/page',
  summary: "The console for the broker's staff and partners (one page; its screens are addresses under /console/)",
  tag: 'console',
  auth: 'public',
  uses: { bucketOrigin: true },
} satisfies RouteDef;

export const ConsoleScreens = {
  id: 'ConsoleScreens',
  method: 'GET',
  path: '/console/{screen}',
  root: true,
  handler: 'http/console/page',
  summary: "The console's script and stylesheet (app.js, app.css), and its screens by address (inbox, documents, manifests, review, quota, webhooks, and search?q=...)",
  tag: 'console',
  auth: 'public',
  uses: { bucketOrigin: true },
} satisfies RouteDef;

export const ConsoleScreenItem = {
  id: 'ConsoleScreenItem',
  method: 'GET',
  path: '/console/{screen}/{item}',
  root: true,
  handler: 'http/console/page',
  summary: 'A screen opened on one record (a batch, a document, a tax id): the same page',
  tag: 'console',
  auth: 'public',
  uses: { bucketOrigin: true },
} satisfies RouteDef;

/** The console: one page, its screens' addresses and its two assets, served at the root (not under /api) as the dashboard is. */
export const consoleRoutes = { ConsolePage, ConsoleScreens, ConsoleScreenItem };
