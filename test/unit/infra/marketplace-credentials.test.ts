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
import type { MarketplaceConnection } from '../../../lambdas/core/orders/marketplace';
import { manualClock, useClock } from '../../../lambdas/infra/clock';
import { secretsManagerCredentials as store } from '../../../lambdas/infra/marketplace-credentials';

const sm = mockClient(SecretsManagerClient);
const connection: MarketplaceConnection = { channel: 'shopify', baseUrl: 'https://acme.myshopify.com', credentials: { accessToken: 'shpat_secret' } };
const storedValue = JSON.stringify({ ...connection, updatedAt: '2025-03-01T12:00:00.000Z' });
const name = 'despacho-dev/marketplace/7/shopify';
const meta = { $metadata: {} };

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

  it('lists the account’s connections by name prefix, without their credentials', async () => {
    const ml = JSON.stringify({ channel: 'mercadolibre', baseUrl: 'https://api.mercadolibre.com', credentials: { accessToken: 'x', sellerId: '1' }, updatedAt: '2025-02-01T00:00:00.000Z' });
    sm.on(BatchGetSecretValueCommand)
      .resolvesOnce({ SecretValues: [{ Name: name, SecretString: storedValue }], NextToken: 'page-2' })
      .resolvesOnce({ SecretValues: [{ Name: 'despacho-dev/marketplace/7/mercadolibre', SecretString: ml }, { Name: 'despacho-dev/marketplace/7/shopify-old', SecretString: storedValue }] });
    expect(await store.list(7)).toEqual([
      { channel: 'mercadolibre', baseUrl: 'https://api.mercadolibre.com', updatedAt: '2025-02-01T00:00:00.000Z' },
      { channel: 'shopify', baseUrl: 'https://acme.myshopify.com', updatedAt: '2025-03-01T12:00:00.000Z' },
    ]);
    const calls = sm.commandCalls(BatchGetSecretValueCommand).map((c) => c.args[0].input);
    expect(calls).toEqual([
      { Filters: [{ Key: 'name', Values: ['despacho-dev/marketplace/7/'] }], NextToken: undefined },
      { Filters: [{ Key: 'name', Values: ['despacho-dev/marketplace/7/'] }], NextToken: 'page-2' },
    ]);
  });

  it('says which setting is missing when there is no secret prefix', async () => {
    delete process.env.MARKETPLACE_SECRET_PREFIX;
    await expect(store.get(7, 'shopify')).rejects.toThrow('Missing environment variable MARKETPLACE_SECRET_PREFIX');
  });
});
