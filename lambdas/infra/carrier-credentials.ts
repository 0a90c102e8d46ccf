import { deleteSecret, LocalCredentialsFile, readSecretText, secretTags, writeSecret, type SealedEntries } from './sealed-store';
import { externalCarriers, isExternalCarrier, type CarrierAccount, type CarrierAccountSummary, type ExternalCarrier } from '#core/shipping/carrier-accounts';
import { nowIso } from './clock';

/**
 * Each account's carrier credentials (issue 18), kept like the marketplace connections: in AWS one
 * Secrets Manager secret per account and carrier, on the twin one local file of AES-256-GCM
 * encrypted entries. Only `get` returns a secret; `list` answers summaries.
 *
 * The secrets are named `<prefix>/marketplace/<accountId>/carrier-<carrier>`: under the path the
 * functions' `secrets` grant already covers, with the same two tags, and never a marketplace
 * channel (the marketplace list keeps only channel names).
 */
export interface CarrierCredentialsPort {
  get(accountId: number, carrier: ExternalCarrier): Promise<CarrierAccount | undefined>;
  put(accountId: number, account: CarrierAccount): Promise<void>;
  /** Removing what is not there is not an error. */
  remove(accountId: number, carrier: ExternalCarrier): Promise<void>;
  list(accountId: number): Promise<CarrierAccountSummary[]>;
}

type Stored = CarrierAccount & { updatedAt: string };

function parseStored(json: string, where: string): Stored {
  const value = JSON.parse(json) as Stored;
  if (typeof value?.carrier !== 'string' || !isExternalCarrier(value.carrier) || typeof value.clientId !== 'string' || typeof value.clientSecret !== 'string') {
    throw new Error(`${where} does not hold carrier credentials`);
  }
  return value;
}

const summary = (s: Stored): CarrierAccountSummary => ({ carrier: s.carrier, accountNumber: s.accountNumber, environment: s.environment, updatedAt: s.updatedAt });
const withoutDate = ({ updatedAt: _u, ...account }: Stored): CarrierAccount => account;

// ---------------------------------------------------------------------------------------------
// AWS Secrets Manager

export function carrierSecretName(accountId: number, carrier: ExternalCarrier): string {
  const prefix = process.env.MARKETPLACE_SECRET_PREFIX?.trim().replace(/\/+$/, '');
  if (!prefix) throw new Error('Missing environment variable MARKETPLACE_SECRET_PREFIX');
  return `${prefix}/marketplace/${accountId}/carrier-${carrier}`;
}

async function readSecret(name: string): Promise<Stored | undefined> {
  const text = await readSecretText(name);
  return text === undefined ? undefined : parseStored(text, `Secret ${name}`);
}

export const secretsManagerCarrierCredentials: CarrierCredentialsPort = {
  async get(accountId, carrier) {
    const found = await readSecret(carrierSecretName(accountId, carrier));
    return found && withoutDate(found);
  },
  async put(accountId, account) {
    const description = `Despacho: account ${accountId}'s ${account.carrier} carrier account`;
    await writeSecret(carrierSecretName(accountId, account.carrier), JSON.stringify({ ...account, updatedAt: nowIso() }), { description, tags: secretTags(accountId, `carrier-${account.carrier}`) });
  },
  async remove(accountId, carrier) {
    await deleteSecret(carrierSecretName(accountId, carrier));
  },
  async list(accountId) {
    // One GetSecretValue per carrier (four): the grant is GetSecretValue, not BatchGetSecretValue.
    const found = await Promise.all(externalCarriers.map((c) => readSecret(carrierSecretName(accountId, c))));
    return found.filter((s): s is Stored => s !== undefined).map(summary);
  },
};

// ---------------------------------------------------------------------------------------------
// Encrypted local file (the twin)

/**
 * `<dataDir>/carrier-credentials.json` (`LocalCredentialsFile`, sealed-store.ts): each entry
 * encrypted alone with `<accountId>/<carrier>` as associated data.
 */
export class LocalCarrierCredentials extends LocalCredentialsFile implements CarrierCredentialsPort {
  constructor(dataDir: string, opts: { key?: string } = {}) {
    super(dataDir, 'carrier-credentials.json', { key: opts.key, what: 'carrier credentials' });
  }

  async get(accountId: number, carrier: ExternalCarrier) {
    const entries = await this.store.view();
    return entries?.has(`${accountId}/${carrier}`) ? withoutDate(await open(entries, `${accountId}/${carrier}`)) : undefined;
  }

  async put(accountId: number, account: CarrierAccount) {
    await this.store.change((entries) => entries.seal(`${accountId}/${account.carrier}`, JSON.stringify({ ...account, updatedAt: nowIso() })));
  }

  async remove(accountId: number, carrier: ExternalCarrier) {
    await this.store.change(async (entries) => entries.delete(`${accountId}/${carrier}`));
  }

  async list(accountId: number) {
    const entries = await this.store.view();
    if (!entries) return [];
    const out: CarrierAccountSummary[] = [];
    for (const carrier of externalCarriers) if (entries.has(`${accountId}/${carrier}`)) out.push(summary(await open(entries, `${accountId}/${carrier}`)));
    return out;
  }
}

/** A stored carrier account, decrypted and checked. */
async function open(entries: SealedEntries, name: string): Promise<Stored> {
  return parseStored(await entries.open(name, `carrier credentials ${name}`), `The stored carrier credentials ${name}`);
}

let current: CarrierCredentialsPort = secretsManagerCarrierCredentials;
export const carrierCredentials = (): CarrierCredentialsPort => current;
export function useCarrierCredentials(port: CarrierCredentialsPort): void {
  current = port;
}
