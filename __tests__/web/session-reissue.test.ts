// Issue 16 item 1: GET /session and server reads (`auth(request)`) re-issue a JWT session cookie only when it changes
// something: `updateAge` since it was issued, an older secret of a rotation list, a `jwt` callback change, an update.
import { decode, encode } from "../../lib/jwt"
import type { JWT } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import { Gatehouse } from "../../lib/web"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { fakeDateOnly } from "../fixtures/clock"

const COOKIE = "authjs.session-token"
const SECRET = "session-reissue-secret-0123456789abcdef"
const NEW_SECRET = "session-reissue-newer-secret-0123456789"
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0)
const HOUR = 3600
const UPDATE_AGE = 2 * HOUR
const MAX_AGE = 24 * HOUR
const USER = { sub: "u1", name: "Ada", email: "ada@example.test", picture: "https://img.test/a.png" }

function gatehouse(overrides: Partial<AuthConfig> = {}) {
  return Gatehouse({
    secret: SECRET,
    trustHost: true,
    session: { strategy: "jwt", maxAge: MAX_AGE, updateAge: UPDATE_AGE },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [Credentials({ credentials: {}, authorize: () => null })],
    ...overrides,
  })
}

/** A cookie issued now, the way sign-in issues it (with the session epoch claim). */
function mint(token: JWT = USER, secret: string | string[] = SECRET): Promise<string> {
  return encode({
    token: { ...token, __gh: { se: Date.now(), at: Math.floor(Date.now() / 1000) } },
    secret,
    salt: COOKIE,
    maxAge: MAX_AGE,
  })
}

const sessionRequest = (cookie: string) =>
  new Request("http://localhost:3000/auth/session", { headers: { cookie: `${COOKIE}=${cookie}` } })
const pageRequest = (cookie: string) =>
  new Request("http://localhost:3000/account", { headers: { cookie: `${COOKIE}=${cookie}` } })

/** The session Set-Cookie headers of a response (the CSRF and callback-url cookies go out as in Auth.js). */
const sessionHeaders = (response: Response) =>
  response.headers.getSetCookie().filter((c) => c.startsWith(`${COOKIE}=`) || c.startsWith(`${COOKIE}.`))
/** The session cookie values a response sets (empty when it sets none). */
const sessionCookies = (response: Response) =>
  sessionHeaders(response).map((c) => decodeURIComponent(c.slice(COOKIE.length + 1).split(";")[0]!))
const CLEARED = [`${COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`]

const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

async function readPayload(cookie: string, secret: string | string[] = SECRET) {
  const payload = await decode({ token: cookie, secret, salt: COOKIE })
  if (!payload) throw new Error("the re-issued cookie does not decode")
  return payload
}

describe("GET /session re-issues the JWT cookie only when it changes something", () => {
  beforeEach(() => fakeDateOnly(T0))
  afterEach(() => jest.useRealTimers())

  it("a fresh cookie: 200, the same body on every read, no session Set-Cookie, the real expiry", async () => {
    const gh = gatehouse()
    const cookie = await mint()
    const exp = (await readPayload(cookie)).exp!
    jest.setSystemTime(T0 + 60_000)
    const bodies: unknown[] = []
    for (let i = 0; i < 3; i++) {
      const response = await gh.handlers.GET(sessionRequest(cookie))
      expect(response.status).toBe(200)
      expect(response.headers.get("cache-control")).toBe("private, no-cache, no-store")
      expect(sessionHeaders(response)).toEqual([])
      bodies.push(await response.json())
    }
    expect(bodies[0]).toEqual({
      user: { name: "Ada", email: "ada@example.test", image: "https://img.test/a.png" },
      expires: iso(exp),
    })
    expect(bodies[1]).toEqual(bodies[0])
    expect(bodies[2]).toEqual(bodies[0])
  })

  it("the wire answer has the same shape when it re-issues: only `expires` moves, to the new cookie's expiry", async () => {
    const gh = gatehouse()
    const cookie = await mint()
    const quiet = (await (await gh.handlers.GET(sessionRequest(cookie))).json()) as Record<string, unknown>
    jest.setSystemTime(T0 + UPDATE_AGE * 1000)
    const response = await gh.handlers.GET(sessionRequest(cookie))
    const [fresh] = sessionCookies(response)
    const reissued = (await response.json()) as Record<string, unknown>
    expect(Object.keys(reissued).sort()).toEqual(Object.keys(quiet).sort())
    expect(reissued.user).toEqual(quiet.user)
    expect(reissued.expires).toBe(iso((await readPayload(fresh!)).exp!))
    expect(reissued.expires).toBe(new Date(T0 + (UPDATE_AGE + MAX_AGE) * 1000).toISOString())
  })

  it("expiry still slides: at updateAge the cookie is re-issued (new iat/exp, same claims), then not again for updateAge", async () => {
    const gh = gatehouse()
    const first = await mint()
    const before = await readPayload(first)

    jest.setSystemTime(T0 + (UPDATE_AGE - 1) * 1000)
    expect(sessionCookies(await gh.handlers.GET(sessionRequest(first)))).toEqual([])

    jest.setSystemTime(T0 + UPDATE_AGE * 1000)
    const slid = await gh.handlers.GET(sessionRequest(first))
    const [second] = sessionCookies(slid)
    expect(second).toBeDefined()
    expect(sessionHeaders(slid)[0]).toContain(`Expires=${new Date(T0 + (UPDATE_AGE + MAX_AGE) * 1000).toUTCString()}`)
    const after = await readPayload(second!)
    expect(after.iat).toBe(T0 / 1000 + UPDATE_AGE)
    expect(after.exp).toBe(T0 / 1000 + UPDATE_AGE + MAX_AGE)
    expect(after.jti).not.toBe(before.jti)
    // The session epoch is copied, never refreshed, by a re-issue.
    expect(after.__gh).toEqual(before.__gh)
    expect(after).toMatchObject(USER)

    jest.setSystemTime(T0 + (2 * UPDATE_AGE - 1) * 1000)
    expect(sessionCookies(await gh.handlers.GET(sessionRequest(second!)))).toEqual([])
    jest.setSystemTime(T0 + 2 * UPDATE_AGE * 1000)
    expect(sessionCookies(await gh.handlers.GET(sessionRequest(second!)))).toHaveLength(1)
  })

  it("secret rotation: a cookie of the older secret is re-issued with the newer one; one of the newer is left alone", async () => {
    const gh = gatehouse({ secret: [NEW_SECRET, SECRET] })
    const old = await mint(USER, SECRET)
    const current = await mint(USER, NEW_SECRET)

    const rotated = await gh.handlers.GET(sessionRequest(old))
    expect(rotated.status).toBe(200)
    const [fresh] = sessionCookies(rotated)
    expect(fresh).toBeDefined()
    expect(await decode({ token: fresh!, secret: SECRET, salt: COOKIE })).toBeNull()
    expect(await readPayload(fresh!, NEW_SECRET)).toMatchObject(USER)

    // Again with the same old cookie (now answered from the decrypted-payload cache): still re-issued.
    expect(sessionCookies(await gh.handlers.GET(sessionRequest(old)))).toHaveLength(1)
    expect(sessionCookies(await gh.handlers.GET(sessionRequest(current)))).toEqual([])
    expect(sessionCookies(await gh.handlers.GET(sessionRequest(fresh!)))).toEqual([])
  })

  it("a jwt callback that changes the payload re-issues it; one that returns it unchanged does not", async () => {
    let role = "reader"
    const gh = gatehouse({ callbacks: { jwt: ({ token }) => ({ ...token, role }) } })
    const cookie = await mint({ ...USER, role: "reader" } as JWT)
    expect(sessionCookies(await gh.handlers.GET(sessionRequest(cookie)))).toEqual([])

    role = "admin"
    const changed = await gh.handlers.GET(sessionRequest(cookie))
    const [fresh] = sessionCookies(changed)
    expect(fresh).toBeDefined()
    expect(await readPayload(fresh!)).toMatchObject({ ...USER, role: "admin" })
    expect(sessionCookies(await gh.handlers.GET(sessionRequest(fresh!)))).toEqual([])
  })

  it("POST /session (an update) always re-issues", async () => {
    const gh = gatehouse({
      callbacks: {
        jwt: ({ token, trigger, session }) => (trigger === "update" ? { ...token, ...(session as object) } : token),
      },
    })
    const cookie = await mint()
    const csrfResponse = await gh.handlers.GET(new Request("http://localhost:3000/auth/csrf"))
    const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string }
    const csrfCookie = csrfResponse.headers.getSetCookie()[0]!.split(";")[0]!
    const response = await gh.handlers.POST(
      new Request("http://localhost:3000/auth/session", {
        method: "POST",
        headers: { cookie: `${COOKIE}=${cookie}; ${csrfCookie}`, "content-type": "application/json" },
        body: JSON.stringify({ csrfToken, data: { name: "Ada L." } }),
      }),
    )
    expect(response.status).toBe(200)
    const [fresh] = sessionCookies(response)
    expect(await readPayload(fresh!)).toMatchObject({ name: "Ada L." })
  })

  it("a tampered or missing cookie still answers null (cleared / no cookie), as before", async () => {
    const gh = gatehouse()
    const cookie = await mint()
    const tampered = `${cookie.slice(0, -4)}AAAA`
    const bad = await gh.handlers.GET(sessionRequest(tampered))
    expect(await bad.json()).toBeNull()
    expect(sessionHeaders(bad)).toEqual(CLEARED)
    const none = await gh.handlers.GET(new Request("http://localhost:3000/auth/session"))
    expect(await none.json()).toBeNull()
    expect(sessionHeaders(none)).toEqual([])
  })

  it("sign out everywhere (the user's watermark) still ends a cookie answered from the cache", async () => {
    const gh = gatehouse()
    const cookie = await mint()
    jest.setSystemTime(T0 + 1000)
    expect(await (await gh.handlers.GET(sessionRequest(cookie))).json()).toMatchObject({ user: { name: "Ada" } })
    await gh.revokeUserSessions("u1")
    jest.setSystemTime(T0 + 2000)
    const ended = await gh.handlers.GET(sessionRequest(cookie))
    expect(await ended.json()).toBeNull()
    expect(sessionHeaders(ended)).toEqual(CLEARED)
    expect(await gh.auth(pageRequest(cookie))).toBeNull()
  })
})

describe("auth(request) follows the same rule and never sets the cookie more often than GET /session", () => {
  beforeEach(() => fakeDateOnly(T0))
  afterEach(() => jest.useRealTimers())

  const queuedCookies = (gh: ReturnType<typeof gatehouse>, request: Request) =>
    sessionCookies(gh.applyCookies(request, new Response("ok")))

  it.each([
    ["a fresh cookie", () => gatehouse(), () => mint(), 60, 0],
    ["a cookie past updateAge", () => gatehouse(), () => mint(), UPDATE_AGE, 1],
    ["a cookie of an older secret", () => gatehouse({ secret: [NEW_SECRET, SECRET] }), () => mint(USER, SECRET), 60, 1],
  ])("%s", async (_name, make, cookieOf, elapsed, expected) => {
    const gh = make()
    const cookie = await cookieOf()
    jest.setSystemTime(T0 + elapsed * 1000)
    const request = pageRequest(cookie)
    expect(await gh.auth(request)).toMatchObject({ user: { name: "Ada" } })
    const server = queuedCookies(gh, request)
    const route = sessionCookies(await gh.handlers.GET(sessionRequest(cookie)))
    expect(server).toHaveLength(expected)
    expect(route).toHaveLength(expected)
  })
})
