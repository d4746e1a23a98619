// Contract cases for password rows (the Password provider): the three `expected` cases of setPasswordHash, the row's
// shape, and no hash in any generic account answer.
import { createdUser, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

const HASH_A = "$scrypt$ln=14,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$0Ed0mGpV5yXrGgM9N3XWq1fQx1Ys8G7m4v2J7d3Jc4k"
const HASH_B = "$scrypt$ln=15,r=8,p=1$b3RoZXJzYWx0b3RoZXJzYQ$Zk3K0lV8pQ2wE5rT7yU9iO1pA3sD5fG7hJ9kL1zX3cV"
const BCRYPT = "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"

export function passwordCases(ctx: ContractContext): void {
  describe("password rows", () => {
    it("getPasswordAccount answers null for a user without a password", async () => {
      const user = await createdUser(ctx)
      await expect(ctx.adapter().getPasswordAccount(user.id)).resolves.toBeNull()
      await expect(ctx.adapter().getPasswordAccount(uid())).resolves.toBeNull()
    })

    it("expected: null inserts only when there is no row", async () => {
      const user = await createdUser(ctx)
      const at = new Date("2026-01-02T03:04:05.678Z")
      const row = await ctx.adapter().setPasswordHash(user.id, HASH_A, { expected: null, changedAt: at })
      expect(row).toEqual({
        userId: user.id,
        type: "password",
        provider: "password",
        providerAccountId: user.id,
        passwordHash: HASH_A,
        passwordChangedAt: at,
      })
      await expect(ctx.adapter().setPasswordHash(user.id, HASH_B, { expected: null })).resolves.toBeNull()
      const stored = await ctx.adapter().getPasswordAccount(user.id)
      expect(stored?.passwordHash).toBe(HASH_A)
      expect(stored?.passwordChangedAt).toEqual(at)
    })

    it("expected: <hash> swaps only while the stored hash equals it", async () => {
      const user = await createdUser(ctx)
      await ctx.adapter().setPasswordHash(user.id, HASH_A, { expected: null, changedAt: new Date(1_700_000_000_000) })
      await expect(ctx.adapter().setPasswordHash(user.id, HASH_B, { expected: BCRYPT })).resolves.toBeNull()
      expect((await ctx.adapter().getPasswordAccount(user.id))?.passwordHash).toBe(HASH_A)
      // No change time given: the column keeps its value (a re-hash).
      const swapped = await ctx.adapter().setPasswordHash(user.id, HASH_B, { expected: HASH_A })
      expect(swapped).toMatchObject({ passwordHash: HASH_B, passwordChangedAt: new Date(1_700_000_000_000) })
      // The old hash no longer matches: a second writer that read it loses.
      await expect(ctx.adapter().setPasswordHash(user.id, HASH_A, { expected: HASH_A })).resolves.toBeNull()
      expect((await ctx.adapter().getPasswordAccount(user.id))?.passwordHash).toBe(HASH_B)
      // A user without a row: nothing to compare with.
      const other = await createdUser(ctx)
      await expect(ctx.adapter().setPasswordHash(other.id, HASH_A, { expected: HASH_A })).resolves.toBeNull()
      await expect(ctx.adapter().getPasswordAccount(other.id)).resolves.toBeNull()
    })

    it("expected absent inserts (import, change time null) or overwrites", async () => {
      const user = await createdUser(ctx)
      const imported = await ctx.adapter().setPasswordHash(user.id, BCRYPT)
      expect(imported).toMatchObject({ passwordHash: BCRYPT, passwordChangedAt: null })
      const at = new Date("2026-03-04T05:06:07.000Z")
      const overwritten = await ctx.adapter().setPasswordHash(user.id, HASH_A, { changedAt: at })
      expect(overwritten).toMatchObject({ passwordHash: HASH_A, passwordChangedAt: at })
      expect(await ctx.adapter().getPasswordAccount(user.id)).toMatchObject({ passwordHash: HASH_A })
    })

    it("refuses a row for a user that does not exist", async () => {
      await expect(ctx.adapter().setPasswordHash(uid(), HASH_A, { expected: null })).rejects.toThrow()
    })

    it("generic account answers see the row but never the hash", async () => {
      const user = await createdUser(ctx)
      await ctx.adapter().setPasswordHash(user.id, HASH_A, { expected: null, changedAt: new Date() })
      const account = await ctx.adapter().getAccount(user.id, "password")
      expect(account).toMatchObject({ userId: user.id, type: "password", provider: "password" })
      expect(JSON.stringify(account)).not.toContain(HASH_A)
      expect(account).not.toHaveProperty("passwordHash")
      await expect(
        ctx.adapter().getUserByAccount({ provider: "password", providerAccountId: user.id }),
      ).resolves.toMatchObject({ id: user.id })
    })

    it("deleting the user deletes the row", async () => {
      const user = await createdUser(ctx)
      await ctx.adapter().setPasswordHash(user.id, HASH_A, { expected: null })
      await ctx.adapter().deleteUser(user.id)
      await expect(ctx.adapter().getPasswordAccount(user.id)).resolves.toBeNull()
      await expect(ctx.adapter().getAccount(user.id, "password")).resolves.toBeNull()
    })
  })
}
