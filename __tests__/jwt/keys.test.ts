// The key cache: one derivation per (secret, salt, enc), bounded size, shared pending derivations.
import { decode, encode } from "../../lib/jwt"
import { deriveKey, keyCacheStats, resetKeyCache } from "../../lib/jwt/keys"

const secret = "keys-test-secret-0123456789abcdef"
const salt = "authjs.session-token"

describe("key cache", () => {
  beforeEach(() => resetKeyCache())

  it("derives once for 1000 decodes with one secret", async () => {
    const jwe = await encode({ token: { sub: "hot" }, secret, salt })
    for (let i = 0; i < 1000; i++) {
      const token = await decode({ token: jwe, secret, salt })
      expect(token?.sub).toBe("hot")
    }
    expect(keyCacheStats()).toEqual({ size: 1, derivations: 1 })
  })

  it("shares one derivation between concurrent first requests", async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => deriveKey(secret, salt, "A256CBC-HS512")))
    expect(new Set(results).size).toBe(1)
    expect(keyCacheStats().derivations).toBe(1)
  })

  it("keys the cache by secret, salt and enc", async () => {
    await deriveKey(secret, salt, "A256CBC-HS512")
    await deriveKey(secret, salt, "A256GCM")
    await deriveKey(secret, "__Secure-authjs.session-token", "A256CBC-HS512")
    await deriveKey("other-secret-0123456789", salt, "A256CBC-HS512")
    await deriveKey(secret, salt, "A256CBC-HS512")
    expect(keyCacheStats()).toEqual({ size: 4, derivations: 4 })
  })

  it("stays bounded at 100 entries and evicts the least recently used", async () => {
    await deriveKey("kept-0", salt, "A256CBC-HS512")
    for (let i = 1; i < 100; i++) await deriveKey(`s-${i}`, salt, "A256CBC-HS512")
    await deriveKey("kept-0", salt, "A256CBC-HS512") // touch: now most recently used
    await deriveKey("s-100", salt, "A256CBC-HS512") // evicts s-1
    expect(keyCacheStats()).toEqual({ size: 100, derivations: 101 })
    await deriveKey("kept-0", salt, "A256CBC-HS512")
    expect(keyCacheStats().derivations).toBe(101)
    await deriveKey("s-1", salt, "A256CBC-HS512")
    expect(keyCacheStats()).toEqual({ size: 100, derivations: 102 })
  })

  it("derives the same bytes as a fresh derivation", async () => {
    const first = await deriveKey(secret, salt, "A256CBC-HS512")
    resetKeyCache()
    const second = await deriveKey(secret, salt, "A256CBC-HS512")
    expect(second).not.toBe(first)
    expect(second).toEqual(first)
    expect(first.key).toHaveLength(64)
  })
})
