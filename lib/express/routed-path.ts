/**
 * The path Express routes a request by, read from the raw request target so that the deny rule decides on the same
 * path: a target whose path a URL parser would rewrite (dot segments, backslashes, characters it percent-encodes) is
 * refused, since Express would route the raw spelling while `new URL()` hands back another path.
 */
import type { PathRouting } from "../core/pipeline/gatehouse"
import { httpError } from "./body"

// RFC 9112 section 3.2.2: absolute-form is what proxies send; Express then routes the path after the authority. The
// authority is held to host[:port] so that no parser can split it elsewhere (a backslash or `@` would).
const ABSOLUTE_FORM = /^https?:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(?=[/?]|$)/i
// Node's legacy parser (which Express uses for absolute-form) percent-encodes these where the URL standard keeps them.
const LEGACY_ESCAPED = /['^|]/

function invalidPath(): Error {
  return httpError(400, "request.invalid.path", "Invalid request path")
}

/**
 * The URL of a request as Express routes it: `origin` (already validated) with the path and query of the raw request
 * target (`req.originalUrl`), parsed once.
 *
 * @throws an `HttpError` 400 (`request.invalid.path`) when the path is not one a URL parser keeps as it is: raw or
 *   percent-encoded dot segments (`/a/../b`, `/a/%2e%2e/b`), a backslash, a character the URL standard
 *   percent-encodes (`"`, `<`, `` ` ``...), a fragment, or a target that is neither a path nor an http(s) URL.
 * @example
 * ```ts
 * routedUrl("https://app.example", "/admin/panel?tab=1").pathname // "/admin/panel"
 * routedUrl("https://app.example", "/admin/panel/../../auth/signin") // throws (400)
 * ```
 */
export function routedUrl(origin: string, target: string): URL {
  // A fragment never belongs in a request; Express's parser would cut it and re-escape what precedes it.
  if (target.includes("#")) throw invalidPath()
  let rest = target
  if (!target.startsWith("/")) {
    const authority = ABSOLUTE_FORM.exec(target)
    if (!authority) throw invalidPath()
    rest = target.slice(authority[0].length)
    if (LEGACY_ESCAPED.test(rest)) throw invalidPath()
    if (rest === "" || rest.startsWith("?")) rest = `/${rest}`
  }
  const query = rest.indexOf("?")
  const path = query === -1 ? rest : rest.slice(0, query)
  const url = new URL(`${origin}${rest}`)
  // The URL standard resolves dot segments (also `%2e` ones), turns `\` into `/` and percent-encodes some characters;
  // the path must come back unchanged, or Express and the deny rule would see two different paths.
  if (url.pathname !== path) throw invalidPath()
  return url
}

/**
 * How the Express app compares paths: its `case sensitive routing` and `strict routing` settings (both off by
 * default, so `/ADMIN/` reaches `app.get("/admin")`).
 *
 * @example
 * ```ts
 * routingOf(req) // { caseSensitive: false, strict: false }
 * ```
 */
export function routingOf(req: { app?: { enabled?(setting: string): boolean } }): PathRouting {
  const app = req.app
  return {
    caseSensitive: app?.enabled?.("case sensitive routing") ?? false,
    strict: app?.enabled?.("strict routing") ?? false,
  }
}
