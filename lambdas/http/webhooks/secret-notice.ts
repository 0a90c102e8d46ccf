/** What a creation or a rotation says about the secret it shows (its own module: a handler may not import the answer schemas). */
export const secretNotice =
  'Store the secret now: it is shown only once. It signs both X-Service-Signature and webhook-signature; a Standard Webhooks library takes it as it is.';
