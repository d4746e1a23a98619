// Which key-value store a config uses: `store`, else the adapter's, else memory (which warns in production).
import { resolveConfig } from "../../../lib/core/kernel/config/resolve"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { MemoryStore } from "../../../lib/storage/memory/store"
import { credentialsConfig } from "../helpers"

describe("store selection", () => {
  it("uses config.store when given, even with an adapter that has one", async () => {
    const store = MemoryStore()
    const adapter = MemoryAdapter()
    const resolved = resolveConfig(credentialsConfig({ store, adapter, session: { strategy: "jwt" } }), { env: {} })
    expect(resolved.store).toBe(store)
  })

  it("defaults to the adapter's store", async () => {
    const adapter = MemoryAdapter()
    const resolved = resolveConfig(credentialsConfig({ adapter, session: { strategy: "jwt" } }), { env: {} })
    expect(resolved.store).toBe(adapter.store)
    await resolved.store.set("shared", "yes", 60)
    await expect(adapter.store.get(["shared"])).resolves.toEqual(["yes"])
  })

  it("without either, keeps one in memory that warns through the logger on its first write in production", async () => {
    const config = credentialsConfig()
    const resolved = resolveConfig(config, { env: { NODE_ENV: "production", AUTH_TRUST_HOST: "true" } })
    expect(config.logger.warnings).toEqual([])
    await resolved.store.consume("first", 60)
    await resolved.store.consume("second", 60)
    expect(config.logger.warnings).toEqual(["memory-store-single-process"])
  })

  it("does not warn outside production", async () => {
    const config = credentialsConfig()
    const resolved = resolveConfig(config, { env: {} })
    await resolved.store.set("k", "v", 60)
    expect(config.logger.warnings).toEqual([])
  })
})
