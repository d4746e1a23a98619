// The audit trail's retention pass (accounts.md §4.4): it runs by itself, at most once an hour per store, armed by a
// write but on a timer of its own, so it never touches the database within the answer that wrote the event.
import { AUDIT_PRUNE_DELAY, pruneAuditEvents, recordAudit } from "../../lib/core/kernel/audit"
import type { AuditConfig, AuditStore } from "../../lib/core/kernel/audit"

const DAY = 86_400_000
const HOUR = 3_600_000

/** A config over a store that counts its deletes; each call builds a new store, so each test starts unpruned. */
function setup(deleteAuditEvents: AuditStore["deleteAuditEvents"] = async () => 0) {
  const store = {
    createAuditEvent: jest.fn(async () => undefined),
    listAuditEvents: jest.fn(async () => []),
    deleteAuditEvents: jest.fn(deleteAuditEvents),
  }
  const warnings: string[] = []
  const config: AuditConfig = {
    audit: { store, retention: 90 },
    session: { storeIp: false },
    logger: { error: () => undefined, warn: (code) => void warnings.push(code), debug: () => undefined },
  }
  const write = () => recordAudit({ config }, { type: "signout", userId: "ann" })
  return { store, config, warnings, write }
}

/** Lets the promise chains of a fired timer run. */
const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

describe("audit retention", () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date("2026-11-27T08:00:00Z") }))
  afterEach(() => jest.useRealTimers())

  it("never runs within the write that arms it: the delete waits for its own timer", async () => {
    const { store, write } = setup()
    await write()
    await flush()
    expect(store.createAuditEvent).toHaveBeenCalledTimes(1)
    expect(store.deleteAuditEvents).not.toHaveBeenCalled()

    await jest.advanceTimersByTimeAsync(AUDIT_PRUNE_DELAY - 1)
    expect(store.deleteAuditEvents).not.toHaveBeenCalled()
    await jest.advanceTimersByTimeAsync(1)
    expect(store.deleteAuditEvents).toHaveBeenCalledTimes(1)
    expect(store.deleteAuditEvents).toHaveBeenCalledWith({ before: new Date(Date.now() - 90 * DAY) })
  })

  it("arms one timer per store, however many writes come before it fires", async () => {
    const { store, write } = setup()
    for (let i = 0; i < 5; i++) await write()
    expect(jest.getTimerCount()).toBe(1)
    await jest.advanceTimersByTimeAsync(AUDIT_PRUNE_DELAY)
    expect(store.deleteAuditEvents).toHaveBeenCalledTimes(1)
    expect(jest.getTimerCount()).toBe(0)
  })

  it("runs at most once an hour per store; a write after the hour arms the next pass", async () => {
    const { store, write } = setup()
    await write()
    await jest.advanceTimersByTimeAsync(AUDIT_PRUNE_DELAY)
    expect(store.deleteAuditEvents).toHaveBeenCalledTimes(1)

    await jest.advanceTimersByTimeAsync(HOUR - 2 * AUDIT_PRUNE_DELAY)
    await write()
    expect(jest.getTimerCount()).toBe(0)
    await jest.advanceTimersByTimeAsync(AUDIT_PRUNE_DELAY)
    expect(store.deleteAuditEvents).toHaveBeenCalledTimes(1)

    // An hour after the pass ran.
    await jest.advanceTimersByTimeAsync(AUDIT_PRUNE_DELAY)
    await write()
    expect(jest.getTimerCount()).toBe(1)
    await jest.advanceTimersByTimeAsync(AUDIT_PRUNE_DELAY)
    expect(store.deleteAuditEvents).toHaveBeenCalledTimes(2)
  })

  it("keeps a separate hour for each store", async () => {
    const a = setup()
    const b = setup()
    await a.write()
    await b.write()
    await jest.advanceTimersByTimeAsync(AUDIT_PRUNE_DELAY)
    expect([a.store.deleteAuditEvents.mock.calls.length, b.store.deleteAuditEvents.mock.calls.length]).toEqual([1, 1])
  })

  it("counts the app's own pruneAuditEvents() call as the hour's pass", async () => {
    const { store, config, write } = setup()
    await write()
    expect(await pruneAuditEvents(config)).toBe(0)
    await jest.advanceTimersByTimeAsync(AUDIT_PRUNE_DELAY)
    expect(store.deleteAuditEvents).toHaveBeenCalledTimes(1)
  })

  it("a failing pass logs audit-store-failed and the next writes still succeed", async () => {
    const { store, warnings, write } = setup(async () => {
      throw new Error("database gone")
    })
    await write()
    await jest.advanceTimersByTimeAsync(AUDIT_PRUNE_DELAY)
    expect(store.deleteAuditEvents).toHaveBeenCalledTimes(1)
    expect(warnings).toEqual(["audit-store-failed"])
    await expect(write()).resolves.toBeUndefined()
    expect(store.createAuditEvent).toHaveBeenCalledTimes(2)
  })
})

describe("audit retention timer", () => {
  it("never keeps the process alive (unref'd)", async () => {
    const spy = jest.spyOn(global, "setTimeout")
    try {
      const { write } = setup()
      await write()
      const armed = spy.mock.results.map((r) => r.value as NodeJS.Timeout)
      expect(armed).toHaveLength(1)
      expect(armed[0]!.hasRef()).toBe(false)
      clearTimeout(armed[0])
    } finally {
      spy.mockRestore()
    }
  })
})
