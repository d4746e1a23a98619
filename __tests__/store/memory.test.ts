// The memory store passes the contract; it is capped and warns (once, in production) that it does not cross processes.
import { MemoryStore } from "../../lib/storage/memory/store"
import { runStoreContract } from "./contract"

describe("memory store", () => {
  const store = MemoryStore()
  runStoreContract("memory", async () => ({ store, sibling: store }))

  it("keeps at most maxEntries, dropping the least recently written", async () => {
    const small = MemoryStore({ maxEntries: 3, production: false })
    for (const key of ["a", "b", "c"]) await small.set(key, key, 60)
    await small.set("a", "a2", 60)
    await small.set("d", "d", 60)
    await expect(small.get(["a", "b", "c", "d"])).resolves.toEqual(["a2", null, "c", "d"])
  })

  it("sweeps expired entries before dropping live ones", async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] })
    try {
      const small = MemoryStore({ maxEntries: 2, production: false })
      await small.set("short", "s", 1)
      await small.set("long", "l", 600)
      jest.setSystemTime(1_000_000 + 2_000)
      await small.set("new", "n", 600)
      await expect(small.get(["short", "long", "new"])).resolves.toEqual([null, "l", "n"])
    } finally {
      jest.useRealTimers()
    }
  })

  it("warns once, on the first write, in production only", async () => {
    const warn = jest.fn()
    const prod = MemoryStore({ production: true, warn })
    await prod.get(["x"])
    expect(warn).not.toHaveBeenCalled()
    await prod.set("x", "1", 60)
    await prod.consume("y", 60)
    await prod.setMax("z", 1, 60)
    expect(warn.mock.calls).toEqual([["memory-store-single-process"]])

    const devWarn = jest.fn()
    const dev = MemoryStore({ production: false, warn: devWarn })
    await dev.set("x", "1", 60)
    expect(devWarn).not.toHaveBeenCalled()
  })
})
