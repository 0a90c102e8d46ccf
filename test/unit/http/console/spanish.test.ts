import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as errors from '#core/errors';
import { channelRules } from '#core/customs/channel-rules';
import { customsChannel, shipmentChannel } from '#core/customs/channel';
import { classifyShipments, type ClassifyItem } from '#core/customs/regime';
import { regimeRulesAt } from '#core/customs/regime-rules';
import type { ManifestItem } from '#core/manifests/submission';
import { decide } from '#core/manifests/identity';
import { processedProductView } from '#core/manifests/views';
import { reviewCauseNames } from '#core/review/queue';
import { builtinTariff } from '#core/tariff/builtin';
import { createOfflineClassifier } from '#core/tariff/classifier';
import { loadHsIndex } from '#infra/tariff/classifier-port';
import { decisionCited } from '#services/pipeline/stages';
import { channelRulesEs, itemDecisionReasonsEs, itemDecisionsEs, reasonEsOrNull, reasonIn, itemDecisionIn } from '../../../../lambdas/http/console/reasons';
import { disabledReasonIn, eventDescriptionsEs, named } from '../../../../lambdas/http/dashboard/i18n';
import { webhookEvents } from '#core/webhooks/events';
import { healthColors } from '#core/webhooks/delivery-rules';
import { deliveryStates } from '#infra/entities/webhooks/delivery';
import { errorCodesEs, errorMessageEs, fieldErrorsEs, fieldMessageEs } from '../../../../lambdas/http/console/api-errors';

/** The reasons the API writes, each read back in Spanish: none may reach the broker in the API's English. */
const untranslated = (reasons: Iterable<string>) => [...new Set(reasons)].filter((r) => reasonEsOrNull(r, 0.8) === null);

const person = '20123456786';
let n = 0;
function line(awb: string, over: Partial<ManifestItem> = {}): ClassifyItem {
  n += 1;
  const data = { awbNumber: awb, originCountry: 'CN', consigneeName: 'Ana Pérez', consigneeIdType: 'CUIL', consigneeIdNumber: person, itemDescription: `Item ${n}`, fobValueUsd: 10, totalWeightKg: 1, amountOfItems: 1, ...over };
  return { itemKey: `k${n}`, awb, data: data as ManifestItem };
}

describe('the review reasons in Spanish', () => {
  it('name every channel rule of the rules table, so a rule added without its Spanish fails here', () => {
    expect(channelRules.map((r) => r.id).filter((id) => !channelRulesEs[id])).toEqual([]);
  });

  it('say every channel reason the rules write, with its detail, in Spanish', () => {
    const base = { awb: 'A1', regime: 'P' as const, taxIdValid: true, classificationConfidence: 0.95, fob_usd: 10, cif_usd: 20, prohibited: false };
    const inputs = [
      base,
      { ...base, regime: 'X' as const, prohibited: true },
      { ...base, fob_usd: 3200, cif_usd: 3300 },
      { ...base, cif_usd: 2600 },
      { ...base, cif_usd: 1200 },
      { ...base, taxIdValid: false },
      { ...base, classificationConfidence: 0.42 },
      ...Array.from({ length: 200 }, (_, k) => ({ ...base, awb: `S${k}` })),
    ];
    const decisions = inputs.map((i) => customsChannel(i));
    const reasons = [...decisions.flatMap((d) => d.reasons), ...shipmentChannel([]).reasons, ...customsChannel(base, []).reasons];
    expect(reasons.length).toBeGreaterThan(8);
    expect(untranslated(reasons)).toEqual([]);
    expect(reasonIn('es', customsChannel({ ...base, classificationConfidence: 0.42 }).reasons[0], 0.8)).toBe(
      'Confianza de la clasificación arancelaria menor a 0.8 (la calibración del clasificador): revisión documental del NCM. (confianza 0.42)',
    );
  });

  it('say every regime reason (prohibited, over the limits, commercial, personal) in Spanish', () => {
    const rules = regimeRulesAt('2026-03-01');
    const shipments = [
      [line('P1')],
      [line('P2', { consigneeIdNumber: undefined })],
      [line('X1', { itemDescription: 'Pistola de aire comprimido' })],
      [line('X2', { hsCode: '9303.20.00', itemDescription: 'Escopeta' })],
      [line('F1', { fobValueUsd: 3500 })],
      [line('W1', { totalWeightKg: 80 })],
      [line('C1', { consigneeIdType: 'CUIT', consigneeIdNumber: '30712345671' })],
      [line('U1', { amountOfItems: 5, hsCode: '6109.10.00', itemDescription: 'Remera' })],
    ];
    const reasons = shipments.flatMap((s) => [...classifyShipments(s, rules).values()].flatMap((d) => d.reasons));
    expect(reasons.some((r) => r.startsWith('prohibited goods'))).toBe(true);
    expect(reasons.some((r) => r.startsWith('more than'))).toBe(true);
    expect(untranslated(reasons)).toEqual([]);
    expect(reasonIn('es', 'consignee is a company (CUIT 30-71234567-1)', 0.8)).toBe('el destinatario es una empresa (CUIT 30-71234567-1)');
  });

  it("say the classifier's evidence and the candidates' reasons in Spanish, for the table, the HS tier, a declared code and a broker's earlier decision", async () => {
    const offline = createOfflineClassifier(builtinTariff);
    const hs = await loadHsIndex();
    const inputs = [
      { description: 'zapatillas running' },
      { description: 'casco de bicicleta' },
      { description: 'Regalo sorpresa' },
      { description: 'qwertyuiop' },
      { description: 'zapatillas', hsCode: '6109.10.00' },
      { description: 'Freidora de aire 5 litros', hsCode: '8516.79' },
      { description: 'auriculares bluetooth', hsCode: '9999.99.99' },
      { description: 'remera', hsCode: '61' },
      { description: 'Escopeta calibre 12 con municion', hsCode: '9303.20.00' },
      { description: 'Bomba de vacio para laboratorio' },
      { description: 'semillas de girasol' },
      ...builtinTariff.slice(0, 60).map((r) => ({ description: r.description })),
    ];
    const answers = inputs.map((i) => offline.classify(i, hs));
    const reasons = answers.map((a) => a.reason);
    const withCandidates = answers.find((a) => a.candidates?.length);
    expect(withCandidates).toBeDefined();
    const product = processedProductView(
      { awb: 'A1', itemKey: 'k', item: { trackingNumber: null, description: 'x', consignee: 'A', taxId: null, fob: null } },
      { classification_candidates: withCandidates!.candidates },
    );
    reasons.push(...product.reasons);
    reasons.push(decisionCited('6109.10.00', 'description', { decidedAt: '2026-11-02T10:00:00Z', decidedBy: 'Lucía', batchId: 'B1', awb: 'A1', revision: 2 }));
    reasons.push('Decided by Lucía on 2026-11-02 (revision 2): la descripción dice casco');
    expect(untranslated(reasons)).toEqual([]);
    expect(reasonIn('es', 'Matched casco, bicicleta (score 3.2; next 8712.00.00 at 1.1).', 0.8)).toBe('Coincidieron casco, bicicleta (puntaje 3.2; le sigue 8712.00.00 con 1.1).');
  });

  it('keep the API text in English when the console is in English', () => {
    const r = customsChannel({ awb: 'A', regime: 'P', taxIdValid: false, classificationConfidence: 0.9, fob_usd: 1, cif_usd: 1, prohibited: false }).reasons[0];
    expect(reasonIn('en', r, 0.8)).toBe(r);
  });

  it('name every review cause the queue gives, in Spanish and in English', () => {
    const source = readFileSync('lambdas/http/console/i18n.ts', 'utf8');
    expect(reviewCauseNames.filter((c) => !new RegExp(`cause_${c}: \\['[^']+', '[^']+'\\]`).test(source))).toEqual([]);
  });
});

describe('the update log in Spanish', () => {
  it('says every decision and every reason the update mode writes', () => {
    const seen = new Set<string>();
    const said = [
      decide(undefined, { key: '', hash: 'h', awb: 'A' }, seen),
      decide(undefined, { key: 'k1', hash: 'h', awb: 'A' }, seen),
      decide(undefined, { key: 'k1', hash: 'h', awb: 'A' }, seen),
      decide(undefined, { key: 'k2', hash: 'h' }, seen),
      decide(undefined, { key: 'k3', hash: 'h', awb: 'A', crossTeam: true }, seen),
      decide({ key: 'k4', hash: 'h' }, { key: 'k4', hash: 'h', awb: 'A' }, seen),
      decide({ key: 'k5', hash: 'h' }, { key: 'k5', hash: 'g', awb: 'A' }, seen),
    ];
    expect(new Set(said.map((d) => d.decision))).toEqual(new Set(['CREATE', 'UPDATE', 'SKIP', 'REJECT']));
    expect(said.filter((d) => !itemDecisionsEs[d.decision] || !itemDecisionReasonsEs[d.reason])).toEqual([]);
    expect(itemDecisionIn('es', 'CREATE', 'no existing record in the batch')).toEqual({ decision: 'ALTA', reason: 'no había un registro en el lote' });
  });
});

/** Every `error: '<code>'` a source of lambdas/ sets beside the named errors' codes. */
function codesSetInSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...codesSetInSources(path));
    else if (path.endsWith('.ts')) for (const m of readFileSync(path, 'utf8').matchAll(/\berror: '([a-z_]+)'/g)) out.push(m[1]);
  }
  return out;
}

describe("the API's errors in Spanish", () => {
  it('have a Spanish sentence for every error code the API can answer, so a code added without one fails here', () => {
    // Every named error of core/errors.ts: a class whose instances are ServiceErrors, made once to read its code.
    const classes: unknown[] = Object.values(errors);
    const isErrorClass = (c: unknown): c is new (message?: string) => errors.ServiceError => typeof c === 'function' && c.prototype instanceof errors.ServiceError;
    const named = [...classes.filter(isErrorClass).filter((C) => C.name !== 'ValidationFailed').map((C) => new C().code), new errors.ValidationFailed({}).code];
    const codes = new Set([...named, new errors.ServiceError().code, ...codesSetInSources('lambdas')]);
    expect(codes.size).toBeGreaterThan(15);
    expect([...codes].filter((c) => !errorCodesEs[c])).toEqual([]);
  });

  it('say the field messages of a correction in Spanish, naming the field when the text is not known', () => {
    expect(fieldErrorsEs({ ncm_code: ['Must be an 8-digit NCM, e.g. 6109.10.00 or 61091000.'], reason: ['Must not be empty.'] })).toEqual({
      ncm_code: ['Debe ser un NCM de 8 dígitos, por ejemplo 6109.10.00 o 61091000.'],
      reason: ['No puede estar vacío.'],
    });
    expect(fieldMessageEs('ncm_code', '9999.99.99 is not a row of the tariff table in force.')).toBe('9999.99.99 no es una fila del arancel vigente.');
    expect(fieldMessageEs('notes', 'Something new the API says.')).toBe('El campo «Notas» no es válido.');
    expect(errorMessageEs('validation_failed', 422)).toBe('Los datos enviados no son válidos.');
    expect(errorMessageEs(undefined, 502)).toBe('La solicitud falló (HTTP 502).');
  });
});

describe('the webhook dashboard in Spanish', () => {
  it('describes every event, names every event group, health and delivery state, so one added without its Spanish fails here', () => {
    expect(webhookEvents.map((e) => e.event).filter((e) => !eventDescriptionsEs[e])).toEqual([]);
    const groups = [...new Set(webhookEvents.map((e) => e.event.split('.')[0]))];
    expect(groups.filter((g) => named('es', 'type', g) === g)).toEqual([]);
    expect(Object.keys(healthColors).filter((h) => named('es', 'health', h) === h)).toEqual([]);
    expect(deliveryStates.filter((s) => named('es', 'state', s) === s)).toEqual([]);
    expect(named('en', 'state', 'failed')).toBe('failed');
  });

  it('says why a subscription was disabled in Spanish', () => {
    expect(disabledReasonIn('es', 'Disabled after 10 consecutive failed deliveries.')).toBe('Deshabilitada tras 10 entregas fallidas seguidas.');
    expect(disabledReasonIn('es', 'Disabled at once: the endpoint answered 410 Gone.')).toBe('Deshabilitada de inmediato: el destino respondió 410 Gone.');
  });
});
