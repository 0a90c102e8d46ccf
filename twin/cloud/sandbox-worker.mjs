// One Lambda execution environment of the cloud lane: a worker thread that loads one function's
// bundle (as Lambda's Node runtime does: `import` of the file `Handler` names) with exactly the
// environment the template gives that function, and runs one invocation at a time.
// The lane's clock: Date reads the shared offset (milliseconds) the lane moves, so a function
// sees the moved time as moto does.
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

const offset = new Float64Array(workerData.clock);
const RealDate = Date;
class LaneDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset[0]);
    else super(...args);
  }
  static now() {
    return RealDate.now() + offset[0];
  }
}
globalThis.Date = LaneDate;

function lambdaError(err) {
  const e = err instanceof Error ? err : new Error(String(err));
  return { errorType: e.name || 'Error', errorMessage: e.message, trace: String(e.stack ?? '').split('\n') };
}

let handler;
try {
  const mod = await import(pathToFileURL(workerData.file).href);
  handler = mod[workerData.export];
  if (typeof handler !== 'function') throw new Error(`${workerData.file} exports no function ${workerData.export}`);
  parentPort.postMessage({ ready: true });
} catch (err) {
  // Runtime.ImportModuleError / an error at init: every invocation of this environment fails so.
  parentPort.postMessage({ ready: false, error: { ...lambdaError(err), errorType: 'Runtime.ImportModuleError' } });
}

parentPort.on('message', async (msg) => {
  const deadline = RealDate.now() + msg.timeoutMs;
  const context = {
    functionName: workerData.functionName,
    functionVersion: workerData.functionVersion ?? '$LATEST',
    invokedFunctionArn: workerData.functionArn,
    memoryLimitInMB: String(workerData.memoryMb),
    awsRequestId: msg.requestId,
    logGroupName: `/aws/lambda/${workerData.functionName}`,
    logStreamName: 'cloud-lane',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - RealDate.now()),
    done() {},
    fail() {},
    succeed() {},
  };
  try {
    const result = await handler(msg.event, context);
    parentPort.postMessage({ id: msg.id, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: lambdaError(err) });
  }
});
