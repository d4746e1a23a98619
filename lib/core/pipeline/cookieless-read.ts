/**
 * The cookie-less session read (issue 16): `GET <base>/session` without a query or any `Cookie` header, answered from
 * the answer kept for its origin with a newly minted CSRF token, or through the pipeline once and then kept.
 */
import type { ResolvedConfig } from "../kernel/config/types"
import { requestOrigin } from "../kernel/context"
import { serializeCookie } from "../kernel/cookies/jar"
import { resolveCsrf } from "../kernel/csrf"
import { sessionReadRequest } from "../kernel/request"
import { serializeResult, type SerializedResult } from "../kernel/response"
import { policyOf } from "../kernel/routes"
import { pipeline } from "./auth"
import type { CookielessAnswer } from "./cookieless"
import type { ConfigRuntime } from "./runtime"

/** A rate limit on reading the session would be a per-request effect a kept answer skips; then none is kept. */
const limitedOnGet = (policyOf("session").rateLimits ?? []).some((entry) => entry.methods.includes("GET"))

/**
 * Answers `GET <basePath>/session` for a request without a query and without any `Cookie` header, given only its
 * origin, so an edge need not read such a request any further. Nothing else of it can change the answer: no session
 * cookie, no callback-url candidate and no CSRF cookie, so no user callback runs, and the answer is `null` with the
 * base cookies (a fresh CSRF token, the callback URL set to the origin). The first such request of an origin goes
 * through the context, route and session action like any other, and its answer is kept in the runtime; later ones get
 * a copy with a newly minted CSRF token.
 *
 * @example
 * ```ts
 * const answer = await cookielessSessionRead(runtime, config, "https://app.example")
 * ```
 */
export async function cookielessSessionRead(
  runtime: Pick<ConfigRuntime, "sessionCache" | "cookielessAnswers">,
  config: ResolvedConfig,
  origin: string,
): Promise<Response | SerializedResult> {
  const store = runtime.cookielessAnswers
  const known = store.get(config.basePath, origin)
  if (known) return fromKept(config, known)
  const url = new URL(`${origin}${config.basePath}/session`)
  const outcome = await pipeline(runtime, config, sessionReadRequest(url, new Headers()), {
    webRequest: () => new Request(url),
  })
  if (outcome instanceof Response) return outcome
  const answer = serializeResult(outcome.result, outcome.jar)
  const kept = answer.status === 200 && !limitedOnGet ? keep(config, origin, answer) : undefined
  if (!kept) return answer
  store.set(config.basePath, origin, kept)
  return fromKept(config, kept)
}

/** What is kept of an answer: the answer and where its CSRF cookie is; `undefined` when it has none it should. */
function keep(config: ResolvedConfig, origin: string, answer: SerializedResult): CookielessAnswer | undefined {
  if (config.skipCSRFCheck) return { answer }
  const { name, options } = requestOrigin(config, new URL(origin)).cookies.csrfToken
  const at = answer.headers.findIndex(([header, value]) => header === "Set-Cookie" && value.startsWith(`${name}=`))
  // Without the CSRF cookie the answer is not the one this function expects: it is not kept.
  return at === -1 ? undefined : { answer, csrf: { at, name, options } }
}

/** A copy of a kept answer (the caller may change it) with a CSRF token minted now. */
function fromKept(config: ResolvedConfig, kept: CookielessAnswer): SerializedResult {
  const { status, body } = kept.answer
  const headers = kept.answer.headers.map(([name, value]): [string, string] => [name, value])
  if (kept.csrf) {
    const { at, name, options } = kept.csrf
    const { cookie } = resolveCsrf({ secret: config.secret, isPost: false })
    headers[at] = ["Set-Cookie", serializeCookie({ name, value: cookie!, options })]
  }
  return { status, headers, body }
}
