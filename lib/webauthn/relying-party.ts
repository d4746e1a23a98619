/** The relying party a request verifies against: fixed at construction (config or AUTH_URL). */
import type { ResolvedWebAuthnProvider } from "./provider"

/** Why a ceremony's client data is refused before the signature is looked at. */
export type CrossOriginRefusal = "unreadable client data" | "cross-origin ceremony"

/** The relying party of one ceremony: `id`/`name` for options, every id and origin for verification. */
export interface ExpectedRelyingParty {
  id: string
  name: string
  ids: string[]
  origins: string[]
}

/**
 * The configured relying party; outside production with neither `relyingParty` nor `AUTH_URL`, the origin the
 * request was served under (the app origin the core resolved, as for every other generated URL).
 *
 * @example
 * ```ts
 * const rp = expectedRelyingParty(ctx.origin, provider) // { id: "localhost", origins: ["http://localhost:3000"], ... }
 * ```
 */
export function expectedRelyingParty(origin: string, provider: ResolvedWebAuthnProvider): ExpectedRelyingParty {
  if (provider.rp) {
    const ids = [...provider.rp.ids]
    return { id: ids[0] as string, name: provider.rp.name, ids, origins: [...provider.rp.origins] }
  }
  const { hostname: id, host } = new URL(origin)
  return { id, name: host, ids: [id], origins: [origin] }
}

/**
 * Whether the client data of a ceremony may be verified: same-origin (`crossOrigin` absent or `false`, WebAuthn
 * Level 3, section 5.10.1), or cross-origin from an iframe whose `topOrigin` is one of `relyingParty.allowCrossOrigin`.
 * `@simplewebauthn/server` accepts `crossOrigin: true` without a `topOrigin`, so this check runs first. Answers
 * `null` when it may, else the reason.
 *
 * @example
 * ```ts
 * const refusal = crossOriginRefusal(provider, response.response.clientDataJSON)
 * if (refusal) throw verificationFailed(provider.id, refusal)
 * ```
 */
export function crossOriginRefusal(
  provider: Pick<ResolvedWebAuthnProvider, "topOrigins">,
  clientDataJSON: unknown,
): CrossOriginRefusal | null {
  let clientData: { crossOrigin?: unknown; topOrigin?: unknown }
  try {
    if (typeof clientDataJSON !== "string") return "unreadable client data"
    clientData = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8")) as typeof clientData
  } catch {
    return "unreadable client data"
  }
  if (typeof clientData !== "object" || clientData === null) return "unreadable client data"
  const { crossOrigin, topOrigin } = clientData
  if (crossOrigin === undefined || crossOrigin === false) return null
  if (crossOrigin === true && typeof topOrigin === "string" && provider.topOrigins.includes(topOrigin)) return null
  return "cross-origin ceremony"
}
