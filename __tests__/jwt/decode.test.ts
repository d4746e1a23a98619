// decode: reference vectors, rotation, wrong secret/salt, expiry with clock tolerance, and decodeOrThrow reasons.
import { CompactEncrypt, EncryptJWT, base64url, decodeProtectedHeader } from "jose"
import { decode, encode } from "../../lib/jwt"
import { decodeOrThrow } from "../../lib/jwt/decode"
import { deriveKey } from "../../lib/jwt/keys"
import { vector, vectors } from "./vectors"

const secret = "decode-test-secret-0123456789abcdef"
const salt = "authjs.session-token"

describe("decode", () => {
  describe("reference vectors", () => {
    it("has positive and negative vectors", () => {
      expect(vectors.filter((v) => !v.mustFail).length).toBeGreaterThanOrEqual(4)
      expect(vectors.filter((v) => v.mustFail).length).toBeGreaterThanOrEqual(3)
    })

    for (const v of vectors) {
      if (v.mustFail) {
        it(`rejects ${v.name}`, async () => {
          await expect(decode({ token: v.jwe, secret: v.decodeSecret, salt: v.salt })).resolves.toBeNull()
          await expect(decodeOrThrow({ token: v.jwe, secret: v.decodeSecret, salt: v.salt })).rejects.toThrow(Error)
        })
      } else {
        it(`decodes ${v.name} to its payload`, async () => {
          expect(decodeProtectedHeader(v.jwe)).toEqual(v.protectedHeader)
          await expect(decode({ token: v.jwe, secret: v.decodeSecret, salt: v.salt })).resolves.toEqual(v.payload)
        })
      }
    }

    it("fails the expired vector for expiry and the wrong-secret vector for the kid", async () => {
      const expired = vector("expired-must-fail")
      await expect(
        decodeOrThrow({ token: expired.jwe, secret: expired.decodeSecret, salt: expired.salt }),
      ).rejects.toThrow("token expired")
      const wrong = vector("wrong-secret-must-fail")
      await expect(decodeOrThrow({ token: wrong.jwe, secret: wrong.decodeSecret, salt: wrong.salt })).rejects.toThrow(
        "no matching decryption secret",
      )
      const wrongSalt = vector("wrong-salt-must-fail")
      await expect(
        decodeOrThrow({ token: wrongSalt.jwe, secret: wrongSalt.decodeSecret, salt: wrongSalt.salt }),
      ).rejects.toThrow("no matching decryption secret")
    })
  })

  it("returns null for an empty or missing token", async () => {
    await expect(decode({ token: "", secret, salt })).resolves.toBeNull()
    await expect(decode({ token: undefined, secret, salt })).resolves.toBeNull()
    await expect(decodeOrThrow({ token: "", secret, salt })).resolves.toBeNull()
  })

  it.each([
    ["garbage", "not-a-jwe"],
    ["five empty parts", "...."],
    ["bad base64", "!!!.!!!.!!!.!!!.!!!"],
    ["json header that is not an object", `${base64url.encode("[]")}..a.b.c`],
  ])("returns null for a malformed token (%s)", async (_label, token) => {
    await expect(decode({ token, secret, salt })).resolves.toBeNull()
    await expect(decodeOrThrow({ token, secret, salt })).rejects.toThrow("invalid token")
  })

  it("returns null for a tampered ciphertext", async () => {
    const jwe = await encode({ token: { sub: "u" }, secret, salt })
    const parts = jwe.split(".")
    const ciphertext = base64url.decode(parts[3])
    ciphertext[0] ^= 1
    parts[3] = base64url.encode(ciphertext)
    const tampered = parts.join(".")
    await expect(decode({ token: tampered, secret, salt })).resolves.toBeNull()
    await expect(decodeOrThrow({ token: tampered, secret, salt })).rejects.toThrow("token decryption failed")
  })

  it("returns null for the wrong secret or the wrong salt", async () => {
    const jwe = await encode({ token: { sub: "u" }, secret, salt })
    await expect(decode({ token: jwe, secret: "another-secret-0123456789", salt })).resolves.toBeNull()
    await expect(decode({ token: jwe, secret, salt: "__Secure-authjs.session-token" })).resolves.toBeNull()
    await expect(decode({ token: jwe, secret, salt })).resolves.toMatchObject({ sub: "u" })
  })

  it("puts the unknown kid, bounded, in the cause", async () => {
    const jwe = await encode({ token: {}, secret, salt })
    const err = await decodeOrThrow({ token: jwe, secret: "nope-nope-nope", salt }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect((err as Error).cause).toEqual({ kid: decodeProtectedHeader(jwe).kid })
  })

  it("never throws for invalid arguments", async () => {
    await expect(decode({ token: "x", secret: [], salt })).resolves.toBeNull()
    await expect(decode({ token: "x", secret: "", salt })).resolves.toBeNull()
    await expect(decode({ token: "x", secret, salt: "" })).resolves.toBeNull()
    await expect(decodeOrThrow({ token: "x", secret: [], salt })).rejects.toMatchObject({
      name: "TypeError",
      code: "ERR_INVALID_ARG_VALUE",
    })
  })

  describe("secret rotation", () => {
    const oldSecret = "old-rotation-secret-0123456789"
    const newSecret = "new-rotation-secret-0123456789"

    it("decodes tokens of either secret by kid", async () => {
      const byOld = await encode({ token: { sub: "old" }, secret: oldSecret, salt })
      const byNew = await encode({ token: { sub: "new" }, secret: [newSecret, oldSecret], salt })
      await expect(decode({ token: byOld, secret: [newSecret, oldSecret], salt })).resolves.toMatchObject({
        sub: "old",
      })
      await expect(decode({ token: byNew, secret: [newSecret, oldSecret], salt })).resolves.toMatchObject({
        sub: "new",
      })
      await expect(decode({ token: byNew, secret: newSecret, salt })).resolves.toMatchObject({ sub: "new" })
      await expect(decode({ token: byNew, secret: oldSecret, salt })).resolves.toBeNull()
    })

    it("uses the first secret for a token without kid", async () => {
      const { key } = await deriveKey(newSecret, salt, "A256CBC-HS512")
      const noKid = await new EncryptJWT({ sub: "no-kid" })
        .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512" })
        .setExpirationTime("1h")
        .encrypt(key)
      await expect(decode({ token: noKid, secret: [newSecret, oldSecret], salt })).resolves.toMatchObject({
        sub: "no-kid",
      })
      await expect(decode({ token: noKid, secret: [oldSecret, newSecret], salt })).resolves.toBeNull()
    })
  })

  it("accepts A256GCM with a 32-byte key and SHA-256 thumbprint kid", async () => {
    const { key, kid } = await deriveKey(secret, salt, "A256GCM")
    expect(key).toHaveLength(32)
    expect(base64url.decode(kid)).toHaveLength(32)
    const gcm = await new EncryptJWT({ sub: "gcm" })
      .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid })
      .setExpirationTime("1h")
      .encrypt(key)
    await expect(decode({ token: gcm, secret, salt })).resolves.toMatchObject({ sub: "gcm" })
  })

  it("rejects other algorithms", async () => {
    const { key, kid } = await deriveKey(secret, salt, "A256CBC-HS512")
    const kw = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ sub: "kw" })))
      .setProtectedHeader({ alg: "A256KW", enc: "A256CBC-HS512", kid })
      .encrypt(key.slice(0, 32))
    await expect(decode({ token: kw, secret, salt })).resolves.toBeNull()
    const err = await decodeOrThrow({ token: kw, secret, salt }).catch((e: unknown) => e)
    expect(err).toMatchObject({ message: "invalid token", cause: { code: "ERR_JOSE_ALG_NOT_ALLOWED" } })
    const gcm128 = await new EncryptJWT({ sub: "x" })
      .setProtectedHeader({ alg: "dir", enc: "A128GCM", kid })
      .encrypt(key.slice(0, 16))
    await expect(decode({ token: gcm128, secret, salt })).resolves.toBeNull()
  })

  describe("expiry", () => {
    afterEach(() => jest.useRealTimers())

    it("rejects a token past its exp", async () => {
      jest.useFakeTimers({ now: new Date("2030-01-01T00:00:00Z"), doNotFake: ["nextTick", "setImmediate"] })
      const jwe = await encode({ token: { sub: "u" }, secret, salt, maxAge: 60 })
      jest.setSystemTime(new Date("2030-01-01T00:00:59Z"))
      await expect(decode({ token: jwe, secret, salt })).resolves.toMatchObject({ sub: "u" })
      jest.setSystemTime(new Date("2030-01-01T01:00:00Z"))
      await expect(decode({ token: jwe, secret, salt })).resolves.toBeNull()
      await expect(decodeOrThrow({ token: jwe, secret, salt })).rejects.toThrow("token expired")
    })

    it("tolerates 15 s of clock skew: expired 10 s ago decodes, 20 s ago does not", async () => {
      jest.useFakeTimers({ now: new Date("2030-01-01T00:00:00Z"), doNotFake: ["nextTick", "setImmediate"] })
      const jwe = await encode({ token: { sub: "u" }, secret, salt, maxAge: 60 })
      jest.setSystemTime(new Date("2030-01-01T00:01:10Z"))
      await expect(decode({ token: jwe, secret, salt })).resolves.toMatchObject({ sub: "u" })
      jest.setSystemTime(new Date("2030-01-01T00:01:20Z"))
      await expect(decode({ token: jwe, secret, salt })).resolves.toBeNull()
    })

    it("also applies the tolerance to a token issued with an exp in the past", async () => {
      const tenAgo = await encode({ token: {}, secret, salt, maxAge: -10 })
      const twentyAgo = await encode({ token: {}, secret, salt, maxAge: -20 })
      await expect(decode({ token: tenAgo, secret, salt })).resolves.not.toBeNull()
      await expect(decode({ token: twentyAgo, secret, salt })).resolves.toBeNull()
    })
  })
})
