// lib/storage/ stands on its own: no import from the core or the edges, no driver folder reaching into another, and
// the contract's session classification names every adapter method, which the session cache honours.
import { readdirSync, statSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { Pool } from "pg"
import { sessionMutators, sessionNeutral } from "../../lib/storage/adapter"
import type { Adapter, SessionMutator } from "../../lib/storage/adapter"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { PostgresAdapter } from "../../lib/storage/postgres/adapter"
import { cachedSessionAdapter } from "../../lib/core/kernel/config/session-cache"
import { LIB, importGraph } from "./graph"

const STORAGE = join(LIB, "storage")
/** The folders under lib/storage/ that every driver may use. */
const SHARED_FOLDERS = new Set(["internal"])
const drivers = readdirSync(STORAGE).filter(
  (name) => statSync(join(STORAGE, name)).isDirectory() && !SHARED_FOLDERS.has(name),
)

/** The room of a file of lib/: its first folder, or for lib/storage/ "storage/<folder>" ("storage" for the contracts). */
function room(file: string): string {
  const parts = relative(LIB, file).split(sep)
  if (parts[0] !== "storage") return parts.length > 1 ? parts[0]! : "(leaf)"
  return parts.length > 2 ? `storage/${parts[1]}` : "storage"
}

/** The driver a room is, or undefined for any other room. */
function driverOf(room: string): string | undefined {
  const name = room.startsWith("storage/") ? room.slice("storage/".length) : undefined
  return name !== undefined && drivers.includes(name) ? name : undefined
}

/** The imports out of lib/storage/ that break a rule, as "from -> to" (relative to lib/). */
function storageViolations(graph: Map<string, string[]>): string[] {
  const out: string[] = []
  for (const [file, targets] of graph) {
    const from = room(file)
    if (from !== "storage" && !from.startsWith("storage/")) continue
    const fromDriver = driverOf(from)
    for (const target of targets) {
      const to = room(target)
      const toDriver = driverOf(to)
      const forbidden =
        ["core", "express", "web"].includes(to) ||
        // A driver folder may import its own folder, the shared folders and the contracts; no other driver. The
        // contracts and the shared folders sit below every driver, so they import none.
        (toDriver !== undefined && toDriver !== fromDriver)
      if (forbidden) out.push(`${relative(LIB, file)} -> ${relative(LIB, target)}`)
    }
  }
  return out.sort()
}

describe("lib/storage/ imports", () => {
  const graph = importGraph()

  it("sees the storage modules and their imports (control)", () => {
    expect(drivers.sort()).toEqual(["memory", "postgres", "redis", "sqlite"])
    const postgres = graph.get(join(STORAGE, "postgres/adapter.ts"))!.map((f) => relative(LIB, f))
    expect(postgres).toEqual(expect.arrayContaining(["storage/adapter.ts", "storage/postgres/users.ts"]))
  })

  it("finds planted violations (the check can fail)", () => {
    const planted = new Map([
      [join(STORAGE, "redis/users.ts"), [join(LIB, "core/index.ts"), join(STORAGE, "internal/models.ts")]],
      [join(STORAGE, "sqlite/adapter.ts"), [join(STORAGE, "postgres/schema.ts"), join(STORAGE, "kv.ts")]],
      [join(STORAGE, "internal/rows.ts"), [join(STORAGE, "memory/store.ts")]],
      [join(STORAGE, "adapter.ts"), [join(LIB, "web/index.ts"), join(LIB, "models.ts")]],
      [join(LIB, "core/index.ts"), [join(STORAGE, "postgres/adapter.ts")]],
    ])
    expect(storageViolations(planted)).toEqual([
      "storage/adapter.ts -> web/index.ts",
      "storage/internal/rows.ts -> storage/memory/store.ts",
      "storage/redis/users.ts -> core/index.ts",
      "storage/sqlite/adapter.ts -> storage/postgres/schema.ts",
    ])
  })

  it("nothing under lib/storage/ imports lib/core, lib/express or lib/web, and no driver folder imports another", () => {
    expect(storageViolations(graph)).toEqual([])
  })
})

describe("the contract's session classification", () => {
  it("names every method of the fullest adapter once: a session mutator or session-neutral", async () => {
    // The PostgreSQL adapter has every method of the contract plus transaction(); a pool connects only when queried.
    const pool = new Pool({ max: 1 })
    try {
      const methods = Object.entries(PostgresAdapter(pool))
        .filter(([, value]) => typeof value === "function")
        .map(([name]) => name)
      const listed = [...sessionMutators, ...Object.keys(sessionNeutral)]
      expect(new Set(listed).size).toBe(listed.length)
      expect(listed.sort()).toEqual(methods.sort())
    } finally {
      await pool.end()
    }
  })

  it("the session cache drops the cached session on each mutator", async () => {
    const memory = MemoryAdapter()
    const adapter = { ...memory, transaction: async <T>(fn: (tx: Adapter) => Promise<T>) => fn(memory) }
    let reads = 0
    const counted = {
      ...adapter,
      getSessionAndUser: async (token: string) => {
        reads++
        return memory.getSessionAndUser(token)
      },
    }
    const cached = cachedSessionAdapter(counted, { ttl: 60, max: 10 }) as Required<Adapter> & typeof adapter
    const calls: { readonly [M in SessionMutator]: () => unknown } = {
      updateSession: () => cached.updateSession({ sessionToken: "s" }),
      deleteSession: () => cached.deleteSession("s"),
      deleteSessions: () => cached.deleteSessions({ userId: "u" }),
      deleteSessionsByIdp: () => cached.deleteSessionsByIdp({ provider: "corp", idpSid: "sid" }),
      updateUser: () => cached.updateUser({ id: "u", name: "Ann" }),
      deleteUser: () => cached.deleteUser("u"),
      unlinkAccount: () => cached.unlinkAccount({ provider: "corp", providerAccountId: "1" }),
      transaction: () => cached.transaction(async () => undefined),
    }
    for (const name of sessionMutators) {
      if ((await memory.getUser("u")) === null) await memory.createUser({ id: "u", email: null, emailVerified: null })
      const expires = new Date(Date.now() + 60_000)
      await memory.createSession({ sessionToken: "s", userId: "u", expires, provider: "corp", idpSid: "sid" })
      await cached.getSessionAndUser("s")
      await cached.getSessionAndUser("s")
      const before = reads
      await calls[name]()
      await cached.getSessionAndUser("s")
      // The read after the mutator went to the adapter, not the cache.
      expect({ name, reads: reads - before }).toEqual({ name, reads: 1 })
      await memory.deleteSession("s")
    }
  })
})
