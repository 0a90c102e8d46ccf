import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../dynamo';
import { config } from '#shared/config';
import { cancellationCodes } from './entity';
import { batchKey, itemKeyOf } from './manifests';
import { taxIdSearchKeys } from '#core/search/index-terms';

/**
 * Tax-id corrections of stored manifest items (PUT /v1/couriers/client-info). Written against the
 * item and batch keys the entities of `manifests.ts` give (`itemKeyOf`, `batchKey`), as one
 * update expression, because only `data.consigneeIdNumber` and `data.consigneeIdType` change
 * inside the item's `data` (an `any` attribute, which ElectroDB updates only whole).
 *
 * Each call is one TransactWriteItems per 99 items: a ConditionCheck that the batch exists and is
 * not closed (the broker's clearance), plus one conditional update per item. A batch closed at
 * the same moment wins: nothing of that transaction is written.
 *
 * The item's `hash` is left as it is: it stands for the partner's last submission of the line, so
 * resending that line is still a SKIP and does not undo the correction.
 */

export interface TaxIdChange {
  /** Digits. */
  taxId: string;
  taxIdType: 'CUIT' | 'CUIL' | 'DNI';
  at: string;
}

const perTransaction = 99;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function setItemsTaxId(batchId: string, itemKeys: readonly string[], change: TaxIdChange): Promise<'updated' | 'closed' | 'missing'> {
  const TableName = config.tableName();
  for (let i = 0; i < itemKeys.length; i += perTransaction) {
    const items = [
      {
        ConditionCheck: {
          TableName,
          Key: batchKey(batchId),
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(closedAt)',
        },
      },
      ...itemKeys.slice(i, i + perTransaction).map((itemKey) => {
        // The search's keys follow the new tax id (entities/manifests/item.ts `byTaxId`, as ElectroDB writes them).
        const search = taxIdSearchKeys({ itemKey, data: { consigneeIdNumber: change.taxId } }, batchId);
        const keys = search ? ', #head = :head, #ref = :ref, #g2pk = :g2pk, #g2sk = :g2sk' : '';
        return {
          Update: {
            TableName,
            Key: itemKeyOf(batchId, itemKey),
            UpdateExpression: `SET #data.#number = :number, #data.#type = :type, #updatedAt = :at${keys}`,
            ConditionExpression: 'attribute_exists(pk) AND attribute_exists(#data)',
            ExpressionAttributeNames: {
              '#data': 'data',
              '#number': 'consigneeIdNumber',
              '#type': 'consigneeIdType',
              '#updatedAt': 'updatedAt',
              ...(search ? { '#head': 'searchTaxHead', '#ref': 'searchTaxRef', '#g2pk': 'gsi2pk', '#g2sk': 'gsi2sk' } : {}),
            },
            ExpressionAttributeValues: {
              ':number': change.taxId,
              ':type': change.taxIdType,
              ':at': change.at,
              ...(search ? { ':head': search.searchTaxHead, ':ref': search.searchTaxRef, ':g2pk': `SEARCH#taxid#${search.searchTaxHead}`, ':g2sk': search.searchTaxRef } : {}),
            },
          },
        };
      }),
    ];
    for (let attempt = 1; ; attempt++) {
      try {
        await documentClient().send(new TransactWriteCommand({ TransactItems: items }));
        break;
      } catch (err) {
        const codes = cancellationCodes(err);
        if (!codes) throw err;
        if (codes[0] === 'ConditionalCheckFailed') return 'closed';
        if (codes.includes('ConditionalCheckFailed')) return 'missing';
        if (attempt >= 10) throw err;
        await sleep(10 * attempt + Math.random() * 20);
      }
    }
  }
  return 'updated';
}
