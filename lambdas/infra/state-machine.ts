import { createHash } from 'node:crypto';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { config } from '#shared/config';
import { traced } from './tracing';

/** Where pipeline runs start: Step Functions in AWS, the twin's runner locally. */
export interface PipelineRunner {
  start(input: PipelineRunInput): Promise<void>;
}

export interface PipelineRunInput {
  accountId: number;
  batchId: string;
  runId: string;
  /** Only this shipment (a tax-id correction), instead of everything the run wrote. */
  awb?: string;
  /** The day whose exchange rate the run takes (a batch completed waiting for it: amounts in pesos), instead of the day before the run. */
  rateDay?: string;
}

/** One execution per (batch, run): its name is derived from them, so a repeated start is refused by Step Functions, not run twice. */
export const executionName = (input: PipelineRunInput) => createHash('sha256').update(`${input.batchId}|${input.runId}`).digest('hex').slice(0, 64);

let client: SFNClient | undefined;

export const stepFunctions: PipelineRunner = {
  async start(input) {
    client ??= traced(new SFNClient({}));
    try {
      await client.send(new StartExecutionCommand({ stateMachineArn: config.pipelineArn(), name: executionName(input), input: JSON.stringify(input) }));
    } catch (err) {
      if ((err as { name?: string }).name !== 'ExecutionAlreadyExists') throw err;
    }
  },
};

let current: PipelineRunner = stepFunctions;

export const pipelineRunner = (): PipelineRunner => current;

export function usePipelineRunner(runner: PipelineRunner): void {
  current = runner;
}
