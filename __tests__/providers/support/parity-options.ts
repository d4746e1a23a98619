// The options both Auth.js's and Gatehouse's providers are built with for the parity comparison (and its snapshot).

/** Issuers for the providers whose issuer is the customer's tenant or instance. */
const TENANT_ISSUERS: Readonly<Record<string, string>> = {
  auth0: "https://tenant.auth0.example",
  authentik: "https://sso.example/application/o/app/",
  "azure-ad-b2c": "https://contoso.b2clogin.example/tid/v2.0/",
  battlenet: "https://oauth.battle.net",
  cognito: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool",
  fusionauth: "https://auth.fusion.example",
  keycloak: "https://kc.example/realms/demo",
  mastodon: "https://mastodon.example",
  okta: "https://dev-1.okta.example/oauth2/default",
  onelogin: "https://acme.onelogin.example/oidc/2",
  "ping-id": "https://auth.ping.example/env/as",
  zitadel: "https://my-instance.zitadel.example",
}

/**
 * The options of provider `id` for the parity comparison: a client, and the tenant issuer when the provider needs one.
 *
 * @example
 * ```ts
 * parityOptions("okta") // { clientId: "client-123", clientSecret: "secret-456", issuer: "https://dev-1.okta.example/..." }
 * ```
 */
export function parityOptions(id: string): Record<string, string> {
  const issuer = TENANT_ISSUERS[id]
  return { clientId: "client-123", clientSecret: "secret-456", ...(issuer ? { issuer } : {}) }
}
