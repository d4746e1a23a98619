/**
 * Issue 29, item 11: `requireAuth` around a handler, whose `req.user` is typed `User` (no `!` or `?.`). The type side is
 * checked by `tsc` over this file (a handler that reads `req.user.name` compiles only with the typed form); the run
 * side by requests: the handler runs only for a signed-in request, and the guard's answers are unchanged.
 */
import request from "supertest"
import type { ErrorRequestHandler, RequestHandler } from "express"
import { Gatehouse, requireAuth, type SignedInHandler } from "../../lib"
import { encode } from "../../lib/jwt"
import { authConfig, SECRET, versions, type ExpressFactory } from "./apps"

const SALT = "authjs.session-token"
const onError: ErrorRequestHandler = (err, _req, res, _next) => {
  res.status(500).json({ error: (err as Error).message })
}

async function sessionCookie(): Promise<string> {
  const token = await encode({ token: { name: "Ada", email: "ada@x.test", sub: "u1" }, secret: SECRET, salt: SALT })
  return `${SALT}=${token}`
}

// The type side: without the typed form, `req.user` may be undefined.
const untyped: RequestHandler = (req, res) => {
  // @ts-expect-error req.user is `User | undefined` on a plain handler
  res.send(req.user.name)
}
void untyped

describe.each(versions)("requireAuth(handler) on %s", (_name, express: ExpressFactory) => {
  it("the handler sees req.user and req.auth as present, and runs only for a signed-in request", async () => {
    const config = authConfig()
    const gh = Gatehouse(config)
    const seen: string[] = []
    const me: SignedInHandler = (req, res) => {
      const name: string | null | undefined = req.user.name
      seen.push(`${name} ${req.auth.expires.length > 0}`)
      res.json({ name, email: req.user.email, params: req.params })
    }
    const a = express()
    a.use("/auth", gh.handlers)
    a.get("/me/:tab", gh.requireAuth(me))
    a.get("/admin", gh.requireAuth({ authorize: (session) => session.user?.email === "root@x.test" }, me))
    a.get(
      "/standalone",
      requireAuth(config, (req, res) => res.send(`hi ${req.user.email}`)),
    )
    a.use(onError)

    const cookie = await sessionCookie()
    const ok = await request(a).get("/me/profile").set("Cookie", cookie).set("Accept", "application/json")
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ name: "Ada", email: "ada@x.test", params: { tab: "profile" } })
    expect((await request(a).get("/standalone").set("Cookie", cookie)).text).toBe("hi ada@x.test")

    // Signed out: 401 JSON for an API client, 302 to sign-in for a browser; the handler never runs.
    expect((await request(a).get("/me/profile").set("Accept", "application/json")).status).toBe(401)
    const browser = await request(a).get("/standalone").set("Accept", "text/html")
    expect(browser.status).toBe(302)
    expect(new URL(browser.headers.location!, "http://h").pathname).toBe("/auth/signin")
    // Signed in but refused by `authorize`: 403, the handler never runs.
    expect((await request(a).get("/admin").set("Cookie", cookie).set("Accept", "application/json")).status).toBe(403)
    expect(seen).toEqual(["Ada true"])
  })

  it("a handler that throws or rejects reaches the app's error handler", async () => {
    const gh = Gatehouse(authConfig())
    const a = express()
    a.use("/auth", gh.handlers)
    a.get(
      "/boom",
      gh.requireAuth(async () => {
        await Promise.resolve()
        throw new Error("handler failed")
      }),
    )
    a.use(onError)
    const res = await request(a)
      .get("/boom")
      .set("Cookie", await sessionCookie())
    expect({ status: res.status, body: res.body }).toEqual({ status: 500, body: { error: "handler failed" } })
  })
})
