// The key-value store contract: one suite every store passes (get, set, setMax, consume, expiry, concurrency, input).
import { randomBytes } from "node:crypto"
import type { KeyValueStore, RateLimitStore } from "../../lib/storage/kv"
import { fakeDateOnly } from "../fixtures/clock"

/** What a suite's setup hands to the contract. */
export interface StoreSetup {
  store: KeyValueStore & RateLimitStore
  /** A second instance on the same backing data (another client or connection), for cross-instance races. */
  sibling: KeyValueStore & RateLimitStore
  /**
   * Stores that expire with the server's clock (Redis) cannot be moved in time: they report a key's remaining life
   * in milliseconds instead (-2 when absent). Local-clock stores leave this out and the contract fakes `Date`.
   */
  remainingMs?: (key: string) => Promise<number>
}

const fresh = (label: string): string => `${label}:${randomBytes(6).toString("hex")}`

/** Runs the contract against one store. `setup` runs once; every case uses fresh random keys. */
export function runStoreContract(name: string, setup: () => Promise<StoreSetup>): void {
  describe(`${name} store contract`, () => {
    let s: StoreSetup
    beforeAll(async () => {
      s = await setup()
    })
    afterEach(() => {
      jest.useRealTimers()
    })

    /** Runs `check` once the entry has outlived `seconds` (local clock), or checks its TTL on the server. */
    async function afterSeconds(
      key: string,
      seconds: number,
      local: () => Promise<void>,
      server: (remaining: number) => void,
    ): Promise<void> {
      if (s.remainingMs) server(await s.remainingMs(key))
      else {
        jest.setSystemTime(Date.now() + seconds * 1000)
        await local()
      }
    }
    const startClock = (): void => {
      if (!s.remainingMs) fakeDateOnly(Date.now())
    }

    it("get answers null for absent keys, aligned with the keys, and [] for no keys", async () => {
      const [a, b] = [fresh("absent"), fresh("absent")]
      await expect(s.store.get([a, b])).resolves.toEqual([null, null])
      await expect(s.store.get([])).resolves.toEqual([])
    })

    it("set stores a value, replaces it, and get returns values aligned with the keys", async () => {
      const [a, b, c] = [fresh("set"), fresh("set"), fresh("set")]
      await s.store.set(a, "first", 60)
      await s.store.set(c, "third", 60)
      await expect(s.store.get([a, b, c, a])).resolves.toEqual(["first", null, "third", "first"])
      await s.store.set(a, "replaced", 60)
      await expect(s.store.get([a])).resolves.toEqual(["replaced"])
      await expect(s.sibling.get([a])).resolves.toEqual(["replaced"])
    })

    it("keeps keys and values with any characters apart", async () => {
      const base = fresh("chars")
      const keys = [`${base}:a b`, `${base}:a%20b`, `${base}:ünï/ç*`, `${base}:'; DROP TABLE x; --`]
      for (const [i, key] of keys.entries()) await s.store.set(key, `v${i} ☃ "'`, 60)
      await expect(s.store.get(keys)).resolves.toEqual(keys.map((_, i) => `v${i} ☃ "'`))
    })

    it("set expires after its TTL", async () => {
      startClock()
      const key = fresh("ttl")
      await s.store.set(key, "v", 30)
      await afterSeconds(
        key,
        29,
        async () => expect(await s.store.get([key])).toEqual(["v"]),
        (remaining) => expect(remaining).toBeGreaterThan(0),
      )
      await afterSeconds(
        key,
        2,
        async () => expect(await s.store.get([key])).toEqual([null]),
        (remaining) => expect(remaining).toBeLessThanOrEqual(30_000),
      )
    })

    it("consume is true once, then false until the entry expires", async () => {
      startClock()
      const key = fresh("consume")
      await expect(s.store.consume(key, 60)).resolves.toBe(true)
      await expect(s.store.consume(key, 60)).resolves.toBe(false)
      await expect(s.sibling.consume(key, 60)).resolves.toBe(false)
      await afterSeconds(
        key,
        61,
        async () => expect(await s.store.consume(key, 60)).toBe(true),
        (remaining) => expect(remaining).toBeGreaterThan(0),
      )
      if (s.remainingMs) expect(await s.remainingMs(key)).toBeLessThanOrEqual(60_000)
    })

    it("consume does not create over a live value written by set", async () => {
      const key = fresh("consume-set")
      await s.store.set(key, "taken", 60)
      await expect(s.store.consume(key, 60)).resolves.toBe(false)
      await expect(s.store.get([key])).resolves.toEqual(["taken"])
    })

    it("setMax keeps the largest number and resolves to it", async () => {
      const key = fresh("max")
      await expect(s.store.setMax(key, 5, 60)).resolves.toBe(5)
      await expect(s.store.setMax(key, 3, 60)).resolves.toBe(5)
      await expect(s.store.get([key])).resolves.toEqual(["5"])
      await expect(s.store.setMax(key, 1_700_000_000_123, 60)).resolves.toBe(1_700_000_000_123)
      await expect(s.sibling.get([key])).resolves.toEqual(["1700000000123"])
      await expect(s.store.setMax(key, -1, 60)).resolves.toBe(1_700_000_000_123)
    })

    it("setMax never shortens the life of the stored entry", async () => {
      startClock()
      const key = fresh("max-ttl")
      await s.store.setMax(key, 10, 100)
      await s.store.setMax(key, 5, 1)
      await s.store.setMax(key, 20, 1)
      await afterSeconds(
        key,
        50,
        async () => expect(await s.store.get([key])).toEqual(["20"]),
        (remaining) => expect(remaining).toBeGreaterThan(50_000),
      )
    })

    it("setMax starts over once the entry expired, and replaces a live non-number", async () => {
      startClock()
      const text = fresh("max-text")
      await s.store.set(text, "not a number", 60)
      await expect(s.store.setMax(text, 7, 60)).resolves.toBe(7)
      await expect(s.store.get([text])).resolves.toEqual(["7"])
      if (s.remainingMs) return
      const key = fresh("max-expired")
      await s.store.setMax(key, 50, 10)
      jest.setSystemTime(Date.now() + 11_000)
      await expect(s.store.setMax(key, 4, 10)).resolves.toBe(4)
      await expect(s.store.get([key])).resolves.toEqual(["4"])
    })

    it("of 40 parallel consumes of one key, across two instances, exactly one wins", async () => {
      const key = fresh("race")
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? s.store : s.sibling).consume(key, 60)),
      )
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it("40 parallel setMax calls leave the largest value, and none answers less than its own", async () => {
      const key = fresh("max-race")
      const values = Array.from({ length: 40 }, (_, i) => 1000 + ((i * 17) % 40))
      const results = await Promise.all(values.map((v, i) => (i % 2 === 0 ? s.store : s.sibling).setMax(key, v, 60)))
      results.forEach((result, i) => expect(result).toBeGreaterThanOrEqual(values[i]))
      await expect(s.store.get([key])).resolves.toEqual([String(Math.max(...values))])
    })

    it("hit counts within one fixed window, across instances, and the window's end never moves", async () => {
      startClock()
      const key = fresh("hit")
      const first = await s.store.hit(key, 60)
      expect(first.count).toBe(1)
      expect(first.resetMs).toBeGreaterThan(0)
      expect(first.resetMs).toBeLessThanOrEqual(60_000)
      if (!s.remainingMs) jest.setSystemTime(Date.now() + 20_000)
      const second = await s.sibling.hit(key, 60)
      expect(second.count).toBe(2)
      expect(second.resetMs).toBeLessThanOrEqual(s.remainingMs ? first.resetMs : 40_000)
      await expect(s.store.hit(key, 60)).resolves.toMatchObject({ count: 3 })
      await afterSeconds(
        key,
        41,
        async () => expect(await s.store.hit(key, 60)).toEqual({ count: 1, resetMs: 60_000 }),
        (remaining) => expect(remaining).toBeLessThanOrEqual(first.resetMs),
      )
    })

    it("reset forgets the window: the next hit counts 1 again", async () => {
      const key = fresh("hit-reset")
      for (let i = 0; i < 4; i += 1) await s.store.hit(key, 60)
      await s.sibling.reset(key)
      await expect(s.store.hit(key, 60)).resolves.toMatchObject({ count: 1 })
      await s.store.reset(fresh("hit-absent")) // resetting nothing is fine
    })

    it("hit over a live non-counter value opens a new window", async () => {
      const key = fresh("hit-text")
      await s.store.set(key, "not a number", 60)
      await expect(s.store.hit(key, 60)).resolves.toMatchObject({ count: 1 })
    })

    it("of 50 parallel hits on one key, across two instances, each sees a distinct count 1..50", async () => {
      const key = fresh("hit-race")
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? s.store : s.sibling).hit(key, 60)),
      )
      expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    })

    it("hit and reset reject a bad key or window with a TypeError", async () => {
      for (const call of [
        () => s.store.hit("", 60),
        () => s.store.hit(fresh("bad-hit"), 0),
        () => s.store.hit(fresh("bad-hit"), Number.NaN),
        () => s.store.reset("k".repeat(513)),
      ]) {
        await expect(call()).rejects.toMatchObject({ name: "TypeError", code: "ERR_INVALID_ARG_VALUE" })
      }
    })

    it("rejects bad keys, TTLs and numbers with a TypeError and stores nothing", async () => {
      const key = fresh("bad")
      const bad: Array<() => Promise<unknown>> = [
        () => s.store.set("", "v", 60),
        () => s.store.set("k".repeat(513), "v", 60),
        () => s.store.set(key, "v", 0),
        () => s.store.set(key, "v", Number.NaN),
        () => s.store.set(key, "v", -5),
        () => s.store.set(key, 42 as unknown as string, 60),
        () => s.store.consume(key, Infinity),
        () => s.store.consume(undefined as unknown as string, 60),
        () => s.store.setMax(key, 1.5, 60),
        () => s.store.setMax(key, Number.MAX_SAFE_INTEGER + 2, 60),
        () => s.store.setMax(key, 5, 0),
        () => s.store.get([key, ""]),
      ]
      for (const call of bad) {
        await expect(call()).rejects.toMatchObject({ name: "TypeError", code: "ERR_INVALID_ARG_VALUE" })
      }
      await expect(s.store.get([key])).resolves.toEqual([null])
      await expect(s.store.consume(key, 60)).resolves.toBe(true)
    })
  })
}
