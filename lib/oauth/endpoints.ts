/** A provider's endpoints at construction: issuer-relative paths made absolute, URLs parsed, plain http refused. */
import { InvalidConfig } from "../errors"
import type { EndpointConfig, OAuthConfig } from "../providers/types"

export interface ParsedEndpoint {
  url?: string
  params: Record<string, string>
}

/** Whether an endpoint value is a path on the issuer (instance-specific catalogue providers such as Mastodon). */
function isIssuerPath(value: unknown): value is string {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//")
}

/**
 * The provider with its issuer-relative endpoints (`"/oauth/token"`) made absolute. An OpenID Connect provider, or one
 * with such paths, needs an issuer: without one (from the options or `AUTH_<ID>_ISSUER`) construction fails here.
 */
export function withIssuerPaths<P>(provider: OAuthConfig<P>): OAuthConfig<P> {
  const urlOf = (endpoint: unknown): unknown =>
    typeof endpoint === "object" && endpoint !== null ? (endpoint as { url?: unknown }).url : endpoint
  const keys = ["authorization", "token", "userinfo", "wellKnown"] as const
  const relative = keys.filter((key) => isIssuerPath(urlOf(provider[key])))
  if (!provider.issuer && (provider.type === "oidc" || relative.length > 0)) {
    throw new InvalidConfig(
      `The "${provider.id}" provider needs an issuer: pass \`issuer\`, or set ${envPrefixOf(provider.id)}ISSUER.`,
      { code: "issuer_required", cause: { provider: provider.id } },
    )
  }
  if (relative.length === 0) return provider
  const base = (provider.issuer as string).replace(/\/+$/, "")
  const out: OAuthConfig<P> = { ...provider }
  for (const key of relative) {
    const value = provider[key]
    if (typeof value === "string") (out as unknown as Record<string, unknown>)[key] = base + value
    else
      (out as unknown as Record<string, unknown>)[key] = { ...(value as object), url: base + (urlOf(value) as string) }
  }
  return out
}

/** `AUTH_<ID>_`, as the core's environment inference names a provider's variables. */
function envPrefixOf(id: string): string {
  return `AUTH_${id.toUpperCase().replace(/-/g, "_")}_`
}

/** Whether `hostname` (as `URL` gives it) is the local machine: `localhost`, `127.0.0.0/8` or `[::1]`. */
export function isLoopback(hostname: string): boolean {
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    hostname === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  )
}

/**
 * Refuses a plain-http server on another machine unless the provider sets `allowInsecureRequests`. A plain-http server
 * on loopback (a local Keycloak or oidc-provider) needs no flag. Returns whether the provider may make http requests.
 */
export function assertHttps(
  provider: Pick<OAuthConfig<unknown>, "id" | "allowInsecureRequests">,
  urls: readonly (string | undefined)[],
): boolean {
  let insecure = provider.allowInsecureRequests === true
  for (const value of urls) {
    const url = value && URL.canParse(value) ? new URL(value) : undefined
    if (url?.protocol !== "http:") continue
    if (isLoopback(url.hostname)) {
      insecure = true
    } else if (provider.allowInsecureRequests !== true) {
      throw new InvalidConfig(
        `The "${provider.id}" provider talks to ${url.origin} over plain http; use https, or set ` +
          "`allowInsecureRequests: true` on the provider if you accept that.",
        { cause: { provider: provider.id, url: url.origin } },
      )
    }
  }
  return insecure
}

export function parseEndpoint(endpoint: EndpointConfig | undefined, id: string, key: string): ParsedEndpoint {
  if (endpoint === undefined) return { params: {} }
  const url = typeof endpoint === "string" ? endpoint : endpoint.url
  const params = typeof endpoint === "string" ? {} : stringifyParams(endpoint.params ?? {})
  if (url !== undefined && !URL.canParse(url)) {
    throw new InvalidConfig("Invalid endpoint URL", { cause: { provider: id, endpoint: key } })
  }
  return { url, params }
}

export function withParams(endpoint: ParsedEndpoint): string | undefined {
  if (!endpoint.url) return undefined
  const url = new URL(endpoint.url)
  for (const [name, value] of Object.entries(endpoint.params)) url.searchParams.set(name, value)
  return url.href
}

export function stringifyParams(params: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue
    out[name] = name === "claims" || typeof value === "object" ? JSON.stringify(value) : String(value)
  }
  return out
}

export function parseProxyUrl(value: string, id: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new InvalidConfig("Invalid redirectProxyUrl", { cause: { provider: id } })
  }
  return value.replace(/\/+$/, "")
}
