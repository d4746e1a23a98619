// The tamper list of the session JWE sent as the session cookie to GET /auth/session of a real Express app over HTTP:
// every one answers 200 `null` and clears the cookie (never a 5xx), and every tamper of an authenticated part is
// logged with the same line, so a log reader cannot tell a bad tag from a bad IV, tag length or padding.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import { ExpressAuth } from "../../lib"
import { encode } from "../../lib/jwt"
import { deriveKey } from "../../lib/jwt/keys"
import { SECRET, authConfig } from "../express/apps"
import { tamperedTokens, type Tampered } from "../jwt/tampered"

const COOKIE = "authjs.session-token"

describe("tampered session cookies through GET /auth/session", () => {
  const logged: string[] = []
  let server: Server
  let base: string
  let valid: string
  let cases: Tampered[]

  beforeAll(async () => {
    const app = express()
    const logger = {
      // The line and everything the built-in logger would print of the cause: its stack (so its origin) and its code.
      error: (error: Error) => {
        const err = (error.cause as { err?: Error & { cause?: { code?: string } } } | undefined)?.err
        logged.push(`${error.name}: ${error.message} / ${err?.stack} / ${err?.cause?.code}`)
      },
      warn: () => {},
      debug: (message: string) => logged.push(`debug: ${message}`),
    }
    app.use("/auth", ExpressAuth(authConfig({ logger })))
    // Node's default 16 KB header limit would answer the 4 MB cookie with 431 before Gatehouse sees it.
    server = createServer({ maxHeaderSize: 16 * 1024 * 1024 }, app)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    valid = await encode({ token: { sub: "u1", name: "Ada", email: "ada@x.test" }, secret: SECRET, salt: COOKIE })
    cases = await tamperedTokens(valid, (await deriveKey(SECRET, COOKIE, "A256CBC-HS512")).key)
  })

  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  const read = async (token: string) => {
    const response = await fetch(`${base}/auth/session`, { headers: { cookie: `${COOKIE}=${token}` } })
    return { status: response.status, body: await response.text(), setCookie: response.headers.getSetCookie() }
  }

  it("answers the session for the untouched cookie (control)", async () => {
    const answer = await read(valid)
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toMatchObject({ user: { name: "Ada", email: "ada@x.test" } })
  })

  // Hundreds of requests through a real server each: generous timeouts for a loaded machine (timing is not what these
  // tests check).
  it("answers 200 null and clears the cookie for every tampered one", async () => {
    for (const { name, token } of cases) {
      const { status, body, setCookie } = await read(token)
      const cleared = setCookie.some(
        (line) => line.startsWith(`${COOKIE}=;`) && /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line),
      )
      expect({ name, status, body, cleared }).toEqual({ name, status: 200, body: "null", cleared: true })
    }
  }, 180_000)

  it("logs every refusal of an authenticated part with one and the same line", async () => {
    const lines = new Set<string>()
    for (const { token } of cases.filter((c) => c.refusal === "decryption")) {
      logged.length = 0
      await read(token)
      expect(logged).toHaveLength(1)
      lines.add(logged[0]!)
    }
    expect(lines.size).toBe(1)
    expect([...lines][0]).toMatch(
      /^JWTSessionError: The JWT session could not be read \/ Error: token decryption failed\n[^]* \/ ERR_JWE_DECRYPTION_FAILED$/,
    )
  }, 180_000)
})
