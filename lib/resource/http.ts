/** The resource server's outgoing requests: discovery, JWKS and introspection, bounded in time and size. */

/** The largest answer read from an issuer. */
const MAX_BYTES = 512 * 1024

/** The issuer could not give a usable answer (down, slow, not 200, not JSON, too large): answered 503, never 401. */
export class IssuerUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`issuer unavailable: ${reason}`)
  }
}

/**
 * Fetches a JSON object: no redirects followed, `timeout` ms, at most 512 KB. Anything else throws
 * {@link IssuerUnavailable}; a status in `passStatuses` resolves `null` (a discovery 404 tries the next document).
 *
 * @example
 * ```ts
 * const jwks = await fetchJson("https://op.example/jwks", { timeout: 5000 })
 * ```
 */
export async function fetchJson(
  url: string,
  options: { timeout: number; init?: RequestInit; passStatuses?: readonly number[] },
): Promise<Record<string, unknown> | null> {
  let response: Response
  try {
    response = await fetch(url, {
      ...options.init,
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeout),
      headers: { accept: "application/json", ...(options.init?.headers as Record<string, string> | undefined) },
    })
  } catch (error) {
    throw new IssuerUnavailable((error as Error).name === "TimeoutError" ? "timeout" : "unreachable")
  }
  if (options.passStatuses?.includes(response.status)) {
    await response.body?.cancel()
    return null
  }
  if (response.status !== 200) {
    await response.body?.cancel()
    throw new IssuerUnavailable(`status ${response.status}`)
  }
  const declared = Number(response.headers.get("content-length") ?? "0")
  if (declared > MAX_BYTES) {
    await response.body?.cancel()
    throw new IssuerUnavailable("too large")
  }
  const text = await readCapped(response)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new IssuerUnavailable("not JSON")
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw new IssuerUnavailable("not an object")
  return parsed as Record<string, unknown>
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return ""
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>
    try {
      chunk = await reader.read()
    } catch {
      throw new IssuerUnavailable("unreachable")
    }
    if (chunk.done) break
    total += chunk.value.byteLength
    if (total > MAX_BYTES) {
      await reader.cancel()
      throw new IssuerUnavailable("too large")
    }
    chunks.push(chunk.value)
  }
  return Buffer.concat(chunks).toString("utf8")
}
