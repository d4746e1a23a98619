// getAccessToken in the Express flavour: the re-issued JWT cookie reaches the Express response, RefreshTokenError
// reaches the route, and the session JSON then carries the error. The sign-in runs through the web flavour of the
// same config (same secret, same cookie), since the test OP redirects to the registered http://app.test.
import express, { type NextFunction, type Request, type Response } from "express"
import request from "supertest"
import { Gatehouse as ExpressGatehouse, RefreshTokenError } from "../../lib"
import { decode } from "../../lib/jwt"
import { MemoryStore } from "../../lib/storage/memory/store"
import { Gatehouse } from "../../lib/web/gatehouse"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { Browser, SECRET, signIn, startRefreshOp, type RefreshOp } from "./harness"

let rop: RefreshOp
let config: AuthConfig
let app: express.Express
let browser: Browser

beforeAll(async () => {
  rop = await startRefreshOp()
})
afterAll(async () => {
  await rop.close()
})
beforeEach(async () => {
  rop.tap.mode = { kind: "pass" }
  config = {
    secret: SECRET,
    trustHost: true,
    store: MemoryStore(),
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [rop.provider()],
  }
  browser = new Browser()
  await signIn(Gatehouse(config), browser)
  rop.tap.calls = 0
  const { handlers, getAccessToken } = ExpressGatehouse(config)
  app = express()
  app.use("/auth", handlers)
  app.get("/api/token", (req: Request, res: Response, next: NextFunction) => {
    getAccessToken(req, res, undefined, { force: req.query.force === "1" })
      .then((token) => res.json(token))
      .catch((error: unknown) => {
        if (error instanceof RefreshTokenError) res.status(401).json({ error: error.type, reason: error.cause?.reason })
        else next(error)
      })
  })
})

async function rtOf(cookie: string): Promise<string | undefined> {
  const token = /authjs\.session-token=([^;]+)/.exec(cookie)?.[1]
  const payload = await decode({ token: token ?? "", secret: SECRET, salt: "authjs.session-token" })
  return (payload?.__gh as { tok?: Record<string, { rt?: string }> } | undefined)?.tok?.op?.rt
}

it("a forced refresh answers the new token and writes the re-issued session cookie on the Express response", async () => {
  const before = await rtOf(`authjs.session-token=${browser.session()}`)
  const response = await request(app).get("/api/token?force=1").set("Cookie", browser.header())
  expect(response.status).toBe(200)
  expect(response.body).toMatchObject({ accessToken: expect.any(String), tokenType: "bearer" })
  expect(rop.tap.calls).toBe(1)
  const cookies = ([] as string[]).concat(response.headers["set-cookie"] ?? [])
  const session = cookies.find((c) => c.startsWith("authjs.session-token="))
  expect(session).toMatch(/HttpOnly/i)
  const after = await rtOf(session!)
  expect(after).toEqual(expect.any(String))
  expect(after).not.toBe(before)
  expect(JSON.stringify(response.body)).not.toContain(after!)
})

it("invalid_grant reaches the route as RefreshTokenError; the session JSON then says RefreshTokenError", async () => {
  rop.tap.mode = { kind: "answer", status: 400, body: { error: "invalid_grant" } }
  const failed = await request(app).get("/api/token?force=1").set("Cookie", browser.header())
  expect(failed.status).toBe(401)
  expect(failed.body).toEqual({ error: "RefreshTokenError", reason: "invalid_grant" })
  const cookies = ([] as string[]).concat(failed.headers["set-cookie"] ?? [])
  const reissued = cookies.find((c) => c.startsWith("authjs.session-token="))!
  const session = await request(app).get("/auth/session").set("Cookie", reissued.split(";")[0])
  expect(session.status).toBe(200)
  expect(session.body).toMatchObject({ error: "RefreshTokenError", user: { email: "alice@example.test" } })
})

it("without a session the route gets null and no cookie is written", async () => {
  const response = await request(app).get("/api/token")
  expect(response.status).toBe(200)
  expect(response.body).toBeNull()
  expect(response.headers["set-cookie"]).toBeUndefined()
  expect(rop.tap.calls).toBe(0)
})
