/**
 * The path property of the deny rule: for random request targets with dot segments, percent-encodings, backslashes
 * and case changes, `authorized` is asked about exactly the path Express routes. Apps on Express 4 and 5 under each
 * combination of `case sensitive routing` and `strict routing`, over loopback HTTP with raw targets. Shared by the
 * jest slice and `npm run fuzz`.
 */
import assert from "node:assert/strict"
import { Agent } from "node:http"
import express5 from "express"
import express4 from "express4"
import type { ErrorRequestHandler, Express, RequestHandler } from "express"
import fc from "fast-check"
import { Gatehouse } from "../../lib"
import { canonicalPath } from "../../lib/core/pipeline/access"
import Credentials from "../../lib/providers/credentials"
import { listen, rawRequest, type RawServer } from "../fixtures/raw-http"

/** The routes of the app, in the order Express tries them after the deny rule. */
type Route = "auth" | "panel" | "admin" | "login" | "other"

export interface PathTarget {
  name: string
  routing: { caseSensitive: boolean; strict: boolean }
  server: RawServer
  agent: Agent
  /** What `authorized` was asked about during the current case (`nextUrl.pathname`). */
  asked: string[]
}

const WORDS = ["admin", "panel", "auth", "signin", "session", "csrf", "login", "x"]
const ODD = [
  "",
  ".",
  "..",
  "%2e",
  "%2E",
  "%2e%2e",
  "%2E%2e",
  ".%2e",
  "%2e.",
  "%2e%2e%2f",
  "%2F",
  "%5C",
  "\\",
  "..\\..",
  "x\\..",
  "%00",
  "%zz",
  ";x",
  "~",
  "%7E",
  "%7e",
]

/** A word with some letters upper-cased and some characters percent-encoded (hex digits in either case). */
const word = fc
  .tuple(
    fc.constantFrom(...WORDS),
    fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    fc.boolean(),
  )
  .map(([w, upper, encoded, lowHex]) =>
    [...w]
      .map((c, i) => {
        const letter = upper[i] ? c.toUpperCase() : c
        if (!encoded[i] || i % 3 !== 0) return letter
        const hex = letter.charCodeAt(0).toString(16).padStart(2, "0")
        return `%${lowHex ? hex : hex.toUpperCase()}`
      })
      .join(""),
  )

/** A request target: segments of words and odd pieces, maybe a trailing slash, maybe a query with dots. */
export const targetArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(fc.oneof({ weight: 5, arbitrary: word }, { weight: 3, arbitrary: fc.constantFrom(...ODD) }), {
      minLength: 1,
      maxLength: 5,
    }),
    fc.boolean(),
    fc.constantFrom("", "", "?next=../../auth/signin", "?a=%2e%2e"),
  )
  .map(([segments, slash, query]) => `/${segments.join("/")}${slash ? "/" : ""}${query}`)

/** The route a canonical path names, by the literal routes of the app (compared after folding, like Express). */
function routeOf(path: string): Route {
  if (path === "/auth" || path.startsWith("/auth/")) return "auth"
  if (path === "/admin/panel" || path.startsWith("/admin/panel/")) return "panel"
  if (path === "/admin") return "admin"
  if (path === "/login") return "login"
  return "other"
}

const ENCODED_UNRESERVED = /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DdEe]|5[Ff]|7[Ee])/

/** Starts the apps: Express 4 and 5, each routing combination. */
export async function startPathTargets(): Promise<PathTarget[]> {
  const targets: PathTarget[] = []
  for (const [version, express] of [
    ["Express 4", express4 as unknown as typeof express5],
    ["Express 5", express5],
  ] as const) {
    for (const caseSensitive of [false, true]) {
      for (const strict of [false, true]) {
        const asked: string[] = []
        const gh = Gatehouse({
          secret: "path-fuzz-secret-0123456789abcdef0123456789",
          trustHost: true,
          pages: { signIn: "/login" },
          logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
          providers: [Credentials({ authorize: () => null })],
          callbacks: {
            authorized: ({ request }) => {
              asked.push(request.nextUrl.pathname)
              return true
            },
          },
        })
        const mark =
          (route: Route): RequestHandler =>
          (_req, res, next) => {
            res.setHeader("x-route", route)
            next()
          }
        const answer =
          (route: Route): RequestHandler =>
          (_req, res) => {
            res.setHeader("x-route", route)
            res.status(route === "other" ? 404 : 200).send(route)
          }
        const onError: ErrorRequestHandler = (err: { status?: number; type?: string }, _req, res, _next) => {
          res.status(err.status ?? 500).json({ type: err.type ?? "unknown" })
        }
        const app: Express = express()
        app.set("case sensitive routing", caseSensitive)
        app.set("strict routing", strict)
        app.use(gh.auth)
        app.use("/auth", mark("auth"), gh.handlers)
        app.use("/admin/panel", answer("panel"))
        app.get("/admin", answer("admin"))
        app.get("/login", answer("login"))
        app.use(answer("other"))
        app.use(onError)
        targets.push({
          name: `${version}${caseSensitive ? ", case-sensitive" : ""}${strict ? ", strict" : ""}`,
          routing: { caseSensitive, strict },
          server: await listen(app),
          agent: new Agent({ keepAlive: true, maxSockets: 2 }),
          asked,
        })
      }
    }
  }
  return targets
}

export async function stopPathTargets(targets: PathTarget[]): Promise<void> {
  for (const target of targets) {
    target.agent.destroy()
    await target.server.close()
  }
}

/**
 * One case: the target goes to every app. A path the guard refuses (400 `request.invalid.path`) must be one a URL
 * parser rewrites; otherwise the route Express chose must be the one the path given to `authorized` names, and a
 * request `authorized` was not asked about must have gone to the auth handlers or the sign-in page.
 */
export async function checkPathCase(targets: PathTarget[], target: string): Promise<void> {
  const path = target.split("?", 1)[0]!
  const rewritten = new URL(`http://h${path}`).pathname !== path
  for (const app of targets) {
    app.asked.length = 0
    const answer = await rawRequest(app.server, target, { agent: app.agent, headers: { accept: "application/json" } })
    const where = `${app.name}: GET ${target} → ${answer.status} ${answer.body.slice(0, 80)}`
    const route = answer.headers["x-route"] as Route | undefined
    if (answer.status === 400 && route === undefined) {
      assert.equal(JSON.parse(answer.body).type, "request.invalid.path", where)
      assert.ok(rewritten, `${where}: refused a path a URL parser keeps`)
      assert.deepEqual(app.asked, [], where)
      continue
    }
    assert.ok(!rewritten, `${where}: a path a URL parser rewrites was served`)
    assert.ok(route !== undefined, `${where}: no route answered`)
    if (app.asked.length === 0) {
      assert.ok(route === "auth" || route === "login", `${where}: ${route} was served without asking authorized`)
      continue
    }
    assert.equal(app.asked.length, 1, where)
    const asked = app.asked[0]!
    assert.equal(canonicalPath(asked, app.routing), asked, `${where}: authorized saw a non-canonical ${asked}`)
    // The route Express chose is the one the path `authorized` saw names. A decoded spelling (`/%61dmin`) may name a
    // route Express does not reach; the reverse never happens.
    if (route !== "other" || !ENCODED_UNRESERVED.test(path)) {
      assert.equal(route, routeOf(asked), `${where}: authorized saw ${asked}`)
    }
  }
}
