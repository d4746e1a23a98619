/** Finds the base path of an Express mount: `req.baseUrl`, or, under a wildcard mount, what precedes the action. */
import { isRoute, providerActions } from "../core/pipeline/gatehouse"

/**
 * The base path Gatehouse is mounted at for this request. With `app.use("/auth", ...)` (Express 4 and 5, routers
 * too) it is `req.baseUrl`. With the Express 4 wildcard form `app.use("/auth/*", ...)` the whole path is the mount,
 * so the base is what precedes the action segment. Every row of the route table counts as an action (the nine of
 * the reference, the opt-in `passkeys` and `sessions` routes, `signout-callback` and `backchannel-logout`), so a
 * route added to the table is recognised here without a second list.
 *
 * @example
 * ```ts
 * mountBasePath({ baseUrl: "/auth", path: "/signin/github", originalUrl: "/auth/signin/github" }) // "/auth"
 * ```
 */
export function mountBasePath(req: { baseUrl: string; path: string; originalUrl: string }): string {
  if (req.path !== "/" && req.path !== "") return withoutTrailingSlashes(req.baseUrl)
  const pathname = req.originalUrl.split("?")[0] ?? ""
  const segments = pathname.split("/").filter(Boolean)
  const n = segments.length
  let at = -1
  const previous = segments[n - 2]
  if (previous !== undefined && isRoute(previous) && providerActions.has(previous)) at = n - 2
  else if (n >= 1 && isRoute(segments[n - 1]!)) at = n - 1
  if (at === -1) return withoutTrailingSlashes(req.baseUrl)
  const base = segments.slice(0, at).join("/")
  return base ? `/${base}` : ""
}

/** `path` without its trailing slashes (the regular expression runs only when there is one). */
export function withoutTrailingSlashes(path: string): string {
  return path.endsWith("/") ? path.replace(/\/+$/, "") : path
}
