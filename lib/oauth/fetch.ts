/**
 * The one way the OAuth engine talks to a provider's servers: the provider's `customFetch` (or the global `fetch`),
 * bounded by `httpTimeout`, never following redirects. Provider code (custom userinfo requests) gets the same.
 */
import { customFetch } from "../symbols"

/** Default `httpTimeout`: how long one outgoing OAuth/OIDC/JWKS request may take, in ms. */
export const DEFAULT_HTTP_TIMEOUT = 10_000

interface FetchingProvider {
  readonly httpTimeout: number
  readonly [customFetch]?: typeof fetch
}

/** A signal that aborts after `ms`, or when `signal` (if any) aborts. */
export function timeoutSignal(ms: number, signal?: AbortSignal | null): AbortSignal {
  const timeout = AbortSignal.timeout(ms)
  return signal ? AbortSignal.any([signal, timeout]) : timeout
}

/**
 * The `fetch` for requests to `provider`'s servers: its `customFetch` (else the global one), each call aborted after
 * `httpTimeout` ms (together with any signal the caller passes) and failing on a redirect instead of following it
 * (a token must never be forwarded to wherever a redirect points).
 *
 * @example
 * ```ts
 * const response = await providerFetch(provider)("https://api.example/user", { headers: { Authorization } })
 * ```
 */
export function providerFetch(provider: FetchingProvider): typeof fetch {
  const impl = provider[customFetch] ?? globalThis.fetch
  const bounded = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const signal = timeoutSignal(provider.httpTimeout, init.signal)
    // Raced against the signal too, so a custom fetch that ignores it is still bounded.
    return Promise.race([impl(input, { ...init, redirect: "error", signal }), aborted(signal)])
  }
  return bounded as typeof fetch
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason)
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true })
  })
}
