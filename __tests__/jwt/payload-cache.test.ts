// The decrypted-payload cache (lib/jwt/payload-cache.ts) and getToken on it: one decryption per (salt, secrets, token),
// never an answer past exp, copies handed out, and nothing shared between secrets or salts.
import { encode, getToken } from "../../lib/jwt"
import * as decodeModule from "../../lib/jwt/decode"
import { createPayloadCache } from "../../lib/jwt/payload-cache"
import { createSessionCache } from "../../lib/core/kernel/token-cache"

// Every decryption getToken asks for is counted.
jest.mock("../../lib/jwt/decode", () => {
  const actual = jest.requireActual<typeof decodeModule>("../../lib/jwt/decode")
  return { ...actual, decodeOrThrow: jest.fn(actual.decodeOrThrow) }
})
const decodeOrThrow = decodeModule.decodeOrThrow as jest.MockedFunction<typeof decodeModule.decodeOrThrow>

const secret = "payload-cache-secret-0123456789abcdef"
const cookieName = "authjs.session-token"
const requestWith = (token: string) => ({ headers: { cookie: `${cookieName}=${token}` } })

describe("createPayloadCache", () => {
  it("answers until exp and drops the entry then", () => {
    const cache = createPayloadCache<string>()
    cache.set("t", "v", 100)
    expect(cache.get("t", 99)).toBe("v")
    expect(cache.get("t", 100)).toBeUndefined()
    expect(cache.get("t", 99)).toBeUndefined()
  })

  it("keeps nothing without a finite numeric exp", () => {
    const cache = createPayloadCache<string>()
    for (const exp of [undefined, "100", NaN, Infinity, null]) cache.set(`t${String(exp)}`, "v", exp)
    for (const exp of [undefined, "100", NaN, Infinity, null]) expect(cache.get(`t${String(exp)}`, 0)).toBeUndefined()
  })

  it("is bounded: the oldest entry goes when full, and re-setting a kept token evicts nothing", () => {
    const cache = createPayloadCache<number>(3)
    for (const n of [1, 2, 3]) cache.set(`t${n}`, n, 1000)
    cache.set("t3", 33, 1000)
    expect([1, 2, 3].map((n) => cache.get(`t${n}`, 0))).toEqual([1, 2, 33])
    cache.set("t4", 4, 1000)
    expect([1, 2, 3, 4].map((n) => cache.get(`t${n}`, 0))).toEqual([undefined, 2, 33, 4])
  })

  it("answers only the exact token: another token with the same end shares the slot and is never answered from it", () => {
    const cache = createPayloadCache<string>()
    const tail = "T".repeat(40)
    const first = `header.one.${tail}`
    const forged = `header.two.${tail}`
    cache.set(first, "first", 1000)
    expect(cache.get(forged, 0)).toBeUndefined()
    // A miss on the forged token leaves the real entry in place.
    expect(cache.get(first, 0)).toBe("first")
    // The later of two tokens with the same end takes the slot; the other is then a miss (decoded again), not a wrong hit.
    cache.set(forged, "forged", 1000)
    expect(cache.get(forged, 0)).toBe("forged")
    expect(cache.get(first, 0)).toBeUndefined()
    // Short tokens are their own slot.
    cache.set("ab", "short", 1000)
    expect(cache.get("ab", 0)).toBe("short")
    expect(cache.get("b", 0)).toBeUndefined()
  })

  it("backs the session cache, which keeps frozen copies", () => {
    const cache = createSessionCache(2)
    const payload = { sub: "u", exp: 1000 }
    cache.set("c", payload)
    const kept = cache.get("c", 0)!
    expect(kept).toEqual(payload)
    expect(kept).not.toBe(payload)
    expect(Object.isFrozen(kept)).toBe(true)
    expect(cache.get("c", 1000)).toBeUndefined()
  })
})

describe("getToken's payload cache", () => {
  afterEach(() => jest.useRealTimers())

  it("decrypts a token once, then answers from the cache with a fresh copy each time", async () => {
    const token = await encode({ token: { sub: "cached", nested: { n: 1 } }, secret, salt: cookieName })
    decodeOrThrow.mockClear()
    const first = await getToken({ req: requestWith(token), secret })
    const second = await getToken({ req: requestWith(token), secret })
    expect(decodeOrThrow).toHaveBeenCalledTimes(1)
    expect(second).toEqual(first)
    expect(second).not.toBe(first)
    ;(first as { nested: { n: number } }).nested.n = 2
    const third = await getToken({ req: requestWith(token), secret })
    expect(third).toMatchObject({ sub: "cached", nested: { n: 1 } })
    expect(decodeOrThrow).toHaveBeenCalledTimes(1)
  })

  it("never answers past exp, even inside the decoder's clock tolerance", async () => {
    jest.useFakeTimers({ now: new Date("2033-01-01T00:00:00Z"), doNotFake: ["nextTick", "setImmediate"] })
    const token = await encode({ token: { sub: "short" }, secret, salt: cookieName, maxAge: 60 })
    await expect(getToken({ req: requestWith(token), secret })).resolves.toMatchObject({ sub: "short" })
    decodeOrThrow.mockClear()
    jest.setSystemTime(new Date("2033-01-01T00:00:59Z"))
    await expect(getToken({ req: requestWith(token), secret })).resolves.toMatchObject({ sub: "short" })
    expect(decodeOrThrow).not.toHaveBeenCalled()
    // At exp the cache lets go; the decoder still accepts the token for its 15 s of tolerance, then refuses it.
    jest.setSystemTime(new Date("2033-01-01T00:01:05Z"))
    await expect(getToken({ req: requestWith(token), secret })).resolves.toMatchObject({ sub: "short" })
    expect(decodeOrThrow).toHaveBeenCalledTimes(1)
    jest.setSystemTime(new Date("2033-01-01T00:01:20Z"))
    await expect(getToken({ req: requestWith(token), secret })).resolves.toBeNull()
  })

  it("is keyed by the secret list and the salt: a token cached for one is not served for another", async () => {
    const token = await encode({ token: { sub: "keyed" }, secret, salt: cookieName })
    await expect(getToken({ req: requestWith(token), secret })).resolves.toMatchObject({ sub: "keyed" })
    await expect(getToken({ req: requestWith(token), secret: "another-secret-0123456789abcdef" })).resolves.toBeNull()
    await expect(getToken({ req: requestWith(token), secret, salt: "another-salt" })).resolves.toBeNull()
    await expect(getToken({ req: requestWith(token), secret: [secret, "older"] })).resolves.toMatchObject({
      sub: "keyed",
    })
    // A list whose parts join to the same text is another list.
    await expect(
      getToken({ req: requestWith(token), secret: [secret.slice(0, 5), secret.slice(5)] }),
    ).resolves.toBeNull()
  })

  it("keeps nothing that did not decode", async () => {
    decodeOrThrow.mockClear()
    for (let i = 0; i < 2; i++)
      await expect(getToken({ req: requestWith("not.a.token.at.all"), secret })).resolves.toBeNull()
    expect(decodeOrThrow).toHaveBeenCalledTimes(2)
  })

  it("leaves a custom decode alone", async () => {
    const token = await encode({ token: { sub: "custom" }, secret, salt: cookieName })
    const custom = jest.fn(() => ({ sub: "from custom" }))
    await getToken({ req: requestWith(token), secret, decode: custom })
    await getToken({ req: requestWith(token), secret, decode: custom })
    expect(custom).toHaveBeenCalledTimes(2)
  })
})
