/**
 * The session cookie: written in 3936-character chunks and cleared chunk by chunk (reading across chunks is
 * `readSessionCookie` in `lib/cookie-header.ts`, which `lib/jwt` shares).
 */
import type { SerializeOptions } from "cookie"
import type { LoggerInstance } from "../../../logger"
import type { CookieJar } from "./jar"

/** 4096 bytes allowed per cookie minus an estimated 160 for name and attributes. */
export const CHUNK_SIZE = 3936

/** Above this many chunks a session cookie is large enough to warn about (once per logger). */
const LARGE_CHUNKS = 3
const warnedLarge = new WeakSet<object>()

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
  if (count > LARGE_CHUNKS && logger && !warnedLarge.has(logger)) {
    warnedLarge.add(logger)
    logger.warn("session-cookie-large")
  }
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
