/**
 * The Powertools tracer (with the X-Ray SDK under it) as a module of its own: lib/bundling.ts
 * bundles it beside index.mjs as xray-tracer.mjs, and lambdas/infra/tracing.ts imports that file
 * only where the stage turns tracing on, so no handler's main bundle carries it.
 */
export { Tracer } from '@aws-lambda-powertools/tracer';
