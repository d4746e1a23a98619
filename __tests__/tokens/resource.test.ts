// tokens.md T4: gatehouse-auth/resource against a real authorization server (oidc-provider 9): RFC 9068 JWTs, RFC 7662
// introspection, RFC 6750 answers, DPoP-bound tokens (RFC 9449), RFC 9728 metadata, and a Fetch-flavoured verifier.
import express from "express"
import type { Request, Response } from "express"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import request from "supertest"
import { SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify, createRemoteJWKSet, type JWK } from "jose"
import {
  AccessTokenError,
  protectedResourceMetadata,
  requireAccessToken,
  verifyAccessToken,
  type ResourceServerOptions,
} from "../../lib/resource"
import { InvalidConfig } from "../../lib/errors"
import { API, OTHER_API, dpopKey, dpopProof, startResourceOp, type ResourceOp } from "../fixtures/oauth/resource-op"

let op: ResourceOp

beforeAll(async () => {
  op = await startResourceOp()
})
afterAll(async () => {
  await op.close()
})

function apiApp(extra: Partial<ResourceServerOptions> = {}, scopes = ["read"]) {
  const guard = requireAccessToken({
    issuer: op.issuer,
    audience: API,
    scopes,
    introspection: { clientId: op.clientId, clientSecret: op.clientSecret },
    ...extra,
  })
  const app = express()
  app.use(express.urlencoded({ extended: false }))
  const seen: unknown[] = []
  const handler = (req: Request, res: Response) => {
    seen.push(req.accessToken)
    res.json({
      sub: (res.locals.accessToken as { payload: { sub: string } }).payload.sub,
      same: req.accessToken === res.locals.accessToken,
    })
  }
  app.get("/api/data", guard, handler)
  app.post("/api/data", guard, handler)
  return { app, guard, seen }
}

/** Signs `claims` as the OP (its own key), with a header of our choosing. */
async function asOp(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const key = await importJWK(op.signingKey as JWK, "RS256")
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ sub: "c1", client_id: "c1", jti: "j1", scope: "read", ...claims })
    .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: "op-rs256", ...header })
    .setIssuer((claims.iss as string) ?? op.issuer)
    .setAudience((claims.aud as string) ?? API)
    .setIssuedAt((claims.iat as number) ?? now)
    .setExpirationTime((claims.exp as number) ?? now + 600)
    .sign(key)
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

describe("tokens T4: protecting an API with access tokens", () => {
  test("T4-1 an OP client-credentials JWT with scope read passes; the handler sees res.locals.accessToken and req.accessToken", async () => {
    const { app, seen } = apiApp()
    const token = await op.token({ scope: "read" })
    const res = await request(app).get("/api/data").set("Authorization", `Bearer ${token}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ sub: op.clientId, same: true })
    const info = seen[0] as { source: string; scopes: string[]; header: { typ: string } }
    expect(info.source).toBe("jwt")
    expect(info.scopes).toEqual(["read"])
    expect(info.header.typ).toBe("at+jwt")
  })

  test("T4-2 no Authorization: 401 Bearer without error; ?access_token= and a form field: 400 invalid_request", async () => {
    const { app } = apiApp()
    const none = await request(app).get("/api/data")
    expect(none.status).toBe(401)
    expect(none.headers["www-authenticate"]).toBe("Bearer")
    expect(none.body.error).toBe("unauthorized")
    expect(none.body.code).toBe("missing_token")
    expect(none.headers["cache-control"]).toBe("no-store")
    const token = await op.token()
    const query = await request(app).get(`/api/data?access_token=${token}`)
    expect(query.status).toBe(400)
    expect(query.body).toMatchObject({ error: "invalid_request", code: "token_in_url" })
    expect(query.headers["www-authenticate"]).toMatch(/^Bearer error="invalid_request"/)
    expect(JSON.stringify(query.body)).not.toContain(token)
    const form = await request(app).post("/api/data").type("form").send({ access_token: token })
    expect(form.status).toBe(400)
    expect(form.body.code).toBe("token_in_url")
    const basic = await request(app).get("/api/data").set("Authorization", "Basic YTpi")
    expect(basic.status).toBe(401)
    expect(basic.body.code).toBe("missing_token")
  })

  test("T4-3 the negative matrix: each a 401 invalid_token with its code", async () => {
    const { app } = apiApp()
    const now = Math.floor(Date.now() / 1000)
    const publicJwk = { ...(op.signingKey as JWK) }
    for (const member of ["d", "p", "q", "dp", "dq", "qi"]) delete publicJwk[member as keyof JWK]
    const hsKey = new TextEncoder().encode(JSON.stringify(publicJwk))
    const hs256 = await new SignJWT({ sub: "c1", client_id: "c1", jti: "j", scope: "read" })
      .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: "op-rs256" })
      .setIssuer(op.issuer)
      .setAudience(API)
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(hsKey)
    const good = await asOp({})
    const [, payload] = good.split(".")
    const none = `${b64({ alg: "none", typ: "at+jwt" })}.${payload}.`
    const cases: Array<[string, string]> = [
      [await op.token({ resource: OTHER_API }).then(() => asOp({ aud: OTHER_API })), "wrong_audience"],
      [await asOp({ iss: "https://evil.example" }), "wrong_issuer"],
      [await asOp({ iat: now - 7200, exp: now - 3600 }), "expired"],
      [none, "alg_not_allowed"],
      [hs256, "alg_not_allowed"],
      [await asOp({}, { typ: "JWT" }), "wrong_type"],
    ]
    for (const [token, code] of cases) {
      const res = await request(app).get("/api/data").set("Authorization", `Bearer ${token}`)
      expect([res.status, res.body.code]).toEqual([401, code])
      expect(res.headers["www-authenticate"]).toMatch(/^Bearer error="invalid_token"/)
      expect(res.body.error).toBe("invalid_token")
    }
  })

  test("T4-4 unknown kid: one refetch finds a key the issuer added; random kids cost no further fetch", async () => {
    const issuer = await startKeyServer()
    try {
      const guard = requireAccessToken({ issuer: issuer.url, audience: API, jwksUri: `${issuer.url}/jwks` })
      const app = express()
      app.get("/api/data", guard, (_req, res) => void res.json({ ok: true }))
      const first = await issuer.sign("k1")
      expect((await request(app).get("/api/data").set("Authorization", `Bearer ${first}`)).status).toBe(200)
      expect(guard.verifier.keys.jwksFetches).toBe(1)
      await issuer.addKey("k2")
      const second = await issuer.sign("k2")
      expect((await request(app).get("/api/data").set("Authorization", `Bearer ${second}`)).status).toBe(200)
      expect(guard.verifier.keys.jwksFetches).toBe(2)
      for (let i = 0; i < 3; i++) {
        const random = await issuer.sign("k1", `random-${i}`)
        const res = await request(app).get("/api/data").set("Authorization", `Bearer ${random}`)
        expect([res.status, res.body.code]).toEqual([401, "unknown_key"])
      }
      expect(guard.verifier.keys.jwksFetches).toBe(2)
    } finally {
      await issuer.close()
    }
  })

  test('T4-5 scope read to a route needing write: 403 insufficient_scope with scope="write"', async () => {
    const { app } = apiApp({}, ["write"])
    const token = await op.token({ scope: "read" })
    const res = await request(app).get("/api/data").set("Authorization", `Bearer ${token}`)
    expect(res.status).toBe(403)
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer error="insufficient_scope", .*scope="write"/)
    expect(res.body.code).toBe("insufficient_scope")
  })

  test("T4-6 an opaque token is introspected once, then cached; garbage is inactive", async () => {
    const { app, guard } = apiApp({ audience: [API, OTHER_API] })
    const opaque = await op.token({ resource: OTHER_API })
    const first = await request(app).get("/api/data").set("Authorization", `Bearer ${opaque}`)
    expect(first.status).toBe(200)
    expect(guard.verifier.introspector!.calls).toBe(1)
    const second = await request(app).get("/api/data").set("Authorization", `Bearer ${opaque}`)
    expect(second.status).toBe(200)
    expect(guard.verifier.introspector!.calls).toBe(1)
    const garbage = await request(app).get("/api/data").set("Authorization", "Bearer not-a-real-token-at-all")
    expect([garbage.status, garbage.body.code]).toEqual([401, "inactive"])
    expect(garbage.headers["www-authenticate"]).toMatch(/^Bearer error="invalid_token"/)
  })

  test("T4-7 and T4-8 a DPoP-bound token: each wrong presentation refused with its code; a good proof passes once", async () => {
    const key = await dpopKey()
    const token = await op.token({ dpopKey: key })
    const url = (path: string) => `http://127.0.0.1${path}`
    // supertest's host is 127.0.0.1:<port>; the verifier's baseUrl pins the htu origin.
    const { app: pinned } = apiApp({ baseUrl: "http://127.0.0.1" })

    const noProof = await request(pinned).get("/api/data").set("Authorization", `DPoP ${token}`)
    expect([noProof.status, noProof.body.code]).toEqual([401, "dpop_missing"])
    expect(noProof.headers["www-authenticate"]).toMatch(/^DPoP error="invalid_dpop_proof"/)

    const asBearer = await request(pinned).get("/api/data").set("Authorization", `Bearer ${token}`)
    expect([asBearer.status, asBearer.body.code]).toEqual([401, "dpop_bound_token_as_bearer"])
    expect(asBearer.headers["www-authenticate"]).toMatch(/^DPoP error="invalid_token"/)

    const other = await dpopKey()
    const wrongKey = await request(pinned)
      .get("/api/data")
      .set("Authorization", `DPoP ${token}`)
      .set("DPoP", await dpopProof(other, "GET", url("/api/data"), { accessToken: token }))
    expect([wrongKey.status, wrongKey.body.code]).toEqual([401, "dpop_key_mismatch"])

    const forPost = await request(pinned)
      .get("/api/data")
      .set("Authorization", `DPoP ${token}`)
      .set("DPoP", await dpopProof(key, "POST", url("/api/data"), { accessToken: token }))
    expect([forPost.status, forPost.body.code]).toEqual([401, "dpop_htm_mismatch"])

    const proof = await dpopProof(key, "GET", url("/api/data"), { accessToken: token })
    const good = await request(pinned).get("/api/data").set("Authorization", `DPoP ${token}`).set("DPoP", proof)
    expect(good.status).toBe(200)

    // T4-8: the same proof again.
    const replay = await request(pinned).get("/api/data").set("Authorization", `DPoP ${token}`).set("DPoP", proof)
    expect([replay.status, replay.body.code]).toEqual([401, "dpop_replay"])
    expect(replay.headers["www-authenticate"]).toMatch(/^DPoP error="invalid_dpop_proof"/)

    // An unbound token under the DPoP scheme.
    const plain = await op.token()
    const unbound = await request(pinned).get("/api/data").set("Authorization", `DPoP ${plain}`)
    expect([unbound.status, unbound.body.code]).toEqual([401, "dpop_not_bound"])
  })

  test("T4-9 protectedResourceMetadata: the RFC 9728 document at its path, and 401s pointing to it", async () => {
    const meta = protectedResourceMetadata({ resource: "http://127.0.0.1:4000/mcp", authorizationServers: [op.issuer] })
    expect(meta.path).toBe("/.well-known/oauth-protected-resource/mcp")
    expect(meta.url).toBe("http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp")
    const { app } = apiApp({ resourceMetadata: meta.url })
    app.get(meta.path, meta)
    const doc = await request(app).get("/.well-known/oauth-protected-resource/mcp")
    expect(doc.status).toBe(200)
    expect(doc.body).toMatchObject({
      resource: "http://127.0.0.1:4000/mcp",
      authorization_servers: [op.issuer],
      bearer_methods_supported: ["header"],
    })
    expect(doc.headers["cache-control"]).toBe("public, max-age=3600")
    const denied = await request(app).get("/api/data")
    expect(denied.headers["www-authenticate"]).toBe(`Bearer resource_metadata="${meta.url}"`)
    expect(() =>
      protectedResourceMetadata({ resource: "http://api.example/mcp", authorizationServers: [op.issuer] }),
    ).toThrow(InvalidConfig)
  })

  test("T4-10 verifyAccessToken in a node:http server: resolves for a good token, rejects AccessTokenError otherwise", async () => {
    const options: ResourceServerOptions = { issuer: op.issuer, audience: API, scopes: ["read"] }
    const server = createServer((req, res) => {
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
      })
      verifyAccessToken(request, options).then(
        (info) =>
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ sub: info.payload.sub })),
        async (error: unknown) => {
          if (!(error instanceof AccessTokenError)) return void res.writeHead(500).end()
          const answer = error.toResponse()
          res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(await answer.text())
        },
      )
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const token = await op.token()
      const ok = await fetch(`${base}/x`, { headers: { authorization: `Bearer ${token}` } })
      expect(ok.status).toBe(200)
      expect(await ok.json()).toEqual({ sub: op.clientId })
      const bad = await fetch(`${base}/x`, { headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` } })
      expect(bad.status).toBe(401)
      expect(bad.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/)
      expect(await bad.json()).toMatchObject({ error: "invalid_token", code: "bad_signature" })
      await expect(verifyAccessToken(new Request("http://x/"), options)).rejects.toMatchObject({
        status: 401,
        code: "missing_token",
      })
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  test("T4-11 the issuer down: 503 temporarily_unavailable, never 200 or 401", async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const guard = requireAccessToken({ issuer: op.issuer, audience: API, jwksUri: `http://127.0.0.1:${port}/jwks` })
    const app = express()
    app.get("/api/data", guard, (_req, res) => void res.json({ ok: true }))
    const token = await op.token()
    const res = await request(app).get("/api/data").set("Authorization", `Bearer ${token}`)
    expect(res.status).toBe(503)
    expect(res.body).toMatchObject({ error: "temporarily_unavailable", code: "issuer_unavailable" })
    expect(res.headers["retry-after"]).toBe("5")
    expect(res.headers["www-authenticate"]).toBeUndefined()
  })

  test("bad options throw InvalidConfig when the middleware is built: HS256, none, http off loopback", () => {
    expect(() => requireAccessToken({ issuer: op.issuer, audience: API, algorithms: ["HS256"] })).toThrow(InvalidConfig)
    expect(() => requireAccessToken({ issuer: op.issuer, audience: API, algorithms: ["none"] })).toThrow(InvalidConfig)
    expect(() => requireAccessToken({ issuer: "http://op.example", audience: API })).toThrow(InvalidConfig)
    expect(() => requireAccessToken({ issuer: op.issuer, audience: [] })).toThrow(InvalidConfig)
  })

  test("differential: what the verifier accepts, jose's jwtVerify accepts against the same JWKS", async () => {
    const token = await op.token()
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${op.issuer}/jwks`)), {
      issuer: op.issuer,
      audience: API,
      typ: "at+jwt",
    })
    const info = await verifyAccessToken(new Request("http://x/", { headers: { authorization: `Bearer ${token}` } }), {
      issuer: op.issuer,
      audience: API,
    })
    expect(info.payload).toEqual(payload)
  })
})

/** A minimal issuer: a JWKS that can gain keys, and a signer. */
async function startKeyServer() {
  const keys = new Map<string, { privateKey: CryptoKey; jwk: JWK }>()
  const addKey = async (kid: string) => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true })
    keys.set(kid, { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } })
  }
  await addKey("k1")
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ keys: [...keys.values()].map((k) => k.jwk) }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    addKey,
    sign: (kid: string, headerKid = kid) =>
      new SignJWT({ sub: "s", client_id: "c", jti: `j-${Math.random()}`, scope: "read" })
        .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: headerKid })
        .setIssuer(url)
        .setAudience(API)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(keys.get(kid)!.privateKey),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
