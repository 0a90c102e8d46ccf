import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { canonicalChannel, formerCodesOf, syncChannels } from '#core/orders/marketplace';
import { orderChannels } from '#core/orders/model';
import { ListOrdersQuery, MarketplaceParams, SyncBody } from '#http/orders/schemas';

describe('channel codes', () => {
  it('meli is the Mercado Libre code of the filter and of sync', () => {
    expect(orderChannels).toEqual(['web', 'amazon', 'meli', 'shopify', 'ebay']);
    expect(syncChannels).toEqual(['amazon', 'meli', 'shopify']);
  });

  it('the former code mercadolibre reads as meli; every other code is itself', () => {
    expect(canonicalChannel('mercadolibre')).toBe('meli');
    for (const c of [...orderChannels, 'toString', '__proto__', 'MERCADOLIBRE']) expect(canonicalChannel(c)).toBe(c);
    expect(formerCodesOf('meli')).toEqual(['mercadolibre']);
    expect(formerCodesOf('amazon')).toEqual([]);
  });

  it('every schema that takes a channel takes the alias and hands on meli', () => {
    expect(v.parse(ListOrdersQuery, { channel: 'mercadolibre' }).channel).toBe('meli');
    expect(v.parse(ListOrdersQuery, { channel: 'meli' }).channel).toBe('meli');
    expect(v.parse(MarketplaceParams, { channel: 'mercadolibre' }).channel).toBe('meli');
    expect(v.parse(SyncBody, { channels: ['mercadolibre', 'amazon'] }).channels).toEqual(['meli', 'amazon']);
  });

  it('refuses other spellings, naming the codes and the alias', () => {
    for (const bad of ['MELI', 'Mercadolibre', 'mercado_libre', ' meli', 'ml', '']) {
      const r = v.safeParse(ListOrdersQuery, { channel: bad });
      expect(r.success, bad).toBe(false);
      expect(r.issues![0].message).toBe('Must be one of web, amazon, meli, shopify, ebay (mercadolibre is accepted for meli).');
    }
    expect(v.safeParse(SyncBody, { channels: ['web'] }).issues![0].message).toBe('Must be one of amazon, meli, shopify (mercadolibre is accepted for meli).');
  });
});
