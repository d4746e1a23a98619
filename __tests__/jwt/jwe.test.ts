// The session JWE step (lib/jwt/jwe.ts): the header jose writes, strict parsing, the tamper list refused with one
// failure, the tag checked before any decryption, and the headers left to jose.
import * as nodeCrypto from "node:crypto"
import { EncryptJWT, compactDecrypt } from "jose"
import { decode, encode } from "../../lib/jwt"
import { decodeOrThrow } from "../../lib/jwt/decode"
import { isSessionHeader, openSession, parseCompact, sealSession } from "../../lib/jwt/jwe"
import { deriveKey } from "../../lib/jwt/keys"
import { tamperedTokens, withValidTag } from "./tampered"

// Every decipher the module creates is counted, so a test can tell that a refused token was never decrypted.
jest.mock("node:crypto", () => {
  const actual = jest.requireActual<typeof nodeCrypto>("node:crypto")
  return { ...actual, createDecipheriv: jest.fn(actual.createDecipheriv) }
})
const createDecipheriv = nodeCrypto.createDecipheriv as jest.MockedFunction<typeof nodeCrypto.createDecipheriv>

const secret = "jwe-test-secret-0123456789abcdef"
const salt = "authjs.session-token"

async function sessionKey() {
  return deriveKey(secret, salt, "A256CBC-HS512")
}

describe("the session JWE step", () => {
  it("writes the protected header byte for byte as jose's EncryptJWT does", async () => {
    const derived = await sessionKey()
    const ours = await encode({ token: { sub: "u" }, secret, salt })
    const theirs = await new EncryptJWT({ sub: "u" })
      .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid: derived.kid })
      .encrypt(derived.key)
    expect(ours.split(".")[0]).toBe(theirs.split(".")[0])
    expect(Buffer.from(ours.split(".")[0]!, "base64url").toString()).toBe(
      `{"alg":"dir","enc":"A256CBC-HS512","kid":"${derived.kid}"}`,
    )
  })

  it("draws a fresh 16-byte IV for every token", async () => {
    const derived = await sessionKey()
    const ivs = new Set<string>()
    for (let i = 0; i < 600; i++) {
      const iv = sealSession(derived, "{}").split(".")[2]!
      expect(Buffer.from(iv, "base64url")).toHaveLength(16)
      ivs.add(iv)
    }
    expect(ivs.size).toBe(600)
  })

  it("seals what jose opens, to the same plaintext bytes", async () => {
    const derived = await sessionKey()
    const plaintext = JSON.stringify({ sub: "ü", n: [1, { a: null }] })
    const { plaintext: opened, protectedHeader } = await compactDecrypt(sealSession(derived, plaintext), derived.key)
    expect(new TextDecoder().decode(opened)).toBe(plaintext)
    expect(protectedHeader).toEqual({ alg: "dir", enc: "A256CBC-HS512", kid: derived.kid })
  })

  describe("strict parsing", () => {
    it.each([
      ["four segments", "a.b.c.d"],
      ["six segments", "eyJ9.a.b.c.d.e"],
      ["an empty header", ".a.b.c.d"],
      ["a header that is not JSON", `${Buffer.from("{").toString("base64url")}....`],
      ["a JSON array header", `${Buffer.from("[]").toString("base64url")}....`],
      ["a JSON string header", `${Buffer.from('"x"').toString("base64url")}....`],
      ["a header that is not UTF-8", `${Buffer.from([0x7b, 0xff, 0x7d]).toString("base64url")}....`],
      ["padding", `${Buffer.from("{}").toString("base64url")}=....`],
    ])("refuses %s", (_label, token) => {
      expect(parseCompact(token)).toBeUndefined()
    })

    it("accepts a well-formed token and decodes every segment", async () => {
      const token = await encode({ token: {}, secret, salt })
      const parsed = parseCompact(token)!
      expect(parsed.segments).toEqual(token.split("."))
      expect(parsed.bytes.map((b) => b.length).slice(1, 3)).toEqual([0, 16])
      expect(parsed.bytes[4]).toHaveLength(32)
    })

    it("takes only the exact session header; everything else is jose's", () => {
      expect(isSessionHeader({ alg: "dir", enc: "A256CBC-HS512", kid: "k" })).toBe(true)
      expect(isSessionHeader({ alg: "dir", enc: "A256CBC-HS512" })).toBe(true)
      for (const header of [
        { alg: "dir", enc: "A256GCM", kid: "k" },
        { alg: "dir", enc: "A128CBC-HS256" },
        { alg: "none", enc: "A256CBC-HS512" },
        { alg: "dir", enc: "A256CBC-HS512", zip: "DEF" },
        { alg: "dir", enc: "A256CBC-HS512", crit: ["exp"], exp: 1 },
        { alg: "dir", enc: "A256CBC-HS512", sub: "replicated" },
        { alg: "dir", enc: "A256CBC-HS512", kid: 7 },
      ]) {
        expect(isSessionHeader(header)).toBe(false)
      }
    })
  })

  describe("the tamper list", () => {
    let valid: string
    let cases: Awaited<ReturnType<typeof tamperedTokens>>

    beforeAll(async () => {
      valid = await encode({ token: { sub: "user-1", name: "Ada", email: "ada@example.test" }, secret, salt })
      cases = await tamperedTokens(valid, (await sessionKey()).key)
    })

    it("decodes the untouched token (control) and has every kind of tamper", async () => {
      await expect(decode({ token: valid, secret, salt })).resolves.toMatchObject({ sub: "user-1" })
      expect(cases.length).toBeGreaterThan(500)
      for (const kind of [
        "header byte",
        "iv byte",
        "ciphertext byte",
        "tag byte",
        "truncated",
        "swapped",
        "alg none",
      ]) {
        expect(cases.some((c) => c.name.includes(kind))).toBe(true)
      }
      for (const kind of ["A128CBC-HS256", "zip", "crit", "segments", "padded", "unused bits", "4 MB", "padding"]) {
        expect(cases.some((c) => c.name.includes(kind))).toBe(true)
      }
    })

    it("refuses every tampered token with null, never a throw", async () => {
      for (const { name, token } of cases) {
        const decoded = await decode({ token, secret, salt }).catch((error: unknown) => ({ threw: error }))
        expect({ name, decoded }).toEqual({ name, decoded: null })
      }
    })

    it("gives one failure, with one cause, for every tamper of an authenticated part", async () => {
      const messages = new Set<string>()
      for (const { name, token, refusal } of cases) {
        const error = (await decodeOrThrow({ token, secret, salt }).then(
          () => new Error("decoded"),
          (e: unknown) => e,
        )) as Error & { cause?: { code?: string; message?: string } }
        expect({ name, isError: error instanceof Error, decoded: error.message === "decoded" }).toEqual({
          name,
          isError: true,
          decoded: false,
        })
        if (refusal === "decryption") {
          messages.add(`${error.message} / ${error.cause?.code} / ${error.cause?.message}`)
          expect({ name, message: error.message }).toEqual({ name, message: "token decryption failed" })
        }
      }
      expect([...messages]).toEqual([
        "token decryption failed / ERR_JWE_DECRYPTION_FAILED / decryption operation failed",
      ])
    })
  })

  it("checks the tag before it decrypts anything", async () => {
    const token = await encode({ token: { sub: "u" }, secret, salt })
    const parts = token.split(".")
    const tag = Buffer.from(parts[4]!, "base64url")
    tag[0]! ^= 1
    parts[4] = tag.toString("base64url")
    createDecipheriv.mockClear()
    await expect(decode({ token: parts.join("."), secret, salt })).resolves.toBeNull()
    expect(createDecipheriv).not.toHaveBeenCalled()
    await expect(decode({ token, secret, salt })).resolves.toMatchObject({ sub: "u" })
    expect(createDecipheriv).toHaveBeenCalledTimes(1)
  })

  it("opens a token with a correct tag and correct padding that it did not seal itself", async () => {
    const derived = await sessionKey()
    const header = sealSession(derived, "{}").split(".")[0]!
    const iv = Buffer.alloc(16, 9)
    const cipher = nodeCrypto.createCipheriv("aes-256-cbc", derived.key.subarray(32), iv)
    const ciphertext = Buffer.concat([cipher.update('{"sub":"hand-made"}'), cipher.final()])
    const token = withValidTag(derived.key, header, iv, ciphertext)
    expect(openSession(parseCompact(token)!, derived)?.toString()).toBe('{"sub":"hand-made"}')
    await expect(decode({ token, secret, salt })).resolves.toEqual({ sub: "hand-made" })
  })
})
