// Differential tests of the session JWE on node:crypto against its oracles, both ways: tokens from `encode` open with
// jose's jwtDecrypt and with Auth.js's `@auth/core/jwt` decode; tokens from jose's EncryptJWT and from Auth.js's encode
// open with `decode`; and on tokens both reject, both reject for the same reason.
import { decode as authjsDecode, encode as authjsEncode } from "@auth/core/jwt"
import { CompactEncrypt, EncryptJWT, compactDecrypt, jwtDecrypt, type errors } from "jose"
import { decode, encode } from "../../lib/jwt"
import { decodeOrThrow } from "../../lib/jwt/decode"
import { deriveKey } from "../../lib/jwt/keys"

const SECRET = "differential-secret-0123456789abcdef"
const OLD_SECRET = "differential-old-secret-0123456789"
const SALTS = ["authjs.session-token", "__Secure-authjs.session-token", "authjs.pkce.code_verifier"]

const PAYLOADS: Record<string, Record<string, unknown>> = {
  empty: {},
  session: { sub: "user-1", name: "Ada Lovelace", email: "ada@example.test", picture: "https://img.test/a.png" },
  unicode: { name: "Zoë 🐙 \u2028 \u0000 \ud7ff", ключ: "значение" },
  nested: { a: { b: { c: [1, 2.5, -3e-7, true, false, null, "x"] } }, list: [{}, []] },
  "reserved-looking keys": { __proto__x: 1, constructor: "c", toString: "t", "": "empty key" },
  "large (12 KB)": { blob: "x".repeat(12 * 1024) },
  "numbers at the edges": { max: Number.MAX_SAFE_INTEGER, min: -Number.MAX_SAFE_INTEGER, tiny: 5e-324 },
}

const JWT_OPTIONS = {
  clockTolerance: 15,
  keyManagementAlgorithms: ["dir"],
  contentEncryptionAlgorithms: ["A256CBC-HS512", "A256GCM"],
}

const claimsOf = ({ iat: _i, exp: _e, jti: _j, ...rest }: Record<string, unknown>) => rest

describe("differential: encode → jose and Auth.js", () => {
  for (const salt of SALTS) {
    for (const [label, payload] of Object.entries(PAYLOADS)) {
      it(`${label} under ${salt}`, async () => {
        const token = await encode({ token: payload, secret: SECRET, salt })
        const { key, kid } = await deriveKey(SECRET, salt, "A256CBC-HS512")

        const byJose = await jwtDecrypt(token, key, JWT_OPTIONS)
        expect(byJose.protectedHeader).toEqual({ alg: "dir", enc: "A256CBC-HS512", kid })
        expect(claimsOf(byJose.payload)).toEqual(JSON.parse(JSON.stringify(payload)))

        const byAuthjs = await authjsDecode({ token, secret: SECRET, salt })
        expect(byAuthjs).toEqual(byJose.payload)
        expect(await decode({ token, secret: SECRET, salt })).toEqual(byJose.payload)
      })
    }
  }

  it("writes the same plaintext as jose's EncryptJWT for the same claims and time", async () => {
    jest.useFakeTimers({ now: new Date("2031-05-06T07:08:09Z"), doNotFake: ["nextTick", "setImmediate"] })
    try {
      const salt = SALTS[0]!
      const { key, kid } = await deriveKey(SECRET, salt, "A256CBC-HS512")
      const payload = { ...PAYLOADS.session, iat: 5, jti: "kept?", extra: { deep: [1] } }
      const ours = await encode({ token: payload, secret: SECRET, salt, maxAge: 3600 })
      const ourPlaintext = new TextDecoder().decode((await compactDecrypt(ours, key)).plaintext)
      const jti = (JSON.parse(ourPlaintext) as { jti: string }).jti
      const theirs = await new EncryptJWT({ ...payload })
        .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid })
        .setIssuedAt(Math.floor(Date.now() / 1000))
        .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
        .setJti(jti)
        .encrypt(key)
      expect(ourPlaintext).toBe(new TextDecoder().decode((await compactDecrypt(theirs, key)).plaintext))
      expect(ours.split(".")[0]).toBe(theirs.split(".")[0])
    } finally {
      jest.useRealTimers()
    }
  })

  it("seals with the first secret of a rotation list, which Auth.js opens with either order of the list", async () => {
    const salt = SALTS[0]!
    const token = await encode({ token: { sub: "rot" }, secret: [SECRET, OLD_SECRET], salt })
    await expect(authjsDecode({ token, secret: [OLD_SECRET, SECRET], salt })).resolves.toMatchObject({ sub: "rot" })
    await expect(authjsDecode({ token, secret: OLD_SECRET, salt })).rejects.toThrow()
  })
})

describe("differential: jose and Auth.js → decode", () => {
  for (const salt of SALTS) {
    for (const [label, payload] of Object.entries(PAYLOADS)) {
      it(`${label} under ${salt}`, async () => {
        const fromAuthjs = await authjsEncode({ token: payload, secret: SECRET, salt })
        const expected = await authjsDecode({ token: fromAuthjs, secret: SECRET, salt })
        await expect(decode({ token: fromAuthjs, secret: SECRET, salt })).resolves.toEqual(expected)
        // Auth.js's header is ours, byte for byte.
        const ours = await encode({ token: payload, secret: SECRET, salt })
        expect(fromAuthjs.split(".")[0]).toBe(ours.split(".")[0])

        const { key, kid } = await deriveKey(SECRET, salt, "A256CBC-HS512")
        const fromJose = await new EncryptJWT({ ...payload })
          .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid })
          .setIssuedAt()
          .setExpirationTime("1h")
          .encrypt(key)
        const decoded = await decode({ token: fromJose, secret: SECRET, salt })
        expect(decoded).toEqual((await jwtDecrypt(fromJose, key, JWT_OPTIONS)).payload)
      })
    }
  }

  it("decodes Auth.js tokens of an older secret of the rotation list", async () => {
    const salt = SALTS[1]!
    const old = await authjsEncode({ token: { sub: "old" }, secret: OLD_SECRET, salt })
    await expect(decode({ token: old, secret: [SECRET, OLD_SECRET], salt })).resolves.toMatchObject({ sub: "old" })
    await expect(decode({ token: old, secret: SECRET, salt })).resolves.toBeNull()
  })

  it("decodes an Auth.js A256GCM token through jose, as Auth.js does", async () => {
    const salt = SALTS[0]!
    const { key, kid } = await deriveKey(SECRET, salt, "A256GCM")
    const gcm = await new EncryptJWT({ sub: "gcm" })
      .setProtectedHeader({ alg: "dir", enc: "A256GCM", kid })
      .setExpirationTime("1h")
      .encrypt(key)
    await expect(authjsDecode({ token: gcm, secret: SECRET, salt })).resolves.toMatchObject({ sub: "gcm" })
    await expect(decode({ token: gcm, secret: SECRET, salt })).resolves.toMatchObject({ sub: "gcm" })
  })
})

describe("differential: the same verdict on tokens that should not decode", () => {
  const salt = SALTS[0]!
  const now = () => Math.floor(Date.now() / 1000)

  // A token with the session header (so the node:crypto path opens it) over an arbitrary plaintext.
  async function sealed(plaintext: string | Uint8Array): Promise<string> {
    const { key, kid } = await deriveKey(SECRET, salt, "A256CBC-HS512")
    const bytes = typeof plaintext === "string" ? new TextEncoder().encode(plaintext) : plaintext
    return new CompactEncrypt(bytes).setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid }).encrypt(key)
  }

  /** jose's verdict with the decoder's options: "ok" or the error's code. */
  async function joseVerdict(token: string): Promise<string> {
    const { key } = await deriveKey(SECRET, salt, "A256CBC-HS512")
    return jwtDecrypt(token, key, JWT_OPTIONS).then(
      () => "ok",
      (error: unknown) => (error as errors.JOSEError).code,
    )
  }

  /** Ours: "ok" or the code of the jose error class given as the cause. */
  async function ourVerdict(token: string): Promise<string> {
    return decodeOrThrow({ token, secret: SECRET, salt }).then(
      () => "ok",
      (error: unknown) => ((error as Error).cause as errors.JOSEError).code,
    )
  }

  it.each([
    ["not JSON", "not json"],
    ["a JSON array", "[1,2]"],
    ["JSON null", "null"],
    ["a JSON string", '"claims"'],
    ["iat a string", JSON.stringify({ iat: "1" })],
    ["nbf a string", JSON.stringify({ nbf: "1" })],
    ["exp a string", JSON.stringify({ exp: "1" })],
    ["exp null", JSON.stringify({ exp: null })],
    ["iat a string and exp past", JSON.stringify({ iat: "x", exp: 1 })],
    ["nbf in the future", JSON.stringify({ nbf: 4_000_000_000 })],
    ["nbf in the future and exp past", JSON.stringify({ nbf: 4_000_000_000, exp: 1 })],
    ["exp long past", JSON.stringify({ exp: 1 })],
    ["no claims at all", "{}"],
  ])("%s", async (_label, plaintext) => {
    const token = await sealed(plaintext)
    const verdict = await joseVerdict(token)
    expect(await ourVerdict(token)).toBe(verdict)
    expect(
      (await authjsDecode({ token, secret: SECRET, salt }).then(
        () => "ok",
        () => "refused",
      )) === "ok",
    ).toBe(verdict === "ok")
  })

  it("agrees at the edges of the clock tolerance", async () => {
    // A fixed clock: both verdicts must be taken in the same second.
    jest.useFakeTimers({ now: new Date("2032-02-03T04:05:06Z"), doNotFake: ["nextTick", "setImmediate"] })
    try {
      for (const offset of [-16, -15, -14, 0, 14, 15, 16]) {
        const token = await sealed(JSON.stringify({ exp: now() + offset, nbf: now() - offset }))
        expect({ offset, ours: await ourVerdict(token) }).toEqual({ offset, ours: await joseVerdict(token) })
      }
    } finally {
      jest.useRealTimers()
    }
  })

  it("agrees on a plaintext that is not UTF-8", async () => {
    const token = await sealed(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))
    expect(await ourVerdict(token)).toBe(await joseVerdict(token))
  })

  it("refuses, as Auth.js's encode does, a payload that cannot be cloned", async () => {
    const bad = { sub: "x", fn: () => 1 } as Record<string, unknown>
    const theirs = await authjsEncode({ token: bad, secret: SECRET, salt }).catch((e: unknown) => (e as Error).name)
    const ours = await encode({ token: bad, secret: SECRET, salt }).catch((e: unknown) => (e as Error).name)
    expect(theirs).toBe("DataCloneError")
    expect(ours).toBe(theirs)
    const big = { n: BigInt(1) } as Record<string, unknown>
    const theirsBig = await authjsEncode({ token: big, secret: SECRET, salt }).catch((e: unknown) => (e as Error).name)
    const oursBig = await encode({ token: big, secret: SECRET, salt }).catch((e: unknown) => (e as Error).name)
    expect(theirsBig).toBe("TypeError")
    expect(oursBig).toBe(theirsBig)
  })
})
