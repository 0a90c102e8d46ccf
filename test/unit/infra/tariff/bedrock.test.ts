import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BedrockRuntimeClient, ConverseCommand, ThrottlingException } from '@aws-sdk/client-bedrock-runtime';
import { builtinTariff } from '#core/tariff/builtin';
import { createOfflineClassifier } from '#core/tariff/classifier';
import { createBedrockClassifier, parseAnswer } from '#infra/tariff/bedrock';
import { calibratedAi, calibration, underReview } from '#core/tariff/calibration';
import { createHsIndex } from '#core/tariff/hs-fallback';
import { hsNomenclature } from '#infra/tariff/hs-nomenclature';
import { tariffClassifier, tableClassifier, useTariffClassifier } from '#infra/tariff/classifier-port';

const bedrock = mockClient(BedrockRuntimeClient);
const modelId = 'anthropic.claude-3-haiku-20240307-v1:0';
const offline = createOfflineClassifier(builtinTariff);
const sneakers = { description: 'Nike Air Max 90 mens running shoes size 42' };

const answering = (text: string) => ({ output: { message: { role: 'assistant' as const, content: [{ text }] } } });
const classifier = (opts: { cacheSize?: number } = {}) =>
  createBedrockClassifier({ modelId, offline, client: new BedrockRuntimeClient({ region: 'us-east-1' }), ...opts });

beforeEach(() => {
  bedrock.reset();
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
});

describe('the Bedrock tariff classifier', () => {
  it('asks the configured model at temperature 0 to choose among the retrieved candidates', async () => {
    bedrock.on(ConverseCommand).resolves(answering('{"ncm_code": "6404.11.00", "confidence": 0.92}'));
    await classifier().classify(sneakers);
    const calls = bedrock.commandCalls(ConverseCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0].args[0].input;
    expect(input.modelId).toBe(modelId);
    expect(input.inferenceConfig).toEqual({ temperature: 0, maxTokens: 200 });
    expect(input.system?.[0].text).toContain('JSON');
    const prompt = input.messages?.[0].content?.[0].text ?? '';
    expect(input.messages?.[0].role).toBe('user');
    expect(prompt).toContain('Nike Air Max 90 mens running shoes size 42');
    for (const c of offline.candidates(sneakers, 8)) expect(prompt).toContain(`- ${c.row.ncm}: ${c.row.description}`);
  });

  it("carries the evidence the offline tiers have: each candidate's HS subheading text and the offline answer with what decided it", async () => {
    bedrock.on(ConverseCommand).resolves(answering('{"ncm_code": "6404.11.00", "confidence": 0.92}'));
    const hs = createHsIndex(hsNomenclature);
    await createBedrockClassifier({ modelId, offline, client: new BedrockRuntimeClient({ region: 'us-east-1' }), hs: async () => hs }).classify(sneakers);
    const prompt = bedrock.commandCalls(ConverseCommand)[0].args[0].input.messages?.[0].content?.[0].text ?? '';
    const proposal = offline.classify(sneakers, hs);
    expect(prompt).toContain(`Evidence: the offline classifier answers ${proposal.ncm_code} (confidence ${proposal.confidence}, ${proposal.source})`);
    expect(prompt).toContain(`[HS 6404.11: ${hs.subheading('640411')!.description.slice(0, 200)}]`);
  });

  it("maps the model's confidence by the calibration fit for that model, and keeps another model's under the review threshold", () => {
    const fitted = { ...calibration, ai: { model: modelId, measured_on: '2026-12-06', items: 10, accuracy6: 0.9, map: [{ from: 0.9, to: 1, items: 10, right: 9, confidence: 0.87 }] } };
    expect(calibratedAi(modelId, 0.92, fitted)).toBe(0.87);
    expect(calibratedAi('another-model', 0.92, fitted)).toBe(underReview(fitted.review_below));
    expect(calibratedAi(modelId, 0.2, fitted)).toBe(0.2);
  });

  it('answers with source ai when the model picks a candidate', async () => {
    bedrock.on(ConverseCommand).resolves(answering('```json\n{"ncm_code": "64041100", "confidence": 0.92}\n```'));
    const c = await classifier().classify(sneakers);
    expect(c).toMatchObject({ ncm_code: '6404.11.00', source: 'ai', duty_rate: 35 });
    // No calibration fit for this model: its own 0.92 is no evidence, the answer is reviewed.
    expect(c.confidence).toBe(underReview());
    expect(c.reason).toContain(modelId);
  });

  it('falls back to the offline answer when the model answers a code outside the candidates', async () => {
    bedrock.on(ConverseCommand).resolves(answering('{"ncm_code": "0101.21.00", "confidence": 0.99}'));
    const c = await classifier().classify(sneakers);
    expect(c).toMatchObject({ ncm_code: offline.classify(sneakers).ncm_code, source: 'offline' });
    expect(c.reason).toContain('0101.21.00, which is not one of the');
  });

  it('falls back to the offline answer on malformed JSON', async () => {
    bedrock.on(ConverseCommand).resolves(answering('I think it is a shoe.'));
    const c = await classifier().classify(sneakers);
    expect(c.source).toBe('offline');
    expect(c.reason).toContain('not the expected JSON');
  });

  it('falls back to the offline answer when the model is throttled', async () => {
    bedrock.on(ConverseCommand).rejects(new ThrottlingException({ message: 'slow down', $metadata: {} }));
    const c = await classifier().classify(sneakers);
    expect(c).toMatchObject({ ncm_code: '6404.11.00', source: 'offline' });
    expect(c.reason).toContain('throttled');
  });

  it('falls back to the offline answer on any other error', async () => {
    bedrock.on(ConverseCommand).rejects(Object.assign(new Error('no access'), { name: 'AccessDeniedException' }));
    const c = await classifier().classify(sneakers);
    expect(c.source).toBe('offline');
    expect(c.reason).toContain('AccessDeniedException');
  });

  it('sends the offline answer to review when the model finds no candidate fitting', async () => {
    bedrock.on(ConverseCommand).resolves(answering('{"ncm_code": null, "confidence": 0.8}'));
    const c = await classifier().classify(sneakers);
    expect(c.source).toBe('offline');
    expect(c.confidence).toBeLessThanOrEqual(0.5);
    expect(c.reason).toContain('no candidate fitting');
  });

  it('answers a repeated description from its cache, without a second call', async () => {
    bedrock.on(ConverseCommand).resolves(answering('{"ncm_code": "6404.11.00", "confidence": 0.9}'));
    const ai = classifier();
    const first = await ai.classify(sneakers);
    const second = await ai.classify({ description: '  NIKE air max 90 MENS running shoes, size 42!' });
    expect(second).toEqual(first);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(1);
  });

  it('keeps its cache bounded, dropping the least recently used description', async () => {
    bedrock.on(ConverseCommand).resolves(answering('{"ncm_code": "6404.11.00", "confidence": 0.9}'));
    const ai = classifier({ cacheSize: 1 });
    await ai.classify(sneakers);
    await ai.classify({ description: 'zapatillas running' });
    await ai.classify(sneakers);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(3);
  });

  it('keeps a valid partner hsCode without asking the model', async () => {
    const c = await classifier().classify({ ...sneakers, hsCode: '6404.11.00' });
    expect(c).toMatchObject({ ncm_code: '6404.11.00', source: 'partner', confidence: 1 });
    expect(bedrock.calls()).toHaveLength(0);
  });

  it('does not ask when no row matches: the offline fallback answers', async () => {
    const c = await classifier().classify({ description: 'qqq zzz' });
    expect(c.confidence).toBeLessThan(0.3);
    expect(bedrock.calls()).toHaveLength(0);
  });
});

describe("reading the model's answer", () => {
  it('takes strict JSON with a code in either spelling and a confidence from 0 to 1', () => {
    expect(parseAnswer('{"ncm_code":"8517.13.00","confidence":0.7}')).toEqual({ ncm: '8517.13.00', confidence: 0.7 });
    expect(parseAnswer('{"ncm_code":"85171300","confidence":1}')).toEqual({ ncm: '8517.13.00', confidence: 1 });
    expect(parseAnswer('{"ncm_code":null,"confidence":0}')).toEqual({ ncm: null, confidence: 0 });
  });

  it('refuses anything else', () => {
    for (const text of ['', 'none', '{"ncm_code":"8517.13","confidence":0.5}', '{"ncm_code":"8517.13.00","confidence":1.5}', '{"ncm_code":"8517.13.00"}', '{"ncm_code":8517,"confidence":0.5}', '[1]']) {
      expect(parseAnswer(text), text).toBeUndefined();
    }
  });
});

describe('the classifier port', () => {
  it('can be replaced for tests and restored', async () => {
    const fixed = { classify: async () => ({ ...offline.fallback('fixed'), source: 'ai' as const }) };
    useTariffClassifier(fixed);
    expect(tariffClassifier()).toBe(fixed);
    useTariffClassifier(tableClassifier);
    expect(tariffClassifier()).toBe(tableClassifier);
  });
});
