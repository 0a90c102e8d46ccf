/**
 * The layers of lambdas/ (docs/developers/architecture.md). An arrow may point down or sideways, never up,
 * and no module reaches itself through its imports (no-circular, everywhere: lambdas, twin, hosts):
 *
 *   entry points   lambdas/http, lambdas/workers, lambdas/catalog (the areas' files and index.ts)
 *   services       lambdas/services
 *   adapters       lambdas/infra
 *   rules          lambdas/core
 *
 * Beside them, usable from every layer but core: lambdas/shared (the logger and the runtime
 * settings; no domain, no data access). Usable from every layer, core included: the declarations
 * of lambdas/catalog (types.ts, queues.ts, rates.ts, access.ts, routing.ts), which are types, data
 * and path matching and import nothing but each other; core reads only their types (the OpenAPI
 * document, which reads the routes' paths, is built in http/system/openapi-document.ts). Hosts
 * (twin/, bin/, lib/, scripts/) run or
 * deploy the layers and may import any of them; nothing in lambdas/ imports a host.
 *
 * Type-only imports count (tsPreCompilationDeps): a type is an arrow too.
 */
const declarations = '^lambdas/catalog/((types|queues|rates|access|routing)[.]ts|access[.]json)$';
const local = '^(lambdas|twin|bin|lib|scripts|test)/';

/** A rule forbidding `from` any local import that is not one of `allowed`. */
function only(name, comment, from, allowed) {
  return { name, comment, severity: 'error', from: { path: from }, to: { path: local, pathNot: [...allowed, declarations] } };
}

module.exports = {
  forbidden: [
    only('core-imports-only-core', 'core holds the rules: it imports core and the declarations, nothing of infra, services, shared, http, workers or the catalog.', '^lambdas/core/', ['^lambdas/core/']),
    {
      name: 'core-imports-no-aws',
      comment: 'core is tested without mocks: no AWS SDK, Lambda types, Powertools, middy or ElectroDB.',
      severity: 'error',
      from: { path: '^lambdas/core/' },
      to: { path: '^node_modules/(@aws-sdk|@smithy|@aws-lambda-powertools|@types/aws-lambda|@middy|electrodb)/' },
    },
    only('infra-imports-core-and-infra', 'adapters may use the rules and each other, never services or entry points.', '^lambdas/infra/', ['^lambdas/(infra|core|shared)/']),
    only('services-import-down', 'services join rules and adapters; they never reach an entry point.', '^lambdas/services/', ['^lambdas/(services|infra|core|shared)/']),
    only('http-goes-through-services', 'a handler calls services and core (for pure types and rules), never an adapter directly.', '^lambdas/http/', ['^lambdas/(http|services|core|shared|catalog)/']),
    only('workers-go-through-services', 'a worker is an entry point like a handler: services and core, no adapter, no handler.', '^lambdas/workers/', ['^lambdas/(workers|services|core|shared)/']),
    only('catalog-declares-entry-points', 'the catalog names handlers, schemas and events; it reaches no service or adapter.', '^lambdas/catalog/', ['^lambdas/(catalog|http|workers|core|shared)/']),
    only('shared-imports-only-shared', 'shared is beneath every layer but core, so it imports nothing of them.', '^lambdas/shared/', ['^lambdas/shared/']),
    only('declarations-import-only-declarations', 'every layer may import the declarations, so they import nothing of any layer.', declarations, []),
    {
      name: 'answers-only-for-the-reference',
      comment: "the answer schemas (http/<area>/responses.ts, http/manifests/alternative/responses.ts) are read by the routes and the openapi function only: a handler importing them would carry every schema in its bundle. The events' payloads (http/webhooks/event-payloads.ts) are answers of the reference too, built from the same kit.",
      severity: 'error',
      from: { path: '^lambdas/', pathNot: '^lambdas/http/(.+/responses|system/openapi(-document)?|webhooks/event-payloads)[.]ts$' },
      to: { path: '^lambdas/http/(.+/responses|webhooks/event-payloads)[.]ts$' },
    },
    {
      name: 'intake-worker-not-request-half',
      comment: "the intake's worker half (writer.ts) and its request half (intake.ts) share only intake-job.ts (the job's type, queue and stored payload): following a job never climbs back into the request.",
      severity: 'error',
      from: { path: '^lambdas/(services/manifests/writer|workers/manifests/intake)[.]ts$' },
      to: { path: '^lambdas/services/manifests/intake[.]ts$' },
    },
    {
      name: 'no-circular',
      comment: 'no module reaches itself through its imports: a circle has no bottom layer to read (or test, or load) first.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lambdas-import-no-host',
      comment: 'twin, bin, lib and scripts run or deploy the functions; no function imports them.',
      severity: 'error',
      from: { path: '^lambdas/' },
      to: { path: '^(twin|bin|lib|scripts|test)/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: '^node_modules' },
    exclude: { path: '^(node_modules|cdk[.]out|[.]data)/' },
  },
};
