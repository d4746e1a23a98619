/**
 * Warnings about a request that the Express layer alone can see, each given once per config (per logger): an origin
 * that is not `AUTH_URL`'s in development, forwarded headers that the app's `trust proxy` setting ignores while
 * `AUTH_URL` is unset, and (in development) `req.isAuthenticated()` on a request Gatehouse never read.
 */
import { createLogger, warningMessages, type LoggerInstance, type WarningCode } from "../logger"
import type { ResolvedConfig } from "../core/pipeline/gatehouse"
import { ignoredForwardedHeaders, originOf, type OriginRequest } from "./origin"

const given = new WeakMap<LoggerInstance, Set<WarningCode>>()

function once(logger: LoggerInstance, code: WarningCode, message: () => string): void {
  let codes = given.get(logger)
  if (!codes) given.set(logger, (codes = new Set()))
  if (codes.has(code)) return
  codes.add(code)
  logger.warn(code, message())
}

/** Development as the origin warning reads it: `NODE_ENV` unset, empty or `development` (not `test`, not production). */
function isDevelopment(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.NODE_ENV === undefined || env.NODE_ENV === "" || env.NODE_ENV === "development"
}

/**
 * Warns once (`auth-url-origin-mismatch`, development only) when the request's own origin differs from `AUTH_URL`'s,
 * and once (`forwarded-headers-ignored`) when `AUTH_URL` is unset and forwarded headers arrive that `trust proxy`
 * ignores. Never throws.
 *
 * @example
 * ```ts
 * warnAboutOrigin(req, config) // [gatehouse][warn][auth-url-origin-mismatch] This request reached ...
 * ```
 */
export function warnAboutOrigin(req: OriginRequest, config: ResolvedConfig): void {
  const { authUrl, logger } = config
  ;(globalThis as LastLoggerHolder)[LAST_LOGGER] = logger
  if (authUrl) {
    if (!isDevelopment()) return
    let own: string
    try {
      own = originOf(req)
    } catch {
      return
    }
    if (own === authUrl.origin) return
    once(
      logger,
      "auth-url-origin-mismatch",
      () =>
        `This request reached the app at ${own}, but AUTH_URL is ${authUrl.origin}: every link and redirect goes to ` +
        `${authUrl.origin}. Set AUTH_URL to where the app runs (or leave it unset in development).`,
    )
    return
  }
  const ignored = ignoredForwardedHeaders(req)
  if (ignored.length === 0) return
  let own = "the request's own origin"
  try {
    own = originOf(req)
  } catch {
    // a Host that forms no origin: the request is refused elsewhere; the warning still stands
  }
  once(
    logger,
    "forwarded-headers-ignored",
    () =>
      `${ignored.map((name) => name.replace(/(^|-)(\w)/g, (_m, dash: string, c: string) => dash + c.toUpperCase())).join(" and ")} ` +
      `arrived but Express's \`trust proxy\` does not trust the sender, so URLs use ${own} and cookies ` +
      'have no __Secure- prefix. Behind a proxy, set app.set("trust proxy", 1) (the number of proxies), or AUTH_URL.',
  )
}

/**
 * The logger of the config Gatehouse last served a request with: where a warning without a config goes. Kept under a
 * registered symbol, as the prototype's `isAuthenticated` is (guard.ts): that method belongs to whichever copy of the
 * library loaded first (CommonJS and ESM side by side), and must see the configs every copy serves.
 */
const LAST_LOGGER = Symbol.for("gatehouse-auth.last-logger")
type LastLoggerHolder = { [LAST_LOGGER]?: LoggerInstance }
let defaultLogger: LoggerInstance | undefined

/**
 * In development, warns once (`is-authenticated-unread`, through the logger of the config Gatehouse last served) that `req.isAuthenticated()` was called on a
 * request no Gatehouse middleware read: it answers `false` there even for a signed-in user (Passport's habit of a
 * global `passport.session()`, without its Gatehouse counterpart `app.use(auth)`).
 *
 * @example
 * ```ts
 * if (fields.get(req)?.read === undefined) warnUnreadIsAuthenticated()
 * ```
 */
export function warnUnreadIsAuthenticated(): void {
  if (!isDevelopment()) return
  const logger = (globalThis as LastLoggerHolder)[LAST_LOGGER] ?? (defaultLogger ??= createLogger({}))
  once(logger, "is-authenticated-unread", () => warningMessages["is-authenticated-unread"])
}
