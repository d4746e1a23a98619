/** The session cookie: read across chunks, written in 3936-character chunks, cleared chunk by chunk. */
import type { SerializeOptions } from "cookie"
import type { LoggerInstance } from "../../logger"
import type { CookieJar } from "./jar"

/** 4096 bytes allowed per cookie minus an estimated 160 for name and attributes. */
export const CHUNK_SIZE = 3936

export interface StoredSessionCookie {
  /** The whole value, or undefined when absent or inconsistent. */
  value: string | undefined
  /** Names of every session cookie (chunk) the request carried, to delete on write or clear. */
  present: string[]
}

/**
 * Reads the session cookie `name` from parsed request cookies: either `name` itself or the chunks `name.0..n-1`.
 * A mix of both, or a gap in the chunks, yields no value (and every piece is reported so it gets cleared).
 *
 * @example
 * ```ts
 * readSessionCookie({ "s.0": "ab", "s.1": "cd" }, "s").value // "abcd"
 * ```
 */
export function readSessionCookie(cookies: Record<string, string>, name: string): StoredSessionCookie {
  const chunks: [number, string][] = []
  const present: string[] = []
  for (const [cookieName, value] of Object.entries(cookies)) {
    if (cookieName === name) {
      present.push(cookieName)
      continue
    }
    if (!cookieName.startsWith(`${name}.`)) continue
    const suffix = cookieName.slice(name.length + 1)
    if (!/^\d{1,3}$/.test(suffix)) continue
    present.push(cookieName)
    if (value) chunks.push([Number(suffix), value])
  }
  if (chunks.length === 0) return { value: cookies[name] || undefined, present }
  if (present.includes(name)) return { value: undefined, present }
  chunks.sort((a, b) => a[0] - b[0])
  if (chunks.some(([index], i) => index !== i)) return { value: undefined, present }
  return { value: chunks.map(([, v]) => v).join(""), present }
}

/**
 * Writes `value` as the session cookie, chunked when longer than {@link CHUNK_SIZE}; every cookie in `present` is first
 * queued for deletion so stale chunks disappear.
 *
 * @example
 * ```ts
 * writeSessionCookie(jar, "authjs.session-token", jwe, options, stored.present, logger)
 * ```
 */
export function writeSessionCookie(
  jar: CookieJar,
  name: string,
  value: string,
  options: SerializeOptions,
  present: readonly string[],
  logger?: LoggerInstance,
): void {
  for (const old of present) jar.delete(old, options)
  if (value.length <= CHUNK_SIZE) {
    jar.set(name, value, options)
    return
  }
  const count = Math.ceil(value.length / CHUNK_SIZE)
  logger?.debug("CHUNKING_SESSION_COOKIE", { valueSize: value.length, chunks: count })
  for (let i = 0; i < count; i++) {
    jar.set(`${name}.${i}`, value.slice(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE), options)
  }
}

/**
 * Queues deletion of every session cookie (chunk) the request carried.
 *
 * @example
 * ```ts
 * clearSessionCookie(jar, stored.present, options)
 * ```
 */
export function clearSessionCookie(jar: CookieJar, present: readonly string[], options: SerializeOptions): void {
  for (const old of present) jar.delete(old, options)
}
