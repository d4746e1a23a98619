/**
 * The hot paths of tokens.md (issue 32), measured on the built package against the libraries users assemble today,
 * same token, same JWKS, same run:
 *
 * - (r1) `requireAccessToken` on an RS256 token, (r2) on an ES256 token; against (o1, o2) Auth0's
 *   `express-oauth2-jwt-bearer` and (x1, x2) `express-jwt` + `jwks-rsa`. Target: at least 1.5x the faster of the two.
 * - (s1) a bearer session read through `requireAuth`, against (s0) the same session as a cookie. Target: >= 0.9x.
 *
 * Every issuer is a local JWKS server (a JWKS fetched once and cached by each library). Run by `npm run bench` after
 * the main benchmark; `BENCH_DURATION` (seconds per run, default 3) and `BENCH_ROUNDS` (default 3) apply.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import express, { type Express, type RequestHandler } from "express"
import { SignJWT, exportJWK, generateKeyPair } from "jose"
import { auth as auth0 } from "express-oauth2-jwt-bearer"
import { expressjwt } from "express-jwt"
import jwksRsa from "jwks-rsa"
import type * as Resource from "../lib/resource"
import { loadEntry, loadPackage } from "./package"
import { runLoad } from "./loadgen"

const AUDIENCE = "https://api.bench.test/"
const duration = Number(process.env.BENCH_DURATION ?? 3)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

async function listen(app: Express | ReturnType<typeof createServer>): Promise<{ server: Server; url: string }> {
  const server = "listen" in app && !(app instanceof Function) ? (app as Server) : createServer(app as Express)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

async function issuer() {
  const rsa = await generateKeyPair("RS256")
  const ec = await generateKeyPair("ES256")
  const keys = [
    { ...(await exportJWK(rsa.publicKey)), kid: "rsa", alg: "RS256", use: "sig" },
    { ...(await exportJWK(ec.publicKey)), kid: "ec", alg: "ES256", use: "sig" },
  ]
  const server = createServer((req, res) => {
    res.setHeader("content-type", "application/json")
    if (req.url === "/.well-known/openid-configuration") {
      res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks` }))
    } else res.end(JSON.stringify({ keys }))
  })
  const { url } = await listen(server).then((r) => ({ ...r, url: r.url }))
  const sign = (alg: "RS256" | "ES256") =>
    new SignJWT({ client_id: "bench", scope: "read" })
      .setProtectedHeader({ alg, kid: alg === "RS256" ? "rsa" : "ec", typ: "at+jwt" })
      .setIssuer(url)
      .setSubject("bench-user")
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setJti("bench-jti")
      .setExpirationTime("2h")
      .sign(alg === "RS256" ? rsa.privateKey : ec.privateKey)
  return { url, server, rs256: await sign("RS256"), es256: await sign("ES256") }
}

function api(guard: RequestHandler): Express {
  const app = express()
  app.get("/", guard, (_req, res) => void res.json({ ok: true }))
  return app
}

async function measure(url: string, headers: Record<string, string>): Promise<number> {
  const result = await runLoad("child", { url, headers, connections: 10, pipelining: 1, duration })
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return result.rps
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function main(): Promise<void> {
  const { requireAccessToken } = (await loadEntry("gatehouse-auth/resource")) as typeof Resource
  const pkg = await loadPackage()
  const idp = await issuer()
  const jwksUri = `${idp.url}/jwks`
  const servers: Record<string, { server: Server; url: string }> = {
    r: await listen(api(requireAccessToken({ issuer: idp.url, audience: AUDIENCE, jwksUri }))),
    o: await listen(api(auth0({ issuerBaseURL: idp.url, audience: AUDIENCE, jwksUri }) as RequestHandler)),
    x: await listen(
      api(
        expressjwt({
          secret: jwksRsa.expressJwtSecret({ jwksUri, cache: true }) as never,
          algorithms: ["RS256", "ES256"],
          issuer: idp.url,
          audience: AUDIENCE,
        }) as unknown as RequestHandler,
      ),
    ),
  }
  // The bearer session read against the cookie read: one Gatehouse app, one session token.
  const config = {
    secret: "gatehouse-bench-secret-0123456789abcdefghijklmnop",
    trustHost: true,
    session: { bearer: true },
    providers: [],
  }
  const sessionApp = express()
  sessionApp.get("/", pkg.requireAuth(config as never), (req, res) => void res.json(req.auth))
  servers.s = await listen(sessionApp)
  const { encode } = pkg.jwt
  const token = await encode({
    token: {
      sub: "bench-user",
      name: "Bench",
      email: "bench@example.com",
      __gh: { se: Date.now(), at: Math.floor(Date.now() / 1000) },
    },
    secret: config.secret,
    salt: "authjs.session-token",
  })

  const cases = {
    r1: () => measure(servers.r!.url, { authorization: `Bearer ${idp.rs256}` }),
    o1: () => measure(servers.o!.url, { authorization: `Bearer ${idp.rs256}` }),
    x1: () => measure(servers.x!.url, { authorization: `Bearer ${idp.rs256}` }),
    r2: () => measure(servers.r!.url, { authorization: `Bearer ${idp.es256}` }),
    o2: () => measure(servers.o!.url, { authorization: `Bearer ${idp.es256}` }),
    x2: () => measure(servers.x!.url, { authorization: `Bearer ${idp.es256}` }),
    s0: () => measure(servers.s!.url, { cookie: `authjs.session-token=${token}` }),
    s1: () => measure(servers.s!.url, { authorization: `Bearer ${token}` }),
  }
  const rps: Record<string, number[]> = {}
  for (let round = 0; round < rounds; round++) {
    for (const [id, run] of Object.entries(cases)) (rps[id] ??= []).push(await run())
  }
  const m = (id: string) => median(rps[id]!)
  const lines: Array<[string, number, number]> = [
    ["RS256 requireAccessToken vs the faster of auth0 / express-jwt", m("r1") / Math.max(m("o1"), m("x1")), 1.5],
    ["ES256 requireAccessToken vs the faster of auth0 / express-jwt", m("r2") / Math.max(m("o2"), m("x2")), 1.5],
    ["bearer session read vs cookie read", m("s1") / m("s0"), 0.9],
  ]
  for (const [id, values] of Object.entries(rps))
    console.log(`${id.padEnd(4)} ${values.map((v) => v.toFixed(0)).join(" ")} req/s`)
  for (const [name, value, target] of lines) {
    console.log(`${name.padEnd(66)} ${value.toFixed(3)}  target >= ${target}  ${value >= target ? "PASS" : "MISS"}`)
  }
  for (const { server } of [...Object.values(servers), idp]) server.close()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
