/**
 * RFC 7662 introspection for tokens that are not JWTs (tokens.md T4.6), with a bounded cache keyed by the token's
 * SHA-256 (never the token): active answers until `min(exp, cacheTtl)`, inactive ones for `cacheTtl`.
 */
import { createHash } from "node:crypto"
import { fetchJson, IssuerUnavailable } from "./http"
import type { IssuerKeys } from "./keys"
import type { ResolvedResourceOptions } from "./options"

const MAX_ENTRIES = 10_000

interface Cached {
  answer: Record<string, unknown>
  until: number
}

/** RFC 6749 section 2.3.1: client id and secret are form-urlencoded before Basic. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+")

/** The introspection side of one verifier. */
export class Introspector {
  private readonly cache = new Map<string, Cached>()
  /** Introspection requests made (for tests). */
  calls = 0

  constructor(
    private readonly options: ResolvedResourceOptions,
    private readonly keys: IssuerKeys,
  ) {}

  /** The introspection answer for `token` (cached), or throws {@link IssuerUnavailable}. */
  async introspect(token: string): Promise<Record<string, unknown>> {
    const settings = this.options.introspection!
    const key = createHash("sha256").update(token).digest("base64url")
    const now = Date.now()
    const hit = this.cache.get(key)
    if (hit && hit.until > now) {
      // Least recently used goes first: a hit moves to the end.
      this.cache.delete(key)
      this.cache.set(key, hit)
      return hit.answer
    }
    if (hit) this.cache.delete(key)
    const endpoint = settings.endpoint ?? (await this.keys.discovery()).introspection_endpoint
    if (typeof endpoint !== "string") throw new IssuerUnavailable("no introspection_endpoint")
    const basic = Buffer.from(`${formEncode(settings.clientId)}:${formEncode(settings.clientSecret)}`).toString(
      "base64",
    )
    this.calls++
    const answer = await fetchJson(endpoint, {
      timeout: this.options.httpTimeout,
      init: {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${basic}` },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
      },
    })
    if (!answer || typeof answer.active !== "boolean") throw new IssuerUnavailable("not an introspection answer")
    const ttl = settings.cacheTtl * 1000
    const until = answer.active && typeof answer.exp === "number" ? Math.min(answer.exp * 1000, now + ttl) : now + ttl
    if (ttl > 0) {
      this.cache.set(key, { answer, until })
      if (this.cache.size > MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!)
    }
    return answer
  }
}
