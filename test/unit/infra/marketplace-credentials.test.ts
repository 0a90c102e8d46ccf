import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  BatchGetSecretValueCommand,
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  InvalidRequestException,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  RestoreSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { MarketplaceConnection } from '#core/orders/marketplace';
import { manualClock, useClock } from '#infra/clock';
import { secretsManagerCredentials as store } from '#infra/marketplace-credentials';

const sm = mockClient(SecretsManagerClient);
const connection: MarketplaceConnection = { channel: 'shopify', baseUrl: 'https://acme.myshopify.com', credentials: { accessToken: 'shpat_secret' } };
const storedValue = JSON.stringify({ ...connection, updatedAt: '2025-03-01T12:00:00.000Z' });
const name = 'despacho-dev/marketplace/7/shopify';
const meta = { $metadata: {} };
const meliName = 'despacho-dev/marketplace/7/meli';
const formerName = 'despacho-dev/marketplace/7/mercadolibre';
/** What the service stored for a Mercado Libre connection before the rename. */
const formerValue = JSON.stringify({ channel: 'mercadolibre', baseUrl: 'https://api.mercadolibre.com', credentials: { accessToken: 'APP_USR-1', sellerId: '77' }, updatedAt: '2025-01-01T00:00:00.000Z' });

beforeEach(() => {
  sm.reset();
  useClock(manualClock(new Date('2025-03-01T12:00:00.000Z')));
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  process.env.MARKETPLACE_SECRET_PREFIX = 'despacho-dev';
});

describe('the Secrets Manager credentials store', () => {
  it('creates one secret per account and channel, named under the prefix', async () => {
    sm.on(CreateSecretCommand).resolves({});
    await store.put(7, connection);
    const input = sm.commandCalls(CreateSecretCommand)[0].args[0].input;
    expect(input).toMatchObject({ Name: name, SecretString: storedValue });
    expect(input.Tags).toEqual([
      { Key: 'despacho:account', Value: '7' },
      { Key: 'despacho:channel', Value: 'shopify' },
    ]);
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it('writes a new version when the secret already exists', async () => {
    sm.on(CreateSecretCommand).rejects(new ResourceExistsException({ message: 'exists', ...meta }));
    sm.on(PutSecretValueCommand).resolves({});
    await store.put(7, connection);
    expect(sm.commandCalls(PutSecretValueCommand)[0].args[0].input).toEqual({ SecretId: name, SecretString: storedValue });
  });

  it('restores a secret scheduled for deletion before writing to it', async () => {
    sm.on(CreateSecretCommand).rejects(new InvalidRequestException({ message: "You can't create this secret because a secret with this name is already scheduled for deletion.", ...meta }));
    sm.on(RestoreSecretCommand).resolves({});
    sm.on(PutSecretValueCommand).resolves({});
    await store.put(7, connection);
    expect(sm.commandCalls(RestoreSecretCommand)[0].args[0].input).toEqual({ SecretId: name });
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(1);
  });

  it('gives back the stored connection', async () => {
    sm.on(GetSecretValueCommand, { SecretId: name }).resolves({ SecretString: storedValue });
    expect(await store.get(7, 'shopify')).toEqual(connection);
  });

  it('answers nothing for a connection that was never stored', async () => {
    sm.on(GetSecretValueCommand).rejects(new ResourceNotFoundException({ message: 'not found', ...meta }));
    expect(await store.get(7, 'amazon')).toBeUndefined();
  });

  it('deletes without a recovery window, and does not mind a secret that is gone', async () => {
    sm.on(DeleteSecretCommand).resolvesOnce({}).rejectsOnce(new ResourceNotFoundException({ message: 'not found', ...meta }));
    await store.remove(7, 'shopify');
    await store.remove(7, 'shopify');
    expect(sm.commandCalls(DeleteSecretCommand)[0].args[0].input).toEqual({ SecretId: name, ForceDeleteWithoutRecovery: true });
  });

  it('lists the account’s connections by name prefix, without their credentials, one stored under the former code mercadolibre as meli', async () => {
    const ml = JSON.stringify({ channel: 'mercadolibre', baseUrl: 'https://api.mercadolibre.com', credentials: { accessToken: 'x', sellerId: '1' }, updatedAt: '2025-02-01T00:00:00.000Z' });
    sm.on(BatchGetSecretValueCommand)
      .resolvesOnce({ SecretValues: [{ Name: name, SecretString: storedValue }], NextToken: 'page-2' })
      .resolvesOnce({ SecretValues: [{ Name: 'despacho-dev/marketplace/7/mercadolibre', SecretString: ml }, { Name: 'despacho-dev/marketplace/7/shopify-old', SecretString: storedValue }] });
    expect(await store.list(7)).toEqual([
      { channel: 'meli', baseUrl: 'https://api.mercadolibre.com', updatedAt: '2025-02-01T00:00:00.000Z' },
      { channel: 'shopify', baseUrl: 'https://acme.myshopify.com', updatedAt: '2025-03-01T12:00:00.000Z' },
    ]);
    const calls = sm.commandCalls(BatchGetSecretValueCommand).map((c) => c.args[0].input);
    expect(calls).toEqual([
      { Filters: [{ Key: 'name', Values: ['despacho-dev/marketplace/7/'] }], NextToken: undefined },
      { Filters: [{ Key: 'name', Values: ['despacho-dev/marketplace/7/'] }], NextToken: 'page-2' },
    ]);
  });

  it('lists one connection per channel when both the meli and the former mercadolibre secret exist, the meli one', async () => {
    const old = JSON.stringify({ channel: 'mercadolibre', baseUrl: 'https://api.mercadolibre.com', credentials: { accessToken: 'old', sellerId: '1' }, updatedAt: '2025-01-01T00:00:00.000Z' });
    const now = JSON.stringify({ channel: 'meli', baseUrl: 'https://api.mercadolibre.com', credentials: { accessToken: 'new', sellerId: '1' }, updatedAt: '2025-02-01T00:00:00.000Z' });
    sm.on(BatchGetSecretValueCommand).resolves({ SecretValues: [{ Name: meliName, SecretString: now }, { Name: formerName, SecretString: old }] });
    expect(await store.list(7)).toEqual([{ channel: 'meli', baseUrl: 'https://api.mercadolibre.com', updatedAt: '2025-02-01T00:00:00.000Z' }]);
  });

  it('finds a meli connection stored before the rename under the former name …/mercadolibre, answered as meli', async () => {
    sm.on(GetSecretValueCommand, { SecretId: meliName }).rejects(new ResourceNotFoundException({ message: 'not found', ...meta }));
    sm.on(GetSecretValueCommand, { SecretId: formerName }).resolves({ SecretString: formerValue });
    expect(await store.get(7, 'meli')).toEqual({ channel: 'meli', baseUrl: 'https://api.mercadolibre.com', credentials: { accessToken: 'APP_USR-1', sellerId: '77' } });
  });

  it('prefers the meli secret to a former one', async () => {
    sm.on(GetSecretValueCommand, { SecretId: meliName }).resolves({ SecretString: JSON.stringify({ ...JSON.parse(formerValue), channel: 'meli', credentials: { accessToken: 'APP_USR-2', sellerId: '77' } }) });
    expect((await store.get(7, 'meli'))?.credentials.accessToken).toBe('APP_USR-2');
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('connecting meli replaces a connection stored under mercadolibre: the meli secret is written and the former one deleted', async () => {
    sm.on(CreateSecretCommand).resolves({});
    sm.on(DeleteSecretCommand).resolves({});
    await store.put(7, { channel: 'meli', baseUrl: 'https://api.mercadolibre.com', credentials: { accessToken: 'APP_USR-3', sellerId: '77' } });
    expect(sm.commandCalls(CreateSecretCommand)[0].args[0].input).toMatchObject({ Name: meliName });
    expect(sm.commandCalls(DeleteSecretCommand).map((c) => c.args[0].input)).toEqual([{ SecretId: formerName, ForceDeleteWithoutRecovery: true }]);
  });

  it('disconnecting meli deletes the secret under the former name too', async () => {
    sm.on(DeleteSecretCommand).resolves({});
    await store.remove(7, 'meli');
    expect(sm.commandCalls(DeleteSecretCommand).map((c) => c.args[0].input.SecretId)).toEqual([meliName, formerName]);
  });

  it('migrates a former secret: creates the meli one with its value, then deletes the former; a meli secret made since is kept', async () => {
    sm.on(GetSecretValueCommand, { SecretId: formerName }).resolves({ SecretString: formerValue });
    sm.on(CreateSecretCommand).resolvesOnce({}).rejectsOnce(new ResourceExistsException({ message: 'exists', ...meta }));
    sm.on(DeleteSecretCommand).resolves({});
    expect(await store.migrateFormer(7, 'meli')).toBe(true);
    const created = sm.commandCalls(CreateSecretCommand)[0].args[0].input;
    expect(created.Name).toBe(meliName);
    expect(JSON.parse(created.SecretString!)).toEqual({ ...JSON.parse(formerValue), channel: 'meli' });
    expect(created.Tags).toContainEqual({ Key: 'despacho:channel', Value: 'meli' });
    expect(sm.commandCalls(DeleteSecretCommand)[0].args[0].input).toEqual({ SecretId: formerName, ForceDeleteWithoutRecovery: true });
    // Again, now that a meli secret exists (CreateSecret refused): it is not overwritten, the former still goes.
    expect(await store.migrateFormer(7, 'meli')).toBe(true);
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(0);
    expect(sm.commandCalls(DeleteSecretCommand)).toHaveLength(2);
  });

  it('migrating when no former secret exists changes nothing', async () => {
    sm.on(GetSecretValueCommand).rejects(new ResourceNotFoundException({ message: 'not found', ...meta }));
    expect(await store.migrateFormer(7, 'meli')).toBe(false);
    expect(await store.migrateFormer(7, 'shopify')).toBe(false);
    expect(sm.commandCalls(CreateSecretCommand)).toHaveLength(0);
    expect(sm.commandCalls(DeleteSecretCommand)).toHaveLength(0);
  });

  it('says which setting is missing when there is no secret prefix', async () => {
    delete process.env.MARKETPLACE_SECRET_PREFIX;
    await expect(store.get(7, 'shopify')).rejects.toThrow('Missing environment variable MARKETPLACE_SECRET_PREFIX');
  });
});
