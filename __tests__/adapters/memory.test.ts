// The memory adapter passes the contract.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import MemoryAdapterDefault from "../../lib/storage/memory/adapter"
import { runAdapterContract } from "./contract"

runAdapterContract("memory", async () => ({ adapter: MemoryAdapter(), teardown: async () => undefined }))

describe("MemoryAdapter", () => {
  it("is the default export too", () => {
    expect(MemoryAdapterDefault).toBe(MemoryAdapter)
  })

  it("gives each instance its own store", async () => {
    const a = MemoryAdapter()
    const b = MemoryAdapter()
    await a.createUser({ id: "u1", email: "same@example.com", emailVerified: null })
    await expect(b.getUser("u1")).resolves.toBeNull()
    await expect(b.createUser({ id: "u1", email: "same@example.com", emailVerified: null })).resolves.toMatchObject({
      id: "u1",
    })
  })
})
