// Issue 16: on Express, getSession, requireAuth and GET /auth/session re-issue a JWT session cookie by the same rule,
// so server reads never set the cookie more often than the route does.
import request from "supertest"
import { ExpressAuth, getSession, requireAuth } from "../../lib"
import { decode, encode } from "../../lib/jwt"
import { fakeDateOnly } from "../fixtures/clock"
import { SECRET, authConfig, versions } from "./apps"

const COOKIE = "authjs.session-token"
const NEWER = "express-newer-secret-0123456789abcdefgh"
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0)
const DAY = 86_400

const sessionLines = (res: request.Response) =>
  ((res.headers["set-cookie"] as unknown as string[] | undefined) ?? []).filter((l) => l.startsWith(`${COOKIE}=`))

describe.each(versions)("the re-issue rule on %s", (_name, express) => {
  afterEach(() => jest.useRealTimers())

  function app(secret: string | string[] = SECRET) {
    const config = authConfig({ secret })
    const a = express()
    a.use("/auth", ExpressAuth(config))
    a.get("/protected", requireAuth(config), (_req, res) => res.json({ ok: true }))
    a.get("/read", async (req, res) => res.json(await getSession(req, config)))
    return a
  }

  /** The session Set-Cookie lines of each of the three reads of `cookie`. */
  async function reads(a: ReturnType<typeof app>, cookie: string) {
    const get = (path: string) =>
      request(a).get(path).set("Cookie", `${COOKIE}=${cookie}`).set("Accept", "application/json")
    const route = await get("/auth/session")
    const guarded = await get("/protected")
    const read = await get("/read")
    for (const res of [route, guarded, read]) expect(res.status).toBe(200)
    expect(route.body).toMatchObject({ user: { name: "Ada" } })
    expect(read.body).toEqual(route.body)
    return [route, guarded, read].map(sessionLines)
  }

  it.each([
    ["a fresh cookie: none of them sets it", SECRET, SECRET, 60, 0],
    ["past updateAge: each of them re-issues it", SECRET, SECRET, DAY, 1],
    ["sealed with an older secret: each re-issues it with the newer one", [NEWER, SECRET], SECRET, 60, 1],
    ["sealed with the newer secret of a rotation list: none sets it", [NEWER, SECRET], NEWER, 60, 0],
  ])("%s", async (_case, secret, sealedWith, elapsed, expected) => {
    fakeDateOnly(T0)
    const cookie = await encode({ token: { sub: "u1", name: "Ada" }, secret: sealedWith, salt: COOKIE })
    jest.setSystemTime(T0 + elapsed * 1000)
    const lines = await reads(app(secret), cookie)
    for (const set of lines) {
      expect(set).toHaveLength(expected)
      if (expected === 0) continue
      const value = decodeURIComponent(set[0]!.slice(COOKIE.length + 1).split(";")[0]!)
      const payload = await decode({ token: value, secret: Array.isArray(secret) ? secret[0]! : secret, salt: COOKIE })
      expect(payload).toMatchObject({ sub: "u1", name: "Ada", iat: T0 / 1000 + elapsed })
    }
  })
})
