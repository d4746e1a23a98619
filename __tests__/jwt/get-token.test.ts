// getToken: cookie, chunked cookie, secure name, Bearer header, raw, missing secret, bad input and custom decode.
import { encode, getToken } from "../../lib/jwt"
import type { JWTDecodeParams } from "../../lib/jwt"
import type { JWT } from "../../lib/core/kernel/types"
import { MissingSecret } from "../../lib/errors"
import { vector } from "./vectors"

const secret = "get-token-secret-0123456789abcdef"
const plainName = "authjs.session-token"
const secureName = "__Secure-authjs.session-token"

function request(headers: Record<string, string>): Request {
  return new Request("https://app.example.test/api", { headers })
}

function chunk(value: string, size: number): string[] {
  const parts: string[] = []
  for (let i = 0; i < value.length; i += size) parts.push(value.slice(i, i + size))
  return parts
}

describe("getToken", () => {
  let jwe: string
  let secureJwe: string

  beforeAll(async () => {
    jwe = await encode({ token: { sub: "user-1", name: "Alice" }, secret, salt: plainName })
    secureJwe = await encode({ token: { sub: "user-2" }, secret, salt: secureName })
  })

  it("reads the session cookie of a Request", async () => {
    const token = await getToken({ req: request({ cookie: `other=1; ${plainName}=${jwe}` }), secret })
    expect(token).toMatchObject({ sub: "user-1", name: "Alice" })
  })

  it("reads a plain headers record, with string[] values and any header-name case", async () => {
    await expect(getToken({ req: { headers: { cookie: `${plainName}=${jwe}` } }, secret })).resolves.toMatchObject({
      sub: "user-1",
    })
    await expect(
      getToken({ req: { headers: { Cookie: ["a=b", `${plainName}=${jwe}`] } }, secret }),
    ).resolves.toMatchObject({ sub: "user-1" })
    await expect(
      getToken({ req: { headers: { Authorization: [`Bearer ${jwe}`, "Bearer nope"] } }, secret }),
    ).resolves.toMatchObject({ sub: "user-1" })
  })

  it("decodes a reference-produced session cookie", async () => {
    const v = vector("plain-cookie")
    await expect(
      getToken({ req: request({ cookie: `${plainName}=${v.jwe}` }), secret: v.decodeSecret }),
    ).resolves.toEqual(v.payload)
    const s = vector("secure-cookie-salt")
    await expect(
      getToken({ req: request({ cookie: `${secureName}=${s.jwe}` }), secret: s.decodeSecret, secureCookie: true }),
    ).resolves.toEqual(s.payload)
  })

  it("reassembles a chunked cookie in index order", async () => {
    const parts = chunk(jwe, 25)
    expect(parts.length).toBeGreaterThan(10) // so ".10" sorts after ".9" only numerically
    const shuffled = parts.map((p, i) => `${plainName}.${i}=${p}`).reverse()
    const token = await getToken({ req: request({ cookie: shuffled.join("; ") }), secret })
    expect(token).toMatchObject({ sub: "user-1" })
  })

  it("reads a large token written in 3936-character chunks", async () => {
    const big = await encode({ token: { sub: "big", blob: "z".repeat(9000) }, secret, salt: plainName })
    const parts = chunk(big, 3936)
    expect(parts.length).toBeGreaterThanOrEqual(3)
    const cookie = parts.map((p, i) => `${plainName}.${i}=${p}`).join("; ")
    await expect(getToken({ req: request({ cookie }), secret })).resolves.toMatchObject({ sub: "big" })
  })

  it("ignores cookies that only share the prefix", async () => {
    const cookie = [`${plainName}=${jwe}`, `${plainName}.x=junk`, `${plainName}.01=junk`, `${plainName}-x.0=junk`]
    await expect(getToken({ req: request({ cookie: cookie.join("; ") }), secret })).resolves.toMatchObject({
      sub: "user-1",
    })
  })

  it("uses the __Secure- name and salt with secureCookie", async () => {
    const both = `${plainName}=${jwe}; ${secureName}=${secureJwe}`
    await expect(getToken({ req: request({ cookie: both }), secret, secureCookie: true })).resolves.toMatchObject({
      sub: "user-2",
    })
    await expect(getToken({ req: request({ cookie: both }), secret })).resolves.toMatchObject({ sub: "user-1" })
    // A token sealed under one cookie name does not decode under the other's salt.
    await expect(
      getToken({ req: request({ cookie: `${secureName}=${jwe}` }), secret, secureCookie: true }),
    ).resolves.toBeNull()
  })

  it("honours cookieName and salt", async () => {
    const custom = await encode({ token: { sub: "c" }, secret, salt: "my-salt" })
    const req = request({ cookie: `my-session=${custom}` })
    await expect(getToken({ req, secret, cookieName: "my-session", salt: "my-salt" })).resolves.toMatchObject({
      sub: "c",
    })
    // salt defaults to the cookie name
    await expect(getToken({ req, secret, cookieName: "my-session" })).resolves.toBeNull()
  })

  it("falls back to a percent-encoded Bearer token", async () => {
    // every compact JWE has four dots, so this always yields percent-escapes
    const encoded = jwe.replace(/\./g, "%2E")
    expect(encoded).toContain("%2E")
    await expect(getToken({ req: request({ authorization: `Bearer ${encoded}` }), secret })).resolves.toMatchObject({
      sub: "user-1",
    })
    await expect(getToken({ req: request({ authorization: `bearer ${jwe}` }), secret })).resolves.toMatchObject({
      sub: "user-1",
    })
  })

  it("prefers the cookie over the Bearer header", async () => {
    const req = request({ cookie: `${plainName}=${jwe}`, authorization: `Bearer ${secureJwe}` })
    await expect(getToken({ req, secret })).resolves.toMatchObject({ sub: "user-1" })
  })

  it.each(["%", "%A", "%ZZ", "abc%E0%A4%A"])("returns null for malformed percent-encoding (Bearer %s)", async (bad) => {
    const headers = { authorization: `Bearer ${bad}` }
    await expect(getToken({ req: request(headers), secret })).resolves.toBeNull()
    await expect(getToken({ req: { headers }, secret, raw: true })).resolves.toBeNull()
  })

  it.each(["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer a b", "Token abc"])(
    "ignores an Authorization header that is not a Bearer token (%s)",
    async (authorization) => {
      await expect(getToken({ req: { headers: { authorization } }, secret, raw: true })).resolves.toBeNull()
    },
  )

  it("types the result by raw", async () => {
    const req = request({ cookie: `${plainName}=${jwe}` })
    const asString: string | null = await getToken({ req, raw: true })
    const asPayload: JWT | null = await getToken({ req, secret })
    expect(typeof asString).toBe("string")
    expect(asPayload?.sub).toBe("user-1")
  })

  it("returns the raw token with raw: true, even without a secret", async () => {
    const parts = chunk(jwe, 500)
    const cookie = parts.map((p, i) => `${plainName}.${i}=${p}`).join("; ")
    await expect(getToken({ req: request({ cookie }), raw: true })).resolves.toBe(jwe)
    await expect(
      getToken({ req: request({ authorization: `Bearer ${encodeURIComponent(jwe)}` }), raw: true }),
    ).resolves.toBe(jwe)
  })

  it("returns null when there is no token", async () => {
    await expect(getToken({ req: request({}), secret })).resolves.toBeNull()
    await expect(getToken({ req: { headers: {} }, secret })).resolves.toBeNull()
    await expect(getToken({ req: request({ cookie: `${plainName}=` }), secret })).resolves.toBeNull()
    await expect(getToken({ req: { headers: { cookie: undefined } }, secret, raw: true })).resolves.toBeNull()
  })

  it("throws MissingSecret when a token is found and no secret is given", async () => {
    const req = request({ cookie: `${plainName}=${jwe}` })
    const err = await getToken({ req }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MissingSecret)
    expect(err).toMatchObject({ type: "MissingSecret", message: "Must pass `secret` if not set to JWT getToken()" })
    await expect(getToken({ req, secret: [] })).rejects.toBeInstanceOf(MissingSecret)
    await expect(getToken({ req, secret: "" })).rejects.toBeInstanceOf(MissingSecret)
  })

  it.each([
    ["garbage", `${plainName}=garbage`],
    ["five dots", `${plainName}=....`],
    ["percent junk", `${plainName}=%ZZ%`],
    ["plain and chunked together", `${plainName}=${"a".repeat(10)}; ${plainName}.0=b`],
    ["truncated", `${plainName}=${"x".repeat(20)}.`],
  ])("returns null for a garbage cookie (%s)", async (_label, cookie) => {
    await expect(getToken({ req: request({ cookie }), secret })).resolves.toBeNull()
  })

  it("returns null for a token sealed with another secret or expired", async () => {
    await expect(
      getToken({ req: request({ cookie: `${plainName}=${jwe}` }), secret: "other-secret-0123456789" }),
    ).resolves.toBeNull()
    const expired = vector("expired-must-fail")
    await expect(
      getToken({ req: request({ cookie: `${plainName}=${expired.jwe}` }), secret: expired.decodeSecret }),
    ).resolves.toBeNull()
  })

  it("logs why a token was rejected through the logger, without the token", async () => {
    const debug = jest.fn()
    const error = jest.fn()
    await getToken({
      req: request({ cookie: `${plainName}=${jwe}` }),
      secret: "wrong-secret-xx",
      logger: { debug, error },
    })
    expect(debug).toHaveBeenCalledWith("getToken: token rejected", { reason: "no matching decryption secret" })
    expect(JSON.stringify(debug.mock.calls)).not.toContain(jwe)
    const throwing = () => {
      throw new Error("logger down")
    }
    await expect(
      getToken({ req: request({ cookie: `${plainName}=x` }), secret, logger: { debug: throwing, error: throwing } }),
    ).resolves.toBeNull()
  })

  it("uses a custom decode and turns its throw into null", async () => {
    const calls: JWTDecodeParams[] = []
    const custom = (params: JWTDecodeParams) => {
      calls.push(params)
      return { sub: `custom:${params.token}` }
    }
    const req = request({ cookie: `${plainName}=opaque-value` })
    await expect(getToken({ req, secret, decode: custom })).resolves.toEqual({ sub: "custom:opaque-value" })
    expect(calls).toEqual([{ token: "opaque-value", secret, salt: plainName }])

    await expect(getToken({ req, secret, decode: async () => null })).resolves.toBeNull()
    await expect(
      getToken({
        req,
        secret,
        decode: () => {
          throw new Error("bad")
        },
      }),
    ).resolves.toBeNull()
  })

  it("never throws for odd request shapes", async () => {
    await expect(getToken({ req: { headers: undefined as unknown as Headers }, secret })).resolves.toBeNull()
    await expect(getToken({ req: { headers: { cookie: [] } }, secret })).resolves.toBeNull()
    await expect(
      getToken({
        req: { headers: { cookie: 42 as unknown as string, authorization: 1 as unknown as string } },
        secret,
      }),
    ).resolves.toBeNull()
  })
})
