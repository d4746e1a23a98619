/**
 * The redirect proxy: which origins a proxied callback may be forwarded to (OI-proxy-host). The origin sealed in the
 * `state` comes from the deployment that started the flow; it is honoured only when the configuration names it.
 */
import { InvalidCheck, InvalidConfig, OAuthSignInError } from "../errors"
import { openState } from "./checks"
import type { OAuthFlowContext, OAuthSignInResult } from "./types"

const WILDCARD = /^(https?):\/\/\*\.([a-z0-9.-]+)(?::(\d+))?$/i

/**
 * Validates the allowed redirect-proxy origins: exact origins (`https://preview-1.example.com`) or one wildcard label
 * at the left of the host (`https://*.preview.example.com`, which matches exactly one more label).
 *
 * @throws InvalidConfig for anything else (a path, a wildcard elsewhere, a non-http scheme).
 * @example
 * ```ts
 * parseProxyOrigins(["https://*.preview.example.com"]) // ["https://*.preview.example.com"]
 * ```
 */
export function parseProxyOrigins(values: readonly string[]): readonly string[] {
  return Object.freeze(
    values.map((value) => {
      const trimmed = value.trim().replace(/\/+$/, "").toLowerCase()
      if (WILDCARD.test(trimmed)) return trimmed
      if (URL.canParse(trimmed)) {
        const url = new URL(trimmed)
        if (/^https?:$/.test(url.protocol) && url.origin === trimmed) return trimmed
      }
      throw new InvalidConfig("Invalid redirect proxy allowed origin", { cause: { origin: value } })
    }),
  )
}

/**
 * Whether the origin of `url` is one of the allowed redirect-proxy origins.
 *
 * @example
 * ```ts
 * isAllowedProxyOrigin(["https://*.preview.example.com"], "https://pr-7.preview.example.com") // true
 * isAllowedProxyOrigin(["https://*.preview.example.com"], "https://a.b.preview.example.com") // false
 * ```
 */
export function isAllowedProxyOrigin(allowed: readonly string[], url: string): boolean {
  if (!URL.canParse(url)) return false
  const { origin, protocol, port, hostname } = new URL(url)
  return allowed.some((pattern) => {
    const wildcard = WILDCARD.exec(pattern)
    if (!wildcard) return pattern === origin
    const [, scheme, suffix, patternPort] = wildcard
    if (protocol !== `${scheme}:` || port !== (patternPort ?? "")) return false
    if (!hostname.endsWith(`.${suffix}`)) return false
    const label = hostname.slice(0, -suffix!.length - 1)
    return /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(label)
  })
}

/**
 * At sign-in start on a deployment that uses a redirect proxy: the origin sealed in the state must be configured
 * (`AUTH_URL`) or allowed, never one taken from a `Host` header alone.
 *
 * @throws OAuthSignInError when it is neither.
 * @example
 * ```ts
 * assertProxyOriginAtStart(ctx)
 * ```
 */
export function assertProxyOriginAtStart(ctx: OAuthFlowContext): void {
  const { provider } = ctx
  if (!provider.redirectProxyUrl || new URL(provider.redirectProxyUrl).origin === ctx.origin) return
  if (ctx.configuredOrigin || isAllowedProxyOrigin(provider.redirectProxyAllowedOrigins, ctx.origin)) return
  throw new OAuthSignInError("This origin may not use the redirect proxy", {
    cause: { provider: provider.id, origin: ctx.origin },
  })
}

/**
 * On the proxy deployment: a callback whose state names another deployment is forwarded there, but only to an
 * allowed origin; anything else is refused.
 *
 * @throws InvalidCheck when the state cannot be opened or names an origin that is not allowed.
 * @example
 * ```ts
 * const hop = await proxyHop(ctx, params)
 * if (hop) return hop
 * ```
 */
export async function proxyHop(ctx: OAuthFlowContext, params: URLSearchParams): Promise<OAuthSignInResult | undefined> {
  const { provider } = ctx
  const proxy = provider.redirectProxyUrl
  const stateParam = params.get("state")
  if (!proxy || new URL(proxy).origin !== ctx.origin || stateParam === null) return undefined
  const state = await openState(ctx.secret, stateParam)
  if (!state) throw new InvalidCheck("State could not be decoded", { cause: { provider: provider.id } })
  if (!state.origin || !URL.canParse(state.origin)) return undefined
  const target = new URL(state.origin)
  if (target.origin === ctx.origin) return undefined
  if (!isAllowedProxyOrigin(provider.redirectProxyAllowedOrigins, target.origin)) {
    throw new InvalidCheck("The redirect proxy target is not an allowed origin", {
      cause: { provider: provider.id, origin: target.origin },
    })
  }
  // `<origin>?<params>` as written, like the reference: `URL#href` would add a `/` to an origin without a path.
  return { kind: "proxy", redirect: `${state.origin.replace(/[?#].*$/s, "")}?${params}` }
}
