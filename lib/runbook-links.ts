import type { StageSettings } from './stage';

/**
 * The link to a section of an operator page (docs/operators/<page>), as an alarm's description
 * gives it: under the stage's `docsBaseUrl` (lib/stages.ts), so the on-call opens it from the
 * notification; the repository path when the stage has none. `anchor` is the section heading's
 * GitHub anchor (the runbook gives each alarm kind and each area a heading of its own).
 */
export function operatorDocLink(settings: StageSettings, page: string, anchor?: string): string {
  const base = settings.config.docsBaseUrl ?? 'docs/operators/';
  return `${base}${page}${anchor ? `#${anchor}` : ''}`;
}

/** The runbook entry of an alarm kind (`errors`, `5xx-rate`, ...) or of an area (`area-api`). */
export function runbookLink(settings: StageSettings, anchor: string): string {
  return operatorDocLink(settings, 'runbook.md', anchor);
}
