// tokens.md T3: access tokens (RFC 9068) from GET /auth/token, keys at /auth/jwks, rotation, and Gatehouse verifying
// its own tokens with gatehouse-auth/resource. Verified independently with jose (createRemoteJWKSet + jwtVerify).
import express from "express"
import type { Express, Request, Response } from "express"
import type { AddressInfo } from "node:net"
import type { Server } from "node:http"
import request from "supertest"
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose"
import { Gatehouse, type GatehouseInstance } from "../../lib"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import { requireAccessToken } from "../../lib/resource"
import { InvalidConfig } from "../../lib/errors"
import { SECRET, cookieHeader, cookieJar } from "../express/apps"

const API = "https://api.example.test"

interface Started {
  app: Express
  gatehouse: GatehouseInstance
  origin: string
  issued: unknown[]
  rotated: unknown[]
  close(): Promise<void>
}

async function start(extra: Partial<AuthConfig["accessTokens"]> = {}): Promise<Started> {
  const issued: unknown[] = []
  const rotated: unknown[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    session: { strategy: "jwt", bearer: true },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    accessTokens: { audience: [API, "https://other.example.test"], scopes: ["read"], ...extra },
    events: {
      accessTokenIssued: (message) => void issued.push(message),
      signingKeyRotated: (message) => void rotated.push(message),
    },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) =>
          c.username === "alice" && c.password === "alice-pw"
            ? { id: "user-alice", name: "alice", email: "alice@example.test" }
            : null,
      }),
    ],
  }
  const gatehouse = Gatehouse(config)
  const app = express()
  app.use("/auth", gatehouse.handlers)
  app.get("/api/issue", (req: Request, res: Response) => {
    gatehouse.issueAccessToken(req, res, { scope: "read" }).then(
      (token) => void res.json(token),
      (error: unknown) => void res.status(400).json({ code: (error as { code?: string }).code }),
    )
  })
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s))
  })
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    app,
    gatehouse,
    origin,
    issued,
    rotated,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function cookieSignIn(origin: string): Promise<Record<string, string>> {
  const csrf = await request(origin).get("/auth/csrf")
  const jar = cookieJar({}, csrf.headers["set-cookie"])
  const res = await request(origin)
    .post("/auth/callback/credentials")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, username: "alice", password: "alice-pw" })
  return cookieJar(jar, res.headers["set-cookie"])
}

async function bearerSignIn(origin: string): Promise<string> {
  const res = await request(origin)
    .post("/auth/callback/credentials")
    .set("X-Auth-Return-Token", "1")
    .send({ username: "alice", password: "alice-pw" })
  return res.body.token as string
}

let s: Started
beforeEach(async () => {
  s = await start()
})
afterEach(async () => {
  await s.close()
})

describe("tokens T3: access tokens for other services", () => {
  test("T3-1 GET /auth/token with a cookie and with a bearer: an RFC 9068 JWT that jose verifies; anonymous 401", async () => {
    const jwks = createRemoteJWKSet(new URL(`${s.origin}/auth/jwks`))
    const jar = await cookieSignIn(s.origin)
    const bearer = await bearerSignIn(s.origin)
    for (const [name, req] of [
      ["cookie", request(s.origin).get("/auth/token").set("Cookie", cookieHeader(jar))],
      ["bearer", request(s.origin).get("/auth/token").set("Authorization", `Bearer ${bearer}`)],
    ] as const) {
      const res = await req
      expect([name, res.status]).toEqual([name, 200])
      expect(res.headers["cache-control"]).toContain("no-store")
      expect(res.body).toMatchObject({ token_type: "Bearer", expires_in: 900 })
      const token = res.body.access_token as string
      const header = decodeProtectedHeader(token)
      expect(header.typ).toBe("at+jwt")
      expect(typeof header.kid).toBe("string")
      const { payload } = await jwtVerify(token, jwks, { issuer: `${s.origin}/auth`, audience: API, typ: "at+jwt" })
      expect(payload.sub).toBe("user-alice")
      expect(payload.exp! - payload.iat!).toBe(900)
      expect(typeof payload.jti).toBe("string")
      expect(payload.client_id).toBe("gatehouse")
      expect(payload).not.toHaveProperty("__gh")
      expect(payload).not.toHaveProperty("email")
    }
    expect(s.issued).toHaveLength(2)
    expect(JSON.stringify(s.issued)).not.toContain("eyJ")
    const anonymous = await request(s.origin).get("/auth/token")
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toEqual({ error: "Unauthorized" })
    expect(anonymous.headers["www-authenticate"]).toBe("Bearer")
    const garbage = await request(s.origin).get("/auth/token").set("Authorization", "Bearer nope")
    expect(garbage.status).toBe(401)
    expect(garbage.headers["www-authenticate"]).toBe('Bearer error="invalid_token"')
  })

  test("T3-2 /auth/jwks: public keys only, cacheable, each with kid, alg and use sig", async () => {
    const res = await request(s.origin).get("/auth/jwks")
    expect(res.status).toBe(200)
    expect(res.headers["cache-control"]).toBe("public, max-age=300")
    expect(res.headers["access-control-allow-origin"]).toBe("*")
    expect(res.body.keys).toHaveLength(1)
    for (const key of res.body.keys as Array<Record<string, unknown>>) {
      expect(key).toMatchObject({ alg: "ES256", use: "sig", kty: "EC", crv: "P-256" })
      expect(typeof key.kid).toBe("string")
      for (const member of ["d", "p", "q", "dp", "dq", "qi", "k"]) expect(key).not.toHaveProperty(member)
    }
    // The store holds the set sealed: no private member in clear.
    expect(s.rotated).toHaveLength(1)
  })

  test("T3-3 scope read is granted; scope admin is invalid_scope; another audience is invalid_target", async () => {
    const bearer = await bearerSignIn(s.origin)
    const get = (query: string) =>
      request(s.origin).get(`/auth/token?${query}`).set("Authorization", `Bearer ${bearer}`)
    const read = await get("scope=read")
    expect(read.status).toBe(200)
    expect(read.body.scope).toBe("read")
    const { payload } = await jwtVerify(read.body.access_token, createRemoteJWKSet(new URL(`${s.origin}/auth/jwks`)))
    expect(payload.scope).toBe("read")
    const admin = await get("scope=admin")
    expect([admin.status, admin.body]).toEqual([400, { error: "invalid_scope" }])
    const other = await get(`audience=${encodeURIComponent("https://other")}`)
    expect([other.status, other.body]).toEqual([400, { error: "invalid_target" }])
    const second = await get(`audience=${encodeURIComponent("https://other.example.test")}`)
    expect(second.status).toBe(200)
  })

  test("T3-4 rotateAccessTokenKeys(): two keys (new first); the old token still verifies; a new one carries the new kid", async () => {
    const bearer = await bearerSignIn(s.origin)
    const before = await request(s.origin).get("/auth/token").set("Authorization", `Bearer ${bearer}`)
    const oldKid = decodeProtectedHeader(before.body.access_token).kid
    const { kid, previousKid } = await s.gatehouse.rotateAccessTokenKeys()
    expect(previousKid).toBe(oldKid)
    expect(kid).not.toBe(oldKid)
    const jwks = await request(s.origin).get("/auth/jwks")
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual([kid, oldKid])
    const set = createRemoteJWKSet(new URL(`${s.origin}/auth/jwks`))
    await expect(jwtVerify(before.body.access_token, set)).resolves.toBeDefined()
    const after = await request(s.origin).get("/auth/token").set("Authorization", `Bearer ${bearer}`)
    expect(decodeProtectedHeader(after.body.access_token).kid).toBe(kid)
    await expect(jwtVerify(after.body.access_token, set)).resolves.toBeDefined()
  })

  test("T3-5 a cookie request with Sec-Fetch-Site: cross-site is refused", async () => {
    const jar = await cookieSignIn(s.origin)
    const res = await request(s.origin)
      .get("/auth/token")
      .set("Cookie", cookieHeader(jar))
      .set("Sec-Fetch-Site", "cross-site")
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ error: "MissingCSRF" })
  })

  test("T3-6 Gatehouse verifies its own tokens with requireAccessToken and jwksUri", async () => {
    const api = express()
    api.get(
      "/data",
      requireAccessToken({ issuer: `${s.origin}/auth`, audience: API, jwksUri: `${s.origin}/auth/jwks` }),
      (req: Request, res: Response) => void res.json({ sub: req.accessToken?.payload.sub }),
    )
    const bearer = await bearerSignIn(s.origin)
    const token = await request(s.origin).get("/auth/token").set("Authorization", `Bearer ${bearer}`)
    const res = await request(api).get("/data").set("Authorization", `Bearer ${token.body.access_token}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ sub: "user-alice" })
  })

  test("issueAccessToken(req, res, {scope}) as a server function; null without a session", async () => {
    const jar = await cookieSignIn(s.origin)
    const res = await request(s.origin).get("/api/issue").set("Cookie", cookieHeader(jar))
    expect(res.status).toBe(200)
    expect(res.body.scope).toBe("read")
    const anonymous = await request(s.origin).get("/api/issue")
    expect(anonymous.body).toBeNull()
  })

  test("construction checks name the bad field; without accessTokens the routes are not served", () => {
    const bad = (accessTokens: unknown) => () =>
      Gatehouse({ secret: SECRET, providers: [], accessTokens: accessTokens as never })
    expect(bad({ audience: "" })).toThrow(InvalidConfig)
    expect(bad({ audience: API, ttl: 10 })).toThrow(/accessTokens.ttl/)
    expect(bad({ audience: API, alg: "HS256" })).toThrow(/accessTokens.alg/)
    expect(bad({ audience: API, rotation: { overlap: 100 } })).toThrow(/rotation.overlap/)
    expect(bad({ audience: API, keys: [{ kty: "oct", k: "abc", kid: "a", alg: "ES256", d: "x" }] })).toThrow(
      /keys\[0\]/,
    )
  })

  test("without accessTokens, /auth/token and /auth/jwks answer 400 Bad request.", async () => {
    const off = Gatehouse({ secret: SECRET, trustHost: true, providers: [] })
    const app = express()
    app.use("/auth", off.handlers)
    for (const path of ["/auth/token", "/auth/jwks"]) {
      const res = await request(app).get(path)
      expect(res.status).toBe(400)
    }
    await expect(off.rotateAccessTokenKeys()).rejects.toBeInstanceOf(InvalidConfig)
  })
})

describe("tokens section 8: rate limits", () => {
  test("access-token (per session) and token-exchange (per IP) answer 429 RateLimited with Retry-After", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      session: { bearer: true },
      accessTokens: { audience: API },
      native: { redirectUris: ["myapp://cb"] },
      rateLimit: {
        enabled: true,
        rules: { "access-token": { limit: 2, window: 60 }, "token-exchange": { limit: 1, window: 60 } },
      },
      logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          authorize: (c) => (c.username === "alice" ? { id: "user-alice", name: "alice" } : null),
        }),
      ],
    }
    const app = express()
    app.set("trust proxy", false)
    app.use("/auth", Gatehouse(config).handlers)
    const login = await request(app)
      .post("/auth/callback/credentials")
      .set("X-Auth-Return-Token", "1")
      .send({ username: "alice", password: "x" })
    const bearer = login.body.token as string
    const get = () => request(app).get("/auth/token").set("Authorization", `Bearer ${bearer}`)
    expect((await get()).status).toBe(200)
    expect((await get()).status).toBe(200)
    const limited = await get()
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ error: "RateLimited" })
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0)
    const body = { code: "x", code_verifier: "a".repeat(43) }
    expect((await request(app).post("/auth/token").send(body)).status).toBe(400)
    const exchange = await request(app).post("/auth/token").send(body)
    expect(exchange.status).toBe(429)
    expect(exchange.body).toEqual({ error: "RateLimited" })
  })
})
