import { readFileSync } from 'node:fs';

/**
 * A doc page's text with the section between its two markers replaced by `section` (which carries
 * the markers itself): what the generators of the docs' generated tables write (`catalog:access`,
 * `catalog:events`). A page that lost a marker is an error naming both.
 */
export function withSection(file: string, begin: string, end: string, section: string, what: string): string {
  const text = readFileSync(file, 'utf8');
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has lost its ${what} markers (${begin} ... ${end})`);
  return text.slice(0, from) + section + text.slice(to + end.length);
}
