/** The verification order of tokens.md T4.3 over a framework-neutral view of the request. */
import { AccessTokenError, type AccessTokenErrorCode } from "../errors"
import { refusal } from "./answers"
import { checkDpopProof } from "./dpop"
import { IssuerUnavailable } from "./http"
import { Introspector } from "./introspection"
import { IssuerKeys } from "./keys"
import { resolveResourceOptions, type ResolvedResourceOptions, type ResourceServerOptions } from "./options"
import { checkClaims, looksLikeJwt, verifyJwt } from "./verify-jwt"

/** A verified access token (tokens.md T4.1). */
export interface AccessTokenInfo {
  token: string
  /** The verified claims (JWT) or the introspection answer. */
  payload: Record<string, unknown>
  /** The JWS header; `null` for an introspected token. */
  header: Record<string, unknown> | null
  scopes: string[]
  /** The DPoP key thumbprint the token is bound to. */
  jkt?: string
  source: "jwt" | "introspection"
}

/** What the verifier reads of a request, whatever the framework. */
export interface ResourceRequest {
  method: string
  /** The URL as the DPoP `htu` is compared: `baseUrl` (or the request's origin) and the path. */
  url: string
  /** The `Authorization` header values. */
  authorization: readonly string[]
  /** The `DPoP` header values. */
  dpop: readonly string[]
  /** An `access_token` query parameter or form field was sent. */
  tokenInRequest: boolean
}

const MAX_TOKEN = 8192
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*$/
const OUTAGE_LOG_INTERVAL = 60_000

/** One verifier: resolved options and its caches (discovery, JWKS, introspection). */
export class Verifier {
  readonly options: ResolvedResourceOptions
  readonly keys: IssuerKeys
  readonly introspector?: Introspector
  private lastOutageLog = -Infinity

  constructor(options: ResourceServerOptions) {
    this.options = resolveResourceOptions(options)
    this.keys = new IssuerKeys(this.options)
    if (this.options.introspection) this.introspector = new Introspector(this.options, this.keys)
  }

  /** Verifies a request; rejects with `AccessTokenError` (the 4.4 answer). */
  async verify(request: ResourceRequest): Promise<AccessTokenInfo> {
    try {
      return await this.run(request)
    } catch (error) {
      if (error instanceof AccessTokenError) throw error
      // Fails closed: the issuer down, or anything unexpected, is a 503, never a pass and never a 401.
      if (Date.now() - this.lastOutageLog >= OUTAGE_LOG_INTERVAL) {
        this.lastOutageLog = Date.now()
        this.options.logger.error(
          new Error(`access token issuer unavailable (${this.options.issuer}): ${(error as Error).message}`),
        )
      }
      throw refusal(this.options, "issuer_unavailable", { dpop: false })
    }
  }

  private refuse(code: AccessTokenErrorCode, dpop: boolean, payload?: Record<string, unknown>): never {
    const who = payload ? ` jti=${String(payload.jti ?? "-")} sub=${String(payload.sub ?? "-")}` : ""
    this.options.logger.debug(`access token refused: ${code}${who}`)
    throw refusal(this.options, code, { dpop })
  }

  private async run(request: ResourceRequest): Promise<AccessTokenInfo> {
    // 1. Extract.
    if (request.tokenInRequest) this.refuse("token_in_url", false)
    if (request.authorization.length > 1) this.refuse("malformed_authorization", false)
    const value = request.authorization[0]
    if (value === undefined) this.refuse("missing_token", false)
    const match = /^(\S+)(?: +(.*))?$/.exec(value.trim())
    const scheme = match?.[1]?.toLowerCase()
    if (scheme !== "bearer" && scheme !== "dpop") this.refuse("missing_token", false)
    const usesDpop = scheme === "dpop"
    const token = match?.[2]?.trim() ?? ""
    if (token === "" || /[\s,]/.test(token)) this.refuse("malformed_authorization", usesDpop)
    if (token.length > MAX_TOKEN) this.refuse("malformed_token", usesDpop)
    if (!TOKEN68.test(token)) this.refuse("malformed_authorization", usesDpop)

    // 2-4. Kind, then the JWT or the introspection answer.
    let payload: Record<string, unknown>
    let header: Record<string, unknown> | null = null
    let source: AccessTokenInfo["source"]
    if (looksLikeJwt(token)) {
      const outcome = await verifyJwt(this.options, this.keys, token)
      if (!outcome.ok) this.refuse(outcome.code, usesDpop, outcome.payload)
      ;({ payload, header } = outcome)
      source = "jwt"
    } else if (this.introspector) {
      payload = await this.introspector.introspect(token)
      if (payload.active !== true) this.refuse("inactive", usesDpop)
      const code = checkClaims(this.options, payload, {
        iat: false,
        issuerRequired: false,
        audienceRequired: this.options.introspection!.requireAudience,
      })
      if (code) this.refuse(code, usesDpop, payload)
      const type = payload.token_type
      if (type !== undefined && !(typeof type === "string" && /^(bearer|dpop)$/i.test(type))) {
        this.refuse("unsupported_token", usesDpop, payload)
      }
      source = "introspection"
    } else {
      this.refuse("unsupported_token", usesDpop)
    }

    // 5. Binding.
    const cnf = payload.cnf as { jkt?: unknown } | undefined
    const jkt = cnf !== null && typeof cnf === "object" && typeof cnf.jkt === "string" ? cnf.jkt : undefined
    if (jkt !== undefined) {
      if (!usesDpop) this.refuse("dpop_bound_token_as_bearer", true, payload)
      const proofs = request.dpop.length === 0 ? null : request.dpop.length > 1 ? "," : request.dpop[0]!
      const code = await checkDpopProof(this.options, { proofs, method: request.method, url: request.url }, token, jkt)
      if (code) this.refuse(code, true, payload)
    } else if (usesDpop) {
      this.refuse("dpop_not_bound", true, payload)
    } else if (this.options.dpop.required) {
      this.refuse("dpop_required", true, payload)
    }

    // 6. Scopes.
    const scopes = grantedScopes(payload, this.options.allowPlainJwt)
    if (this.options.scopes.some((scope) => !scopes.includes(scope))) {
      this.refuse("insufficient_scope", usesDpop || jkt !== undefined, payload)
    }
    return { token, payload, header, scopes, ...(jkt !== undefined ? { jkt } : {}), source }
  }
}

function grantedScopes(payload: Record<string, unknown>, plain: boolean): string[] {
  const out = new Set<string>()
  if (typeof payload.scope === "string") for (const s of payload.scope.split(" ")) if (s) out.add(s)
  if (plain) {
    const scp = payload.scp
    if (typeof scp === "string") for (const s of scp.split(" ")) if (s) out.add(s)
    if (Array.isArray(scp)) for (const s of scp) if (typeof s === "string" && s) out.add(s)
  }
  return [...out]
}

/** Whether an error is the issuer being down (for callers that wrap the verifier). */
export const isIssuerUnavailable = (error: unknown) => error instanceof IssuerUnavailable
