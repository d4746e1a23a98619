// Issue 16: a GET /auth/session without any cookie is answered from the pipeline's own answer for its origin, with a
// CSRF token minted per request. These tests hold it to the full pipeline's answer (handlers.fetch) and to the rest of
// the flow (the token it hands out is accepted).
import request from "supertest"
import { ExpressAuth, Gatehouse } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { skipCSRFCheck } from "../../lib/core"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { SECRET, authConfig, cookieHeader, cookieJar, signIn, versions, type ExpressFactory } from "./apps"

const setCookies = (headers: Record<string, unknown>): string[] => {
  const value = headers["set-cookie"]
  return value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)]
}

/** The CSRF cookie's value (`<token>|<hash>`, percent-encoded on the wire) replaced by a marker, and the token. */
function withoutToken(lines: string[], csrfName: string): { lines: string[]; token?: string } {
  let token: string | undefined
  const out = lines.map((line) => {
    if (!line.startsWith(`${csrfName}=`)) return line
    const value = decodeURIComponent(line.slice(csrfName.length + 1).split(";")[0]!)
    token = value.split("|")[0]
    return line.replace(/^[^;]*/, `${csrfName}=<token>`)
  })
  return { lines: out, token }
}

interface Scenario {
  name: string
  config: Partial<AuthConfig>
  mount: string
  headers: Record<string, string>
  origin: string
  csrfName: string
  trustProxy?: boolean
}

const scenarios: Scenario[] = [
  {
    name: "over http",
    config: {},
    mount: "/auth",
    headers: { Host: "app.test" },
    origin: "http://app.test",
    csrfName: "authjs.csrf-token",
  },
  {
    name: "over https behind a trusted proxy (prefixed, Secure cookies)",
    config: {},
    mount: "/auth",
    headers: { Host: "app.test", "X-Forwarded-Proto": "https" },
    origin: "https://app.test",
    csrfName: "__Host-authjs.csrf-token",
    trustProxy: true,
  },
  {
    name: "with database sessions",
    config: { adapter: MemoryAdapter(), session: { strategy: "database" } },
    mount: "/auth",
    headers: { Host: "app.test" },
    origin: "http://app.test",
    csrfName: "authjs.csrf-token",
  },
  {
    name: "under another mount path, with cookie options of the app's",
    config: {
      cookies: { csrfToken: { name: "app-csrf", options: { path: "/", sameSite: "strict", httpOnly: true } } },
    },
    mount: "/api/auth",
    headers: { Host: "app.test:8080" },
    origin: "http://app.test:8080",
    csrfName: "app-csrf",
  },
]

describe.each(versions)("a cookie-less GET /auth/session on %s", (_name, express: ExpressFactory) => {
  function appOf(config: AuthConfig, mount = "/auth", trustProxy = false) {
    const app = express()
    if (trustProxy) app.set("trust proxy", true)
    app.use(mount, ExpressAuth(config))
    return app
  }

  it.each(scenarios)(
    "$name: the full pipeline's answer every time, each with its own CSRF token",
    async ({ config: overrides, mount, headers, origin, csrfName, trustProxy }) => {
      const config = authConfig(overrides)
      const app = appOf(config, mount, trustProxy)
      // The full pipeline: a Web Request through handlers.fetch, which never takes the cookie-less path.
      const reference = await Gatehouse({ ...config, basePath: mount }).handlers.fetch(
        new Request(`${origin}${mount}/session`, { headers: { accept: "application/json" } }),
      )
      const expectedBody: unknown = await reference.json()
      const expected = withoutToken(reference.headers.getSetCookie(), csrfName)
      expect(expectedBody).toBeNull()
      expect(expected.lines.length).toBe(2)

      const tokens = new Set<string>()
      // The first request of an origin runs the pipeline, the next ones are answered from its answer.
      for (let i = 0; i < 4; i++) {
        const res = await request(app).get(`${mount}/session`).set(headers).set("Accept", "application/json")
        expect(res.status).toBe(200)
        expect(res.text).toBe("null")
        for (const [header, value] of reference.headers) {
          if (header === "set-cookie") continue
          expect([header, res.headers[header]]).toEqual([header, value])
        }
        const got = withoutToken(setCookies(res.headers), csrfName)
        expect(got.lines).toEqual(expected.lines)
        expect(got.token).toMatch(/^[0-9a-f]{64}$/)
        tokens.add(got.token!)
      }
      expect(tokens.size).toBe(4)
    },
  )

  it("hands out CSRF tokens the other routes accept (signed with the first secret of a rotation list)", async () => {
    const config = authConfig({ secret: ["express-newer-secret-0123456789abcdefgh", SECRET] })
    const app = appOf(config)
    await request(app).get("/auth/session") // primes the answer of this origin
    const res = await request(app).get("/auth/session")
    const jar = cookieJar({}, setCookies(res.headers))
    const token = decodeURIComponent(jar["authjs.csrf-token"]!).split("|")[0]

    const csrf = await request(app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
    expect(csrf.body).toEqual({ csrfToken: token })
    expect(setCookies(csrf.headers).filter((l) => l.startsWith("authjs.csrf-token="))).toEqual([])

    const signedIn = await request(app)
      .post("/auth/callback/credentials")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: token, username: "ada", password: "pw" })
    expect(signedIn.status).toBe(302)
    expect(setCookies(signedIn.headers).some((l) => l.startsWith("authjs.session-token="))).toBe(true)

    // A token the secret did not sign is still refused.
    const forged = `${"a".repeat(64)}|${"b".repeat(64)}`
    const refused = await request(app)
      .post("/auth/callback/credentials")
      .set("Cookie", `authjs.csrf-token=${encodeURIComponent(forged)}`)
      .set("Accept", "application/json")
      .set("X-Auth-Return-Redirect", "1")
      .type("form")
      .send({ csrfToken: "a".repeat(64), username: "ada", password: "pw" })
    expect(refused.body.url).toContain("error=MissingCSRF")
  })

  it("keeps each origin's answer apart, however many hosts call", async () => {
    const app = appOf(authConfig())
    const callbackOf = async (host: string) => {
      const res = await request(app).get("/auth/session").set("Host", host)
      const line = setCookies(res.headers).find((l) => l.startsWith("authjs.callback-url="))!
      return decodeURIComponent(line.split(";")[0]!.slice("authjs.callback-url=".length))
    }
    expect(await callbackOf("a.test")).toBe("http://a.test")
    expect(await callbackOf("b.test")).toBe("http://b.test")
    expect(await callbackOf("a.test")).toBe("http://a.test")
    // More origins than are kept: the oldest are dropped, none is ever answered with another's cookie.
    for (let i = 0; i < 70; i++) expect(await callbackOf(`h${i}.test`)).toBe(`http://h${i}.test`)
    expect(await callbackOf("a.test")).toBe("http://a.test")
    expect((await request(app).get("/auth/session").set("Host", "bad host")).status).toBe(400)
  })

  it("leaves a request with a query, a cookie or another path to the pipeline", async () => {
    const app = appOf(authConfig())
    await request(app).get("/auth/session").set("Host", "app.test")
    const callback = async (res: request.Response) =>
      decodeURIComponent(
        setCookies(res.headers)
          .find((l) => l.startsWith("authjs.callback-url="))
          ?.split(";")[0]!
          .slice("authjs.callback-url=".length) ?? "(none)",
      )

    const withQuery = await request(app).get("/auth/session?callbackUrl=%2Fnext").set("Host", "app.test")
    expect(withQuery.text).toBe("null")
    expect(await callback(withQuery)).toBe("http://app.test/next")

    const withCallbackCookie = await request(app)
      .get("/auth/session")
      .set("Host", "app.test")
      .set("Cookie", `authjs.callback-url=${encodeURIComponent("http://app.test/back")}`)
    expect(await callback(withCallbackCookie)).toBe("(none)")

    const jar = await signIn(app)
    const read = await request(app).get("/auth/session").set("Cookie", cookieHeader(jar))
    expect(read.body).toMatchObject({ user: { name: "Ada", email: "ada@x.test" } })
  })

  it("with CSRF checks skipped (a framework's choice) answers without a CSRF cookie", async () => {
    const config = authConfig({ skipCSRFCheck } as Partial<AuthConfig>)
    const app = appOf(config)
    for (let i = 0; i < 2; i++) {
      const res = await request(app).get("/auth/session").set("Host", "app.test")
      expect(res.text).toBe("null")
      expect(setCookies(res.headers).map((l) => l.split("=")[0])).toEqual(["authjs.callback-url"])
    }
  })
})
