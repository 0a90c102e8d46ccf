import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { SQSClient, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { SchedulerClient, CreateScheduleCommand } from '@aws-sdk/client-scheduler';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { sqsQueues } from '#infra/queues';
import { awsTimers, queueArnFromUrl } from '#infra/timers';
import { eventBridge, domainEvent } from '#infra/events';
import { s3Blobs, s3Proofs } from '#infra/blobs';
import { manualClock, useClock } from '#infra/clock';

const sqs = mockClient(SQSClient);
const scheduler = mockClient(SchedulerClient);
const bridge = mockClient(EventBridgeClient);
const s3 = mockClient(S3Client);
const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/despacho-dev-webhookDelivery';

beforeEach(() => {
  sqs.reset();
  scheduler.reset();
  bridge.reset();
  s3.reset();
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  process.env.QUEUE_URL_WEBHOOK_DELIVERY = queueUrl;
  process.env.EVENT_BUS_NAME = 'despacho-dev';
  process.env.BUCKET_NAME = 'despacho-dev-files';
  process.env.PROOFS_BUCKET_NAME = 'despacho-dev-proofs';
  process.env.SCHEDULER_ROLE_ARN = 'arn:aws:iam::123456789012:role/scheduler';
  process.env.SCHEDULER_GROUP = 'despacho-dev';
});

describe('the SQS queue adapter', () => {
  it('sends the JSON body to the queue URL of the catalog queue', async () => {
    sqs.on(SendMessageCommand).resolves({});
    await sqsQueues.send('webhookDelivery', { a: 1 }, { delaySeconds: 60 });
    expect(sqs.commandCalls(SendMessageCommand)[0].args[0].input).toEqual({ QueueUrl: queueUrl, MessageBody: '{"a":1}', DelaySeconds: 60 });
  });

  it('sends many messages ten per call', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    await sqsQueues.sendBatch('webhookDelivery', Array.from({ length: 23 }, (_, i) => ({ i })));
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.map((c) => c.args[0].input.Entries!.length)).toEqual([10, 10, 3]);
    expect(calls[2].args[0].input.Entries![2]).toEqual({ Id: '22', MessageBody: '{"i":22}' });
  });

  it('fails loudly when SQS refuses part of a batch', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Failed: [{ Id: '0', SenderFault: false, Code: 'x' }] });
    await expect(sqsQueues.sendBatch('webhookDelivery', [{}])).rejects.toThrow(/refused 1/);
  });

  it('never asks SQS for more than its 15-minute delay', async () => {
    sqs.on(SendMessageCommand).resolves({});
    await sqsQueues.send('webhookDelivery', {}, { delaySeconds: 7200 });
    expect(sqs.commandCalls(SendMessageCommand)[0].args[0].input.DelaySeconds).toBe(900);
  });
});

describe('the durable timer adapter', () => {
  const clock = manualClock(new Date('2026-11-20T10:00:00Z'));
  beforeEach(() => useClock(clock));

  it('uses an SQS delay for a timer up to 15 minutes away', async () => {
    sqs.on(SendMessageCommand).resolves({});
    await awsTimers.at(new Date('2026-11-20T10:05:00Z'), 'webhookDelivery', { retry: 3 });
    expect(sqs.commandCalls(SendMessageCommand)[0].args[0].input.DelaySeconds).toBe(300);
    expect(scheduler.calls()).toHaveLength(0);
  });

  it('uses a one-time EventBridge Scheduler schedule beyond 15 minutes, deleted after it fires', async () => {
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    await awsTimers.at(new Date('2026-11-21T10:00:00Z'), 'webhookDelivery', { retry: 6 });
    const input = scheduler.commandCalls(CreateScheduleCommand)[0].args[0].input;
    expect(input).toMatchObject({
      GroupName: 'despacho-dev',
      ScheduleExpression: 'at(2026-11-21T10:00:00)',
      ScheduleExpressionTimezone: 'UTC',
      ActionAfterCompletion: 'DELETE',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: 'arn:aws:sqs:us-east-1:123456789012:despacho-dev-webhookDelivery', RoleArn: 'arn:aws:iam::123456789012:role/scheduler', Input: '{"retry":6}' },
    });
    expect(sqs.calls()).toHaveLength(0);
  });

  it('names a schedule by its queue, time and message, so the same timer set twice is one schedule', async () => {
    scheduler.on(CreateScheduleCommand).resolvesOnce({ ScheduleArn: 'arn' }).rejects(Object.assign(new Error('exists'), { name: 'ConflictException' }));
    const when = new Date('2026-11-21T10:00:00Z');
    await awsTimers.at(when, 'webhookDelivery', { retry: 6 });
    await awsTimers.at(when, 'webhookDelivery', { retry: 6 });
    await awsTimers.at(when, 'webhookDelivery', { retry: 7 }).catch(() => undefined);
    const names = scheduler.commandCalls(CreateScheduleCommand).map((c) => c.args[0].input.Name);
    expect(names[0]).toBe(names[1]);
    expect(names[2]).not.toBe(names[0]);
    expect(names[0]).toMatch(/^t-[0-9a-f]{48}$/);
  });

  it('passes on any refusal of a schedule but the one that says it exists', async () => {
    scheduler.on(CreateScheduleCommand).rejects(Object.assign(new Error('no role'), { name: 'ValidationException' }));
    await expect(awsTimers.at(new Date('2026-11-21T10:00:00Z'), 'webhookDelivery', { retry: 6 })).rejects.toThrow('no role');
  });

  it('derives a queue ARN from its URL', () => {
    expect(queueArnFromUrl(queueUrl)).toBe('arn:aws:sqs:us-east-1:123456789012:despacho-dev-webhookDelivery');
  });
});

describe('the EventBridge adapter', () => {
  it('puts events on the bus in batches of ten', async () => {
    bridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0 });
    const events = Array.from({ length: 12 }, (_, i) => domainEvent('order.created', 1, { i }));
    await eventBridge.publish(events);
    const calls = bridge.commandCalls(PutEventsCommand);
    expect(calls.map((c) => c.args[0].input.Entries!.length)).toEqual([10, 2]);
    expect(calls[0].args[0].input.Entries![0]).toMatchObject({ EventBusName: 'despacho-dev', Source: 'despacho', DetailType: 'order.created' });
    expect(JSON.parse(calls[0].args[0].input.Entries![0].Detail!)).toEqual(events[0]);
  });

  it('fails loudly when the bus rejects an entry, so the caller can retry', async () => {
    bridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1 });
    await expect(eventBridge.publish([domainEvent('order.created', 1, {})])).rejects.toThrow(/rejected 1/);
  });
});

describe('the S3 blob adapter', () => {
  it('stores files in the configured bucket with their content type', async () => {
    s3.on(PutObjectCommand).resolves({});
    await s3Blobs.put('documents/1/a.pdf', Buffer.from('x'), 'application/pdf');
    expect(s3.commandCalls(PutObjectCommand)[0].args[0].input).toMatchObject({ Bucket: 'despacho-dev-files', Key: 'documents/1/a.pdf', ContentType: 'application/pdf' });
  });

  it('answers a missing object with undefined', async () => {
    s3.on(GetObjectCommand).rejects(Object.assign(new Error('missing'), { name: 'NoSuchKey' }));
    expect(await s3Blobs.get('nope')).toBeUndefined();
  });

  it('streams a small file to the bucket in one PutObject with its content type', async () => {
    s3.on(PutObjectCommand).resolves({});
    await s3Blobs.putStream('exports/B1/r1/products.csv', Readable.from([Buffer.from('a,b\r\n'), Buffer.from('1,2\r\n')]), 'text/csv; charset=utf-8');
    const input = s3.commandCalls(PutObjectCommand)[0].args[0].input;
    expect(input).toMatchObject({ Bucket: 'despacho-dev-files', Key: 'exports/B1/r1/products.csv', ContentType: 'text/csv; charset=utf-8' });
    expect(Buffer.from(input.Body as Uint8Array).toString()).toBe('a,b\r\n1,2\r\n');
    expect(s3.commandCalls(CreateMultipartUploadCommand)).toHaveLength(0);
  });

  it('streams a file larger than a part as a multipart upload of 5 MB parts, completed once every part is in', async () => {
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'up-1' });
    s3.on(UploadPartCommand).callsFake((input: { PartNumber: number }) => ({ ETag: `"etag-${input.PartNumber}"` }));
    s3.on(CompleteMultipartUploadCommand).resolves({});
    const mb = Buffer.alloc(1024 * 1024, 'x');
    await s3Blobs.putStream('exports/B1/r1/products.json', Readable.from(Array.from({ length: 12 }, () => mb)), 'application/json');
    expect(s3.commandCalls(CreateMultipartUploadCommand)[0].args[0].input).toMatchObject({ Bucket: 'despacho-dev-files', Key: 'exports/B1/r1/products.json', ContentType: 'application/json' });
    const parts = s3.commandCalls(UploadPartCommand).map((c) => c.args[0].input);
    expect(parts.map((p) => [p.PartNumber!, (p.Body as Uint8Array).length]).sort((a, b) => a[0] - b[0])).toEqual([
      [1, 5 * 1024 * 1024],
      [2, 5 * 1024 * 1024],
      [3, 2 * 1024 * 1024],
    ]);
    expect(s3.commandCalls(CompleteMultipartUploadCommand)[0].args[0].input).toMatchObject({
      UploadId: 'up-1',
      MultipartUpload: { Parts: [1, 2, 3].map((n) => ({ PartNumber: n, ETag: `"etag-${n}"` })) },
    });
  });

  it('never completes the object when the stream fails half-way, and reports the stream\'s failure', async () => {
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'up-2' });
    s3.on(UploadPartCommand).resolves({ ETag: '"e"' });
    async function* failing() {
      for (let i = 0; i < 6; i++) yield Buffer.alloc(1024 * 1024, 'x');
      throw new Error('results part missing');
    }
    await expect(s3Blobs.putStream('exports/B1/r1/products.xlsx', Readable.from(failing()), 'application/octet-stream')).rejects.toThrow('results part missing');
    expect(s3.commandCalls(CompleteMultipartUploadCommand)).toHaveLength(0);
    expect(s3.commandCalls(AbortMultipartUploadCommand)).toHaveLength(0);
  });

  it('reads a file as a stream, and a missing one as undefined', async () => {
    s3.on(GetObjectCommand, { Key: 'exports/B1/r1/products.csv' }).resolves({ Body: Readable.from([Buffer.from('a,b\r\n')]) as never });
    s3.on(GetObjectCommand, { Key: 'nope' }).rejects(Object.assign(new Error('missing'), { name: 'NoSuchKey' }));
    expect(await text((await s3Blobs.getStream('exports/B1/r1/products.csv'))!)).toBe('a,b\r\n');
    expect(await s3Blobs.getStream('nope')).toBeUndefined();
  });

  it('stores a compressed file with its Content-Encoding as object metadata, so S3 serves it with that header', async () => {
    s3.on(PutObjectCommand).resolves({});
    await s3Blobs.putStream('exports/B1/r1/products.csv.gz', Readable.from([Buffer.from([0x1f, 0x8b])]), 'text/csv; charset=utf-8', { contentEncoding: 'gzip' });
    expect(s3.commandCalls(PutObjectCommand)[0].args[0].input).toMatchObject({ Key: 'exports/B1/r1/products.csv.gz', ContentType: 'text/csv; charset=utf-8', ContentEncoding: 'gzip' });
  });

  it('presigns a download URL of a compressed file that answers with its Content-Type and Content-Encoding', async () => {
    const url = new URL(await s3Blobs.downloadUrl('exports/B1/r1/products.json.gz', { expiresInSeconds: 3600, fileName: 'm.json', contentType: 'application/json', contentEncoding: 'gzip' }));
    expect(url.searchParams.get('response-content-encoding')).toBe('gzip');
    expect(url.searchParams.get('response-content-type')).toBe('application/json');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('presigns a download URL that expires and names the file', async () => {
    const url = new URL(await s3Blobs.downloadUrl('documents/1/a.pdf', { expiresInSeconds: 3600, fileName: 'Guía.pdf' }));
    expect(url.hostname).toContain('despacho-dev-files');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(url.searchParams.get('response-content-disposition')).toContain("filename*=UTF-8''Gu%C3%ADa.pdf");
  });
});

describe('webhook endpoints in a deployed stage', () => {
  it('refuses a private IP literal when the subscription is made', async () => {
    process.env.STAGE = 'prod';
    try {
      const { validateEndpoint } = await import('#services/webhooks/webhooks');
      for (const url of ['https://10.0.0.1/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest', 'http://example.com/hook']) {
        expect(() => validateEndpoint(url), url).toThrow();
      }
      expect(() => validateEndpoint('https://hooks.example.com/in')).not.toThrow();
    } finally {
      delete process.env.STAGE;
    }
  });
});

describe('the proofs of delivery adapter (S3 Object Lock)', () => {
  it('writes a proof to the proofs bucket only if the key holds nothing, with a checksum as Object Lock asks', async () => {
    s3.on(PutObjectCommand).resolves({});
    expect(await s3Proofs.putOnce('proofs/7/a/b.png', Buffer.from('x'), 'image/png')).toBe('stored');
    expect(s3.commandCalls(PutObjectCommand)[0].args[0].input).toMatchObject({ Bucket: 'despacho-dev-proofs', Key: 'proofs/7/a/b.png', ContentType: 'image/png', IfNoneMatch: '*', ChecksumAlgorithm: 'SHA256' });
  });

  it("answers 'exists' when S3 refuses the write because the key is taken (412), and writes nothing else", async () => {
    s3.on(PutObjectCommand).rejects(Object.assign(new Error('At least one of the pre-conditions you specified did not hold'), { name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 } }));
    expect(await s3Proofs.putOnce('proofs/7/a/b.png', Buffer.from('y'), 'image/png')).toBe('exists');
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(1);
  });

  it('passes on any other refusal', async () => {
    s3.on(PutObjectCommand).rejects(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }));
    await expect(s3Proofs.putOnce('proofs/7/a/b.png', Buffer.from('y'), 'image/png')).rejects.toThrow('Access Denied');
  });
});
