import type { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * X-Ray subsegments for every AWS SDK call (and outgoing HTTPS request) through the Powertools
 * tracer, where the stage turns it on: the CDK sets POWERTOOLS_TRACE_ENABLED per stage
 * (lib/stage.ts `tracing`). The tracer and the X-Ray SDK under it (about 120 KB) are not in the
 * handler's bundle: they are bundled beside it as xray-tracer.mjs (lib/bundling.ts `lazyModules`)
 * and loaded only then, so with tracing off (and on the twin, which is no Lambda) a function
 * neither parses nor evaluates them at cold start.
 */
const enabled = process.env.POWERTOOLS_TRACE_ENABLED === 'true' && Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);

/** The file beside the bundle (a computed URL, so esbuild leaves the import to run time). */
const tracerModule = new URL('./xray-tracer.mjs', import.meta.url).href;

const tracer: Tracer | undefined = enabled
  ? new ((await import(tracerModule)) as typeof import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: 'despacho' })
  : undefined;

/** The client, its calls traced when tracing is on; the client itself otherwise. */
export function traced<C>(client: C): C {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}
