/**
 * An account's credentials for one external carrier (issue 18): what each carrier's API needs to
 * authenticate and to bill the account. Every carrier takes `client_id`, `client_secret` and
 * `account_number`; USPS also needs the CRID and the mailer ID its Labels API pays with.
 *
 * - fedex: OAuth client credentials (API key and secret key), the 9-digit FedEx account number.
 * - ups: OAuth client credentials (client ID and secret), the 6-character UPS shipper number.
 * - dhl: MyDHL API basic auth (`client_id` is the API username, `client_secret` its password),
 *   the 9-digit DHL Express account number.
 * - usps: OAuth client credentials, the EPS account number (10 digits), `crid` and `mailer_id`.
 *
 * `environment` picks the carrier's sandbox or production host on a deployed stage (default
 * sandbox); the twin always answers from its fakes.
 */
export const externalCarriers = ['dhl', 'fedex', 'ups', 'usps'] as const;
export type ExternalCarrier = (typeof externalCarriers)[number];
export const carrierEnvironments = ['sandbox', 'production'] as const;
export type CarrierEnvironment = (typeof carrierEnvironments)[number];

export interface CarrierAccount {
  carrier: ExternalCarrier;
  clientId: string;
  clientSecret: string;
  accountNumber: string;
  environment: CarrierEnvironment;
  /** USPS only. */
  crid?: string;
  /** USPS only. */
  mailerId?: string;
}

/** What GET answers: never the secret, the account number masked to its last 4. */
export interface CarrierAccountSummary {
  carrier: ExternalCarrier;
  accountNumber: string;
  environment: CarrierEnvironment;
  updatedAt: string;
}

const accountNumberRules: Record<ExternalCarrier, { pattern: RegExp; says: string }> = {
  fedex: { pattern: /^\d{9}$/, says: 'A FedEx account number is 9 digits.' },
  dhl: { pattern: /^\d{9}$/, says: 'A DHL Express account number is 9 digits.' },
  ups: { pattern: /^[A-Z0-9]{6}$/, says: 'A UPS shipper number is 6 letters or digits.' },
  usps: { pattern: /^\d{10}$/, says: 'A USPS EPS account number is 10 digits.' },
};

const secretLike = /^[\x21-\x7e]{1,256}$/;

export function isExternalCarrier(name: string): name is ExternalCarrier {
  return (externalCarriers as readonly string[]).includes(name);
}

/**
 * Checks a PUT body for `carrier`: the account it describes, or the problems by field name (the
 * caller answers 422 with them). Fields another carrier takes are refused, not silently kept.
 */
export function checkCarrierAccount(carrier: ExternalCarrier, body: Record<string, unknown>): { account: CarrierAccount } | { problems: Record<string, string[]> } {
  const problems: Record<string, string[]> = {};
  const field = (name: string, pattern: RegExp, says: string): string => {
    const value = body[name];
    if (value === undefined || value === null || value === '') problems[name] = [`${carrier} needs ${name}.`];
    else if (typeof value !== 'string' || !pattern.test(value)) problems[name] = [says];
    return typeof value === 'string' ? value : '';
  };
  const clientId = field('client_id', secretLike, 'Must be 1 to 256 printable characters, no spaces.');
  const clientSecret = field('client_secret', secretLike, 'Must be 1 to 256 printable characters, no spaces.');
  const rule = accountNumberRules[carrier];
  const accountNumber = field('account_number', rule.pattern, rule.says);
  const environment = body.environment ?? 'sandbox';
  if (typeof environment !== 'string' || !(carrierEnvironments as readonly string[]).includes(environment)) problems.environment = [`Must be one of ${carrierEnvironments.join(', ')}.`];
  const known = new Set(['client_id', 'client_secret', 'account_number', 'environment']);
  let crid: string | undefined;
  let mailerId: string | undefined;
  if (carrier === 'usps') {
    crid = field('crid', /^\d{4,15}$/, 'A USPS CRID is 4 to 15 digits.');
    mailerId = field('mailer_id', /^(\d{6}|\d{9})$/, 'A USPS mailer ID is 6 or 9 digits.');
    known.add('crid').add('mailer_id');
  }
  for (const name of Object.keys(body)) if (!known.has(name)) problems[name] = [`${carrier} does not take ${name}; it takes ${[...known].join(', ')}.`];
  if (Object.keys(problems).length) return { problems };
  return {
    account: { carrier, clientId, clientSecret, accountNumber, environment: environment as CarrierEnvironment, ...(carrier === 'usps' ? { crid, mailerId } : {}) },
  };
}

export const maskAccountNumber = (n: string) => `${'*'.repeat(Math.max(0, n.length - 4))}${n.slice(-4)}`;
