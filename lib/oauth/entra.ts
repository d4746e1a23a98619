/**
 * Microsoft Entra ID's issuer rules: the `common`, `organizations` and `consumers` endpoints announce a templated
 * issuer (`<authority>/{tenantid}/v2.0`), so each ID token's `iss` is held to the template filled with its own `tid`,
 * and the tenant is then checked against `allowedTenants`.
 */
import { decodeJwt } from "jose"
import type { AuthorizationServer } from "oauth4webapi"
import { AccessDenied, InvalidConfig, OAuthProtocolError } from "../errors"
import type { LoggerInstance } from "../logger"
import type { Awaitable } from "../models"
import type { OAuthConfig } from "../providers/types"

/** The tenant of personal Microsoft accounts. */
export const CONSUMER_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad"
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** `<authority>/<segment>/v2.0`: the authority is everything before the tenant segment. */
const ENTRA_ISSUER = /^(https?:\/\/[^/?#]+(?:\/[^/?#]+)*?)\/([^/?#]+)\/v2\.0\/?$/

/** Which tenants an Entra configuration accepts. */
export type AllowedTenants = readonly string[] | ((tid: string, claims: Record<string, unknown>) => Awaitable<boolean>)

/** A provider's Entra rules, resolved once from its issuer. */
export interface ResolvedEntra {
  readonly mode: "common" | "organizations" | "consumers" | "single"
  /** `<authority>/{tenantid}/v2.0`. */
  readonly template: string
  /** The `issuer` the metadata must announce. */
  readonly metadataIssuer: string
  readonly authority: string
  readonly allowed?: AllowedTenants
}

/**
 * Splits an Entra issuer into its authority and tenant segment.
 *
 * @throws InvalidConfig `entra_issuer_invalid` when `issuer` is not `<authority>/<segment>/v2.0`.
 * @example
 * ```ts
 * parseEntraIssuer("https://login.microsoftonline.com/common/v2.0")
 * // { authority: "https://login.microsoftonline.com", segment: "common" }
 * ```
 */
export function parseEntraIssuer(issuer: string): { authority: string; segment: string } {
  const match = ENTRA_ISSUER.exec(issuer)
  if (!match || !URL.canParse(issuer)) {
    throw new InvalidConfig("MicrosoftEntraID: the issuer must be <authority>/<tenant>/v2.0", {
      code: "entra_issuer_invalid",
      cause: { issuer },
    })
  }
  return { authority: match[1]!, segment: match[2]! }
}

/**
 * The Entra rules of a provider config, or `undefined` for a provider that is not Microsoft Entra ID.
 *
 * @throws InvalidConfig `entra_issuer_invalid` for an issuer of another form; `entra_allowed_tenants_required` for a
 *   multi-tenant issuer without `allowedTenants` in production; `invalid_provider_option` for an `allowedTenants` that
 *   is neither a list of strings nor a function, or one on a provider that is not Entra.
 * @example
 * ```ts
 * resolveEntra(MicrosoftEntraID({ allowedTenants: [tid] }), { production: true, logger })?.mode // "common"
 * ```
 */
export function resolveEntra(
  provider: Pick<OAuthConfig<unknown>, "id" | "issuer" | "entra" | "allowedTenants">,
  env: { production?: boolean; logger?: Pick<LoggerInstance, "warn"> },
): ResolvedEntra | undefined {
  const allowed = provider.allowedTenants
  const listOk = Array.isArray(allowed) && allowed.every((t) => typeof t === "string" && t !== "")
  if (allowed !== undefined && !listOk && typeof allowed !== "function") {
    throw new InvalidConfig("Invalid provider option", {
      code: "invalid_provider_option",
      cause: { provider: provider.id, option: "allowedTenants" },
    })
  }
  if (provider.entra !== true) {
    if (allowed !== undefined) {
      throw new InvalidConfig("allowedTenants applies to Microsoft Entra ID only", {
        code: "invalid_provider_option",
        cause: { provider: provider.id, option: "allowedTenants" },
      })
    }
    return undefined
  }
  const { authority, segment } = parseEntraIssuer(provider.issuer ?? "")
  const mode = segment === "common" || segment === "organizations" || segment === "consumers" ? segment : "single"
  const template = `${authority}/{tenantid}/v2.0`
  if ((mode === "common" || mode === "organizations") && allowed === undefined) {
    if (env.production) {
      throw new InvalidConfig(
        "MicrosoftEntraID: multi-tenant sign-in needs allowedTenants in production (a list of tenant ids, or a function)",
        { code: "entra_allowed_tenants_required", cause: { provider: provider.id } },
      )
    }
    env.logger?.warn("entra-any-tenant")
  }
  const metadataIssuer =
    mode === "consumers"
      ? `${authority}/${CONSUMER_TENANT}/v2.0`
      : mode === "single"
        ? (provider.issuer as string)
        : template
  return Object.freeze({
    mode,
    template,
    metadataIssuer,
    authority,
    ...(allowed === undefined
      ? {}
      : { allowed: typeof allowed === "function" ? allowed : Object.freeze(allowed.map((t) => t.toLowerCase())) }),
  })
}

function mismatch(provider: string, reason: string): OAuthProtocolError {
  return new OAuthProtocolError("The ID token's issuer does not match its tenant", {
    code: "entra_issuer_mismatch",
    cause: { provider, reason },
  })
}

/**
 * For a multi-tenant Entra provider, the RFC 9207 `iss` of an authorization response: Entra sends none, but one that
 * is present must name a tenant (`<authority>/<GUID>/v2.0`). Returns the parameters without it (the templated
 * metadata issuer cannot be compared by oauth4webapi) and the value, which the ID token's `iss` must then equal.
 *
 * @throws OAuthProtocolError `entra_issuer_mismatch` for an `iss` of another form.
 * @example
 * ```ts
 * const { params: rest, iss } = entraAuthResponse(entra, "microsoft-entra-id", params)
 * ```
 */
export function entraAuthResponse(
  entra: ResolvedEntra,
  provider: string,
  params: URLSearchParams,
): { params: URLSearchParams; iss?: string } {
  if (entra.mode === "single" || !params.has("iss")) return { params }
  const iss = params.get("iss") as string
  const prefix = `${entra.authority}/`
  const tid = iss.startsWith(prefix) && iss.endsWith("/v2.0") ? iss.slice(prefix.length, -"/v2.0".length) : ""
  if (!GUID.test(tid)) throw mismatch(provider, "authorization response iss")
  const rest = new URLSearchParams(params)
  rest.delete("iss")
  return { params: rest, iss }
}

/**
 * The authorization server to validate a token response of a multi-tenant Entra provider with: its `issuer` is the
 * template filled with the ID token's own `tid`, compared on the whole string by oauth4webapi and the signature check.
 * The token is read here unverified only to learn `tid`; every claim is verified afterwards against that issuer.
 *
 * @throws OAuthProtocolError `entra_tid_missing` without a GUID `tid`; `entra_issuer_mismatch` when `iss` is not the
 *   template filled with `tid` (a token whose `iss` and `tid` name different tenants), or differs from the
 *   authorization response's `iss`.
 * @example
 * ```ts
 * const tenantAs = await entraServer(entra, "microsoft-entra-id", as, response.clone(), iss)
 * ```
 */
export async function entraServer(
  entra: ResolvedEntra,
  provider: string,
  as: AuthorizationServer,
  response: Response,
  authIss?: string,
): Promise<AuthorizationServer> {
  if (entra.mode === "single") return as
  let claims: Record<string, unknown> = {}
  try {
    const body = (await response.json()) as { id_token?: unknown }
    if (typeof body.id_token === "string") claims = decodeJwt(body.id_token)
  } catch {
    // Not JSON, or not a JWT: oauth4webapi reports the answer itself.
    return as
  }
  if (Object.keys(claims).length === 0) return as
  const tid = claims.tid
  if (typeof tid !== "string" || !GUID.test(tid)) {
    throw new OAuthProtocolError("The ID token names no tenant", { code: "entra_tid_missing", cause: { provider } })
  }
  const expected = entra.mode === "consumers" ? entra.metadataIssuer : entra.template.replace("{tenantid}", tid)
  if (claims.iss !== expected || (entra.mode === "consumers" && tid.toLowerCase() !== CONSUMER_TENANT)) {
    throw mismatch(provider, "iss and tid")
  }
  if (authIss !== undefined && authIss !== expected) throw mismatch(provider, "authorization response iss")
  return { ...as, issuer: expected }
}

/**
 * The issuer a token of a multi-tenant Entra provider must name: the template filled with its `tid` (the consumer
 * tenant's issuer for `consumers`); `undefined` without a GUID `tid`. A single tenant's issuer is the metadata's.
 *
 * @example
 * ```ts
 * tenantIssuer(entra, { tid: "72f988bf-86f1-41af-91ab-2d7cd011db47" }) // ".../72f988bf-.../v2.0"
 * ```
 */
export function tenantIssuer(entra: ResolvedEntra, claims: Record<string, unknown>): string | undefined {
  if (entra.mode === "single" || entra.mode === "consumers") return entra.metadataIssuer
  const tid = claims.tid
  return typeof tid === "string" && GUID.test(tid) ? entra.template.replace("{tenantid}", tid) : undefined
}

/**
 * Whether the tenant of validated claims may sign in (or have its sessions ended): `organizations` refuses personal
 * accounts, a list is compared case-insensitively, a function is awaited (a throw is passed to `onError` and refuses).
 *
 * @example
 * ```ts
 * if (!(await tenantAllowed(entra, claims))) refuse()
 * ```
 */
export async function tenantAllowed(
  entra: ResolvedEntra,
  claims: Record<string, unknown>,
  onError?: (error: Error) => void,
): Promise<boolean> {
  const tid = typeof claims.tid === "string" ? claims.tid : ""
  if (entra.mode === "organizations" && tid.toLowerCase() === CONSUMER_TENANT) return false
  if (Array.isArray(entra.allowed)) return entra.allowed.includes(tid.toLowerCase())
  if (typeof entra.allowed === "function") {
    try {
      return (await entra.allowed(tid, claims)) === true
    } catch (error) {
      onError?.(error instanceof Error ? error : new Error(String(error)))
      return false
    }
  }
  return true
}

/**
 * Whether the tenant of validated ID-token claims may sign in: `organizations` refuses personal accounts, then a list
 * is compared case-insensitively and a function is awaited (a throw counts as a refusal and is logged).
 *
 * @throws AccessDenied `tenant_not_allowed`, after `warn("entra-tenant-refused")`.
 * @example
 * ```ts
 * await assertTenantAllowed(entra, "microsoft-entra-id", claims, logger)
 * ```
 */
export async function assertTenantAllowed(
  entra: ResolvedEntra,
  provider: string,
  claims: Record<string, unknown>,
  logger: Pick<LoggerInstance, "warn" | "error">,
): Promise<void> {
  const tid = typeof claims.tid === "string" ? claims.tid : ""
  if (await tenantAllowed(entra, claims, (error) => logger.error(error))) return
  logger.warn("entra-tenant-refused", `Microsoft Entra ID: tenant ${tid || "(none)"} is not allowed to sign in.`)
  throw new AccessDenied("The tenant is not allowed", { code: "tenant_not_allowed", cause: { provider, tid } })
}
