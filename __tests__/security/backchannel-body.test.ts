// next-wave C11 on Express: the back-channel logout receiver reads at most 16 KB. It did so through Auth(), but the
// Express layer read the whole declared body first (up to its 100 KB limit): with `Content-Length: 20480` and 17 KB
// sent, the answer came only after the rest arrived. Now a declared length over 16 KB is refused at once, and a
// chunked body is not read past 16 KB. Each case leaves the rest of the body unsent and waits for the answer: on the
// old code it never comes, and jest's timeout fails the test.
import type { Express } from "express"
import { Gatehouse } from "../../lib"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import { versions } from "../express/apps"
import { bodyOf, listen, openConnection, rawRequest, statusOf, type RawServer } from "../fixtures/raw-http"

const SECRET = "backchannel-body-secret-0123456789abcdef0123"
const PATH = "/auth/backchannel-logout/corp"

function config(): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [
      {
        id: "corp",
        name: "Corp",
        type: "oidc",
        issuer: "https://op.example",
        clientId: "client",
        clientSecret: "client-secret",
        logout: { backchannel: true },
      },
      Credentials({ credentials: { username: {} }, authorize: () => null }),
    ],
  }
}

function head(extra: string): string {
  return `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n${extra}\r\n`
}

const KB = 1024

describe.each(versions)("C11 on %s", (_name, express) => {
  let server: RawServer

  beforeEach(async () => {
    const app: Express = express()
    app.use("/auth", Gatehouse(config()).handlers)
    server = await listen(app)
  })
  afterEach(async () => {
    await server.close()
  })

  function expectTooLarge(text: string): void {
    expect(statusOf(text)).toBe(400)
    expect(text).toMatch(/\r\ncache-control: no-store\r\n/i)
    expect(JSON.parse(bodyOf(text))).toEqual({ error: "invalid_request", error_description: "the body is too large" })
  }

  it("Content-Length: 20480 with 17 KB sent is answered 400 before the rest of the body arrives", async () => {
    const connection = await openConnection(server)
    await connection.write(head(`Content-Length: ${20 * KB}\r\n`))
    await connection.write(`logout_token=${"a".repeat(17 * KB - 13)}`)
    expectTooLarge(await connection.answer())
    connection.close()
  })

  it("a declared length over 16 KB is refused without any body byte", async () => {
    const connection = await openConnection(server)
    await connection.write(head(`Content-Length: ${16 * KB + 1}\r\n`))
    expectTooLarge(await connection.answer())
    connection.close()
  })

  it("a chunked body is not read past 16 KB: 17 KB of chunks and no last chunk get the answer", async () => {
    const connection = await openConnection(server)
    await connection.write(head("Transfer-Encoding: chunked\r\n"))
    const chunk = "a".repeat(KB)
    await connection.write(`d\r\nlogout_token=\r\n`)
    for (let i = 0; i < 17; i += 1) await connection.write(`${KB.toString(16)}\r\n${chunk}\r\n`)
    expectTooLarge(await connection.answer())
    connection.close()
  })

  it("a body under the cap is read and judged on its token", async () => {
    const small = await rawRequest(server, PATH, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `logout_token=${"a".repeat(15 * KB)}`,
    })
    expect(small.status).toBe(400)
    expect(JSON.parse(small.body)).toEqual({ error: "invalid_request", error_description: "invalid logout_token" })
  })

  it("other routes keep the general 100 KB limit: a 20 KB credentials body is read", async () => {
    const answer = await rawRequest(server, "/auth/callback/credentials", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `username=${"a".repeat(20 * KB)}`,
    })
    // Read in full, then refused for its missing CSRF token (a 413 would mean the cap applied here).
    expect(answer.status).toBe(302)
    expect(answer.headers.location).toMatch(/error=MissingCSRF/)
  })
})
