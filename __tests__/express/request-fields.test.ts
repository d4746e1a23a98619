/**
 * `req.auth` and `req.user` are accessors on Node's request prototype whose values live in a per-request weak map
 * (guard.ts): they must read and assign like the plain properties Passport and express-jwt expect, never leak between
 * requests, and add no property to the request.
 */
import type { NextFunction, Request, Response } from "express"
import request from "supertest"
import { ExpressAuth, requireAuth } from "../../lib"
import { encode } from "../../lib/jwt"
import { SECRET, authConfig, cookieHeader, signIn, versions } from "./apps"

describe.each(versions)("req.auth and req.user on %s", (_name, express) => {
  function app(config = authConfig(), before?: (req: Request) => void, after?: (req: Request) => void) {
    const a = express()
    a.use("/auth", ExpressAuth(config))
    a.use((req: Request, _res: Response, next: NextFunction) => {
      before?.(req)
      next()
    })
    a.get("/me", requireAuth(config), (req, _res, next) => {
      after?.(req)
      next()
    })
    a.get("/me", (req, res) => {
      res.json({
        user: req.user ?? null,
        auth: req.auth ?? null,
        authenticated: req.isAuthenticated(),
        own: ["auth", "user"].filter((key) => Object.prototype.hasOwnProperty.call(req, key)),
      })
    })
    a.get("/plain", (req, res) => res.json({ user: req.user ?? null, auth: req.auth ?? null, own: Object.keys(req) }))
    return a
  }

  it("are set by the guard without becoming own properties of the request", async () => {
    const a = app()
    const jar = await signIn(a)
    const res = await request(a).get("/me").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(res.status).toBe(200)
    expect(res.body.user).toEqual({ name: "Ada", email: "ada@x.test" })
    expect(res.body.auth.user).toEqual(res.body.user)
    expect(res.body.own).toEqual([])
  })

  it("read as undefined on a request Gatehouse never read, and do not carry over from an earlier request", async () => {
    const a = app()
    const jar = await signIn(a)
    await request(a).get("/me").set("Cookie", cookieHeader(jar)).set("Accept", "application/json").expect(200)
    const res = await request(a).get("/plain").set("Cookie", cookieHeader(jar))
    expect(res.body.user).toBeNull()
    expect(res.body.auth).toBeNull()
    expect(res.body.own).not.toContain("user")
    expect(res.body.own).not.toContain("auth")
  })

  it("what other middleware assigns before the guard is replaced by the session; after it, is read back", async () => {
    const a = app(
      authConfig(),
      (req) => {
        req.user = { name: "Mallory", email: "mallory@x.test" }
      },
      (req) => {
        ;(req as { auth?: unknown }).auth = { replacedBy: "express-jwt" }
      },
    )
    const jar = await signIn(a)
    const res = await request(a).get("/me").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(res.body.user).toEqual({ name: "Ada", email: "ada@x.test" })
    expect(res.body.auth).toEqual({ replacedBy: "express-jwt" })
    // isAuthenticated() answers from the session Gatehouse read, never from req.auth.
    expect(res.body.authenticated).toBe(true)
  })

  it("assigning undefined clears the value while isAuthenticated() still answers from the read", async () => {
    const a = app(authConfig(), undefined, (req) => {
      req.user = undefined
    })
    const jar = await signIn(a)
    const res = await request(a).get("/me").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(res.body.user).toBeNull()
    expect(res.body.authenticated).toBe(true)
  })

  it("an own property defined on one request wins over the accessor", async () => {
    const a = app(authConfig(), undefined, (req) => {
      Object.defineProperty(req, "user", { value: { name: "Own" }, writable: true, configurable: true })
    })
    const jar = await signIn(a)
    const res = await request(a).get("/me").set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    expect(res.body.user).toEqual({ name: "Own" })
    expect(res.body.own).toEqual(["user"])
  })

  it("concurrent requests of different users each see their own user", async () => {
    const a = app()
    const cookieOf = async (sub: string, name: string) =>
      `authjs.session-token=${await encode({ token: { sub, name }, secret: SECRET, salt: "authjs.session-token" })}`
    const users = Array.from({ length: 12 }, (_, i) => ({ sub: `u${i}`, name: `User ${i}` }))
    const cookies = await Promise.all(users.map((u) => cookieOf(u.sub, u.name)))
    const answers = await Promise.all(
      cookies.map((cookie) => request(a).get("/me").set("Cookie", cookie).set("Accept", "application/json")),
    )
    expect(answers.map((r) => r.body.user?.name)).toEqual(users.map((u) => u.name))
  })
})
