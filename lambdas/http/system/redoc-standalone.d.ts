/** The one export of Redoc's standalone build the reference page uses. */
declare module '@redocly/cli/lib/chunks/redoc.standalone.js' {
  export function init(specOrUrl: string | object, options: Record<string, unknown>, element: Element, callback?: (error?: unknown) => void): void;
}
