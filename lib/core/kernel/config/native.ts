/** `native` (tokens.md T2.1, T2.2): app redirect URIs for native-app and CLI sign-in, checked at construction. */
import { InvalidConfig } from "../../../errors"
import type { NativeOptions } from "../types/tokens"

export type { NativeOptions }

type Kind = "private" | "https" | "loopback" | "localhost"

export interface RegisteredUri {
  readonly uri: string
  readonly kind: Kind
  readonly url: URL
}

export interface ResolvedNative {
  readonly redirectUris: readonly RegisteredUri[]
  readonly name: string
  readonly confirm: boolean
  readonly codeTtl: number
}

const NOT_PRIVATE = new Set([
  "http:",
  "https:",
  "javascript:",
  "data:",
  "file:",
  "blob:",
  "about:",
  "vbscript:",
  "ws:",
  "wss:",
])

const isLoopbackIp = (host: string) => host === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(host)

function classify(uri: string): RegisteredUri | string {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return "is not an absolute URI"
  }
  if (uri.includes("#")) return "has a fragment"
  if (url.search !== "" || uri.includes("?")) return "has a query"
  if (url.protocol === "https:") return { uri, kind: "https", url }
  if (url.protocol === "http:") {
    if (url.username || url.password) return "has userinfo"
    if (isLoopbackIp(url.hostname)) return { uri, kind: "loopback", url }
    if (url.hostname === "localhost" && url.port !== "") return { uri, kind: "localhost", url }
    return "is plain http off loopback"
  }
  if (NOT_PRIVATE.has(url.protocol)) return "uses a scheme that is not private-use"
  return { uri, kind: "private", url }
}

/**
 * Checks `native` and applies the defaults; `undefined` when native sign-in is off. `warn` receives the warning codes
 * of section 2.2 (`native-confirm-off`, `native-scheme-not-reverse-domain`, `native-localhost`).
 *
 * @example
 * ```ts
 * const native = resolveNative(config.native, (code) => logger.debug(code))
 * ```
 */
export function resolveNative(
  options: NativeOptions | undefined,
  warn: (code: string) => void,
): ResolvedNative | undefined {
  if (options === undefined) return undefined
  const uris = options?.redirectUris
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new InvalidConfig("native.redirectUris must list at least one URI", {
      cause: { option: "native.redirectUris" },
    })
  }
  const redirectUris = uris.map((uri) => {
    const found = typeof uri === "string" ? classify(uri) : "is not a string"
    if (typeof found === "string") {
      throw new InvalidConfig(`native.redirectUris: ${String(uri)} ${found}`, {
        cause: { option: "native.redirectUris", uri },
      })
    }
    if (found.kind === "private" && !found.url.protocol.slice(0, -1).includes("."))
      warn("native-scheme-not-reverse-domain")
    if (found.kind === "localhost") warn("native-localhost")
    return Object.freeze(found)
  })
  const codeTtl = options.codeTtl ?? 60
  if (!Number.isInteger(codeTtl) || codeTtl < 1 || codeTtl > 600) {
    throw new InvalidConfig("native.codeTtl must be whole seconds from 1 to 600", {
      cause: { option: "native.codeTtl" },
    })
  }
  const confirm = options.confirm !== false
  if (!confirm) warn("native-confirm-off")
  return Object.freeze({
    redirectUris: Object.freeze(redirectUris),
    name: typeof options.name === "string" && options.name !== "" ? options.name : "the app",
    confirm,
    codeTtl,
  })
}

/**
 * Whether a requested `callbackUrl` is a registered redirect URI (2.2): exact string match, except loopback IP URIs,
 * which match on scheme, host and path with any port (and no query, fragment or userinfo).
 *
 * @example
 * ```ts
 * isRegisteredRedirect(native, "http://127.0.0.1:53682/cb") // true when http://127.0.0.1/cb is registered
 * ```
 */
export function isRegisteredRedirect(native: ResolvedNative, requested: string): boolean {
  for (const registered of native.redirectUris) {
    if (registered.kind !== "loopback") {
      if (registered.uri === requested) return true
      continue
    }
    let url: URL
    try {
      url = new URL(requested)
    } catch {
      continue
    }
    if (requested.includes("?") || requested.includes("#") || url.username || url.password) continue
    if (
      url.protocol === "http:" &&
      url.hostname === registered.url.hostname &&
      url.pathname === registered.url.pathname
    ) {
      return true
    }
  }
  return false
}
