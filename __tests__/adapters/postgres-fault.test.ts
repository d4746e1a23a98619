// Faults between the PostgreSQL adapter and its database: clear rejections, no half-written rows, recovery after.
import net from "node:net"
import type { AddressInfo } from "node:net"
import { Pool } from "pg"
import { PostgresAdapter, migrate } from "../../lib/storage/postgres/adapter"
import { DATABASE_URL, POSTGRES, describeWithService, randomSuffix } from "./services"

/** A TCP proxy in front of PostgreSQL that a test can cut (all connections dropped, port closed) and restore. */
class CuttableProxy {
  private server: net.Server | undefined
  private readonly sockets = new Set<net.Socket>()
  port = 0

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target)
      for (const s of [client, upstream]) {
        this.sockets.add(s)
        s.on("close", () => this.sockets.delete(s))
        s.on("error", () => undefined)
      }
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve))
    this.port = (this.server.address() as AddressInfo).port
  }

  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((resolve) => this.server!.close(() => resolve()))
  }
}

async function deadPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describeWithService(POSTGRES, "PostgreSQL adapter under faults", () => {
  const schema = `gatehouse_fault_${randomSuffix()}`
  const admin = new Pool({ connectionString: DATABASE_URL, max: 2 })
  const pg = new URL(DATABASE_URL)

  beforeAll(async () => {
    await migrate(admin, { schema })
  })
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  })

  const user = (id: string) => ({ id, email: `${id}@example.com`, emailVerified: null })
  const account = (userId: string) => ({
    userId,
    type: "oauth" as const,
    provider: "github",
    providerAccountId: `acct-${userId}`,
  })

  it("a dead port makes every method reject with the connection error", async () => {
    const pool = new Pool({ host: "127.0.0.1", port: await deadPort(), user: "postgres", database: "test" })
    const adapter = PostgresAdapter(pool, { schema })
    try {
      await expect(adapter.createUser(user("dead"))).rejects.toThrow(/ECONNREFUSED/)
      await expect(adapter.getSessionAndUser("any")).rejects.toThrow(/ECONNREFUSED/)
      await expect(adapter.useVerificationToken({ identifier: "a", token: "b" })).rejects.toThrow(/ECONNREFUSED/)
      await expect(adapter.transaction(async (tx) => tx.getUser("dead"))).rejects.toThrow(/ECONNREFUSED/)
    } finally {
      await pool.end()
    }
    await expect(PostgresAdapter(admin, { schema }).getUser("dead")).resolves.toBeNull()
  })

  it("an ended pool rejects clearly; a new pool sees only complete writes and works", async () => {
    const pool = new Pool({ connectionString: DATABASE_URL, max: 2 })
    const adapter = PostgresAdapter(pool, { schema })
    await adapter.createUser(user("ended"))
    await pool.end()
    await expect(adapter.linkAccount(account("ended"))).rejects.toThrow(/pool after calling end/)

    const freshPool = new Pool({ connectionString: DATABASE_URL, max: 2 })
    const fresh = PostgresAdapter(freshPool, { schema })
    try {
      expect((await fresh.getUser("ended"))?.id).toBe("ended")
      await expect(fresh.getAccount("acct-ended", "github")).resolves.toBeNull()
      await fresh.linkAccount(account("ended"))
      expect((await fresh.getUserByAccount(account("ended")))?.id).toBe("ended")
    } finally {
      await freshPool.end()
    }
  })

  it("a connection killed inside createUser + linkAccount leaves no half-written user", async () => {
    const appName = `gatehouse-fault-${randomSuffix()}`
    const pool = new Pool({ connectionString: DATABASE_URL, max: 2, application_name: appName })
    pool.on("error", () => undefined)
    const adapter = PostgresAdapter(pool, { schema })
    try {
      await expect(
        adapter.transaction(async (tx) => {
          await tx.createUser(user("killed"))
          await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [
            appName,
          ])
          await tx.linkAccount(account("killed"))
        }),
      ).rejects.toThrow(/terminat|connection error/i)
      const check = PostgresAdapter(admin, { schema })
      await expect(check.getUser("killed")).resolves.toBeNull()
      await expect(check.getUserByEmail("killed@example.com")).resolves.toBeNull()
      await expect(check.getAccount("acct-killed", "github")).resolves.toBeNull()

      // The same pool recovers: the broken client was discarded, a new one connects.
      await adapter.transaction(async (tx) => {
        await tx.createUser(user("killed"))
        await tx.linkAccount(account("killed"))
      })
      expect((await check.getUserByAccount(account("killed")))?.id).toBe("killed")
    } finally {
      await pool.end()
    }
  })

  it("when the database stops answering mid-flow, calls reject; once it is back the same pool works", async () => {
    const proxy = new CuttableProxy({ host: pg.hostname, port: Number(pg.port || 5432) })
    await proxy.start()
    const pool = new Pool({
      host: "127.0.0.1",
      port: proxy.port,
      user: pg.username || "postgres",
      database: pg.pathname.slice(1) || "test",
      max: 2,
      connectionTimeoutMillis: 2000,
    })
    pool.on("error", () => undefined)
    const adapter = PostgresAdapter(pool, { schema })
    try {
      await adapter.createUser(user("flaky"))
      await adapter.createSession({ sessionToken: "flaky-s", userId: "flaky", expires: new Date(Date.now() + 60_000) })

      await proxy.cut()
      await expect(adapter.getSessionAndUser("flaky-s")).rejects.toThrow()
      await expect(adapter.linkAccount(account("flaky"))).rejects.toThrow()
      await expect(PostgresAdapter(admin, { schema }).getAccount("acct-flaky", "github")).resolves.toBeNull()

      await proxy.start()
      expect((await adapter.getSessionAndUser("flaky-s"))?.user.id).toBe("flaky")
      await adapter.linkAccount(account("flaky"))
      expect((await adapter.getUserByAccount(account("flaky")))?.id).toBe("flaky")
    } finally {
      await pool.end()
      await proxy.cut().catch(() => undefined)
    }
  })
})
