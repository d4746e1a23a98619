/** `verifyAccessToken(request, options)`: the Fetch flavour of `gatehouse-auth/resource` (Hono, node:http, Bun). */
import type { ResourceServerOptions } from "./options"
import { Verifier, type AccessTokenInfo, type ResourceRequest } from "./verify"

/** One verifier per options object, so its caches live as long as the options do. */
const verifiers = new WeakMap<ResourceServerOptions, Verifier>()

function verifierFor(options: ResourceServerOptions): Verifier {
  let verifier = verifiers.get(options)
  if (!verifier) {
    verifier = new Verifier(options)
    verifiers.set(options, verifier)
  }
  return verifier
}

/** Splits a header the Fetch API joined with ", " back into its values (a token or a JWS never holds a comma). */
const split = (value: string | null): string[] => (value === null ? [] : value.split(/,\s*/))

async function hasTokenField(request: Request): Promise<boolean> {
  const type = (request.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase()
  if (request.body === null || type !== "application/x-www-form-urlencoded") return false
  try {
    return new URLSearchParams(await request.clone().text()).has("access_token")
  } catch {
    return false
  }
}

/**
 * Verifies the access token of a Web `Request`; rejects with `AccessTokenError` (its `toResponse()` is the answer).
 * Build the options object once and reuse it: the caches are kept per options object.
 *
 * @example
 * ```ts
 * const info = await verifyAccessToken(request, options).catch((e) => e)
 * if (info instanceof AccessTokenError) return info.toResponse()
 * ```
 */
export async function verifyAccessToken(request: Request, options: ResourceServerOptions): Promise<AccessTokenInfo> {
  const verifier = verifierFor(options)
  const url = new URL(request.url)
  const view: ResourceRequest = {
    method: request.method,
    url: `${verifier.options.baseUrl ?? url.origin}${url.pathname}`,
    authorization: split(request.headers.get("authorization")),
    dpop: split(request.headers.get("dpop")),
    tokenInRequest: url.searchParams.has("access_token") || (await hasTokenField(request)),
  }
  return verifier.verify(view)
}
