/** The absolute URL of an auth action, from `AUTH_URL` or the request's host headers. */
import type { LoggerInstance } from "../../logger"
import type { Env } from "./config/env"
import type { AuthAction } from "./routes"
import type { AuthConfig } from "./types"

/**
 * Builds the absolute URL of an action: from `AUTH_URL` when set (the base path wins over its path), else from the
 * forwarded or plain host headers.
 *
 * @example
 * ```ts
 * createActionURL("signin", "https", new Headers({ host: "example.com" }), {}, { basePath: "/auth" })
 * // URL("https://example.com/auth/signin")
 * ```
 */
export function createActionURL(
  action: AuthAction,
  protocol: string,
  headers: Headers,
  env: Env,
  config: Pick<AuthConfig, "basePath"> & { logger?: Pick<LoggerInstance, "warn"> },
): URL {
  const basePath = config.basePath
  const envUrl = env.AUTH_URL ?? env.NEXTAUTH_URL
  let url: URL
  if (envUrl) {
    url = new URL(envUrl)
    if (basePath && basePath !== "/" && url.pathname !== "/") {
      if (url.pathname !== basePath) config.logger?.warn("env-url-basepath-mismatch")
      url.pathname = "/"
    }
  } else {
    const host = headers.get("x-forwarded-host") ?? headers.get("host")
    let proto = headers.get("x-forwarded-proto") ?? protocol ?? "https"
    if (!proto.endsWith(":")) proto += ":"
    url = new URL(`${proto}//${host}`)
  }
  const base = url.toString().replace(/\/$/, "")
  const path = basePath?.replace(/(^\/|\/$)/g, "")
  return new URL(path ? `${base}/${path}/${action}` : `${base}/${action}`)
}
