/**
 * The headers an HTML page answers besides its Content-Security-Policy (issue 41: the middleware's
 * defaults named 13 Permissions-Policy features Chromium does not know, each a console error on
 * every load, and an X-XSS-Protection with a report URI nothing receives).
 */

/**
 * The powerful features a page may ask for, as Chromium knows them: every one denied unless the
 * page names it (`{ 'clipboard-write': 'self' }`). A name Chromium does not know would be an error
 * in the console of every page load, so none is listed here (test/e2e/console.test.ts loads the
 * pages in Chromium and finds none).
 */
export const deniedFeatures = [
  'accelerometer',
  'autoplay',
  'camera',
  'clipboard-read',
  'clipboard-write',
  'cross-origin-isolated',
  'display-capture',
  'encrypted-media',
  'fullscreen',
  'gamepad',
  'geolocation',
  'gyroscope',
  'hid',
  'idle-detection',
  'keyboard-map',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'picture-in-picture',
  'publickey-credentials-get',
  'screen-wake-lock',
  'serial',
  'sync-xhr',
  'usb',
  'xr-spatial-tracking',
] as const;

/** Permissions-Policy: each known feature denied (`()`), or given to the origins a page names. */
export function permissionsPolicy(allowed: Record<string, string> = {}): string {
  const names = [...new Set([...deniedFeatures, ...Object.keys(allowed)])];
  return names.map((name) => `${name}=(${allowed[name] ?? ''})`).join(', ');
}

/**
 * An HTML page's own headers: its policy, its permissions, and `X-XSS-Protection: 0` (the legacy
 * filter off, as OWASP advises where a Content-Security-Policy guards the page).
 */
export function pageHeaders(csp: Record<string, string>, permissions?: Record<string, string>): Record<string, string> {
  return {
    'Content-Security-Policy': Object.entries(csp).map(([k, val]) => `${k} ${val}`).join('; '),
    'Permissions-Policy': permissionsPolicy(permissions),
    'X-XSS-Protection': '0',
  };
}
