// encode: header shape and kid parity with the reference vectors, claims, round trip, rotation and argument checks.
import { base64url, decodeProtectedHeader } from "jose"
import { decode, encode } from "../../lib/jwt"
import { decodeOrThrow } from "../../lib/jwt/decode"
import { vector, vectors } from "./vectors"

const secret = "encode-test-secret-0123456789abcdef"
const salt = "authjs.session-token"
const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("encode", () => {
  it("writes a five-part compact JWE with dir + A256CBC-HS512 and a SHA-512 thumbprint kid", async () => {
    const jwe = await encode({ token: { sub: "u" }, secret, salt })
    const parts = jwe.split(".")
    expect(parts).toHaveLength(5)
    expect(parts[1]).toBe("") // `dir`: no encrypted key
    const header = decodeProtectedHeader(jwe)
    expect(Object.keys(header).sort()).toEqual(["alg", "enc", "kid"])
    expect(header).toMatchObject({ alg: "dir", enc: "A256CBC-HS512" })
    expect(base64url.decode(header.kid!)).toHaveLength(64)
  })

  for (const v of vectors.filter((x) => !x.mustFail)) {
    it(`derives the reference kid for ${v.name}`, async () => {
      const jwe = await encode({ token: {}, secret: v.encodeSecret, salt: v.salt })
      expect(decodeProtectedHeader(jwe)).toEqual(v.protectedHeader)
    })
  }

  it("round-trips the payload and sets iat, exp (30 days by default) and a fresh jti", async () => {
    const before = Math.floor(Date.now() / 1000)
    const token = { sub: "user-1", name: "Zoë", nested: { a: [1, 2] }, iat: 1, exp: 2, jti: "old" }
    const jwe = await encode({ token, secret, salt })
    const after = Math.floor(Date.now() / 1000)
    const decoded = await decodeOrThrow({ token: jwe, secret, salt })
    expect(decoded).toMatchObject({ sub: "user-1", name: "Zoë", nested: { a: [1, 2] } })
    expect(decoded!.iat).toBeGreaterThanOrEqual(before)
    expect(decoded!.iat).toBeLessThanOrEqual(after)
    expect(decoded!.exp).toBe(decoded!.iat! + 2592000)
    expect(decoded!.jti).toMatch(uuidV4)
    expect(decoded!.jti).not.toBe("old")
    expect(token).toEqual({ sub: "user-1", name: "Zoë", nested: { a: [1, 2] }, iat: 1, exp: 2, jti: "old" })
  })

  it("honours maxAge and uses a new jti each time", async () => {
    const a = await decodeOrThrow({ token: await encode({ token: {}, secret, salt, maxAge: 60 }), secret, salt })
    const b = await decodeOrThrow({ token: await encode({ token: {}, secret, salt, maxAge: 60 }), secret, salt })
    expect(a!.exp! - a!.iat!).toBe(60)
    expect(a!.jti).not.toBe(b!.jti)
  })

  it("encodes an empty payload when token is omitted", async () => {
    const decoded = await decode({ token: await encode({ secret, salt }), secret, salt })
    expect(Object.keys(decoded!).sort()).toEqual(["exp", "iat", "jti"])
  })

  it("encrypts with the first secret of an array", async () => {
    const rotation = vector("rotation-old-secret")
    const [newest] = rotation.decodeSecret as string[]
    const jwe = await encode({ token: { sub: "r" }, secret: rotation.decodeSecret, salt })
    const single = await encode({ token: { sub: "r" }, secret: newest, salt })
    expect(decodeProtectedHeader(jwe).kid).toBe(decodeProtectedHeader(single).kid)
    expect(decodeProtectedHeader(jwe).kid).not.toBe(rotation.protectedHeader!.kid)
    await expect(decode({ token: jwe, secret: newest, salt })).resolves.toMatchObject({ sub: "r" })
  })

  it("gives a different kid per salt", async () => {
    const plain = await encode({ token: {}, secret, salt: "authjs.session-token" })
    const secure = await encode({ token: {}, secret, salt: "__Secure-authjs.session-token" })
    expect(decodeProtectedHeader(plain).kid).not.toBe(decodeProtectedHeader(secure).kid)
  })

  it.each([
    ["empty secret", { secret: "", salt }],
    ["empty secret array", { secret: [], salt }],
    ["empty salt", { secret, salt: "" }],
    ["infinite maxAge", { secret, salt, maxAge: Infinity }],
    ["array token", { secret, salt, token: [] as unknown as Record<string, unknown> }],
  ])("rejects invalid arguments (%s) with a TypeError", async (_label, params) => {
    await expect(encode(params)).rejects.toMatchObject({ name: "TypeError", code: "ERR_INVALID_ARG_VALUE" })
  })
})
