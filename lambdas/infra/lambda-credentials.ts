import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * What `@aws-sdk/credential-provider-node` resolves to inside a Lambda bundle (lib/bundling.ts
 * `alias`). Lambda hands every function its role's credentials in the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), so the SDK's default chain (SSO,
 * ini files, process, container and instance metadata, web identity, with the STS and SSO clients
 * they bring) would never get past its first link: reading the environment. Measured with
 * `npm run bench:cold`'s bundler: OrdersList 672 KB and 114 ms to 542 KB and 103 ms. The twin and
 * tests run the sources, which keep the full chain.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
