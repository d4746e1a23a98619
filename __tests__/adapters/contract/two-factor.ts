// Contract cases for the two-factor row (two-factor spec section 2.1): round trip, the version compare-and-swap (one
// winner of 20 racing writers), delete, and deleteUser taking the row with it.
import type { AdapterTwoFactor } from "../../../lib/storage/adapter"
import { createdUser, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

function aRow(userId: string, overrides: Partial<AdapterTwoFactor> = {}): AdapterTwoFactor {
  return {
    userId,
    secret: "gh1.eyJhbGciOiJkaXIifQ..iv.ct.tag",
    verifiedAt: new Date("2026-03-04T05:06:07.890Z"),
    lastUsedStep: 58_000_123,
    backupCodes: ["hash-a", null, "hash-c", null, "hash-e", "f", "g", "h", "i", "j"],
    version: 0,
    createdAt: new Date("2026-03-04T05:00:00.000Z"),
    updatedAt: new Date("2026-03-04T05:00:00.000Z"),
    ...overrides,
  }
}

export function twoFactorCases(ctx: ContractContext): void {
  describe("two-factor rows", () => {
    it("upsert then get round-trips every field (dates as Date, null backup codes kept)", async () => {
      const row = aRow(uid())
      const stored = await ctx.adapter().upsertTwoFactor(row)
      expect(stored).toEqual(row)
      const found = await ctx.adapter().getTwoFactor(row.userId)
      expect(found).toEqual(row)
      expect(found?.verifiedAt).toBeInstanceOf(Date)
      expect(found?.createdAt).toBeInstanceOf(Date)
      expect(found?.backupCodes[1]).toBeNull()
    })

    it("a pending enrolment (verifiedAt null, no codes) round-trips; get of an unknown user is null", async () => {
      const row = aRow(uid(), { verifiedAt: null, backupCodes: [], lastUsedStep: 0 })
      await ctx.adapter().upsertTwoFactor(row)
      expect(await ctx.adapter().getTwoFactor(row.userId)).toEqual(row)
      expect(await ctx.adapter().getTwoFactor(uid())).toBeNull()
    })

    it("upsert replaces the row and resets the version to 0", async () => {
      const row = aRow(uid())
      await ctx.adapter().upsertTwoFactor(row)
      await ctx.adapter().updateTwoFactor(row.userId, { lastUsedStep: 1 }, { expectedVersion: 0 })
      const replaced = await ctx.adapter().upsertTwoFactor(aRow(row.userId, { secret: "gh1.new", verifiedAt: null }))
      expect(replaced.version).toBe(0)
      expect((await ctx.adapter().getTwoFactor(row.userId))?.secret).toBe("gh1.new")
    })

    it("updateTwoFactor with the right version writes, bumps version and updatedAt; a stale one writes nothing", async () => {
      const row = aRow(uid())
      await ctx.adapter().upsertTwoFactor(row)
      const codes = ["x", null, null, null, null, null, null, null, null, null]
      const updated = await ctx
        .adapter()
        .updateTwoFactor(row.userId, { lastUsedStep: 58_000_200, backupCodes: codes }, { expectedVersion: 0 })
      expect(updated).toMatchObject({ lastUsedStep: 58_000_200, backupCodes: codes, version: 1, secret: row.secret })
      expect(updated!.updatedAt.getTime()).toBeGreaterThan(row.updatedAt.getTime())
      expect(await ctx.adapter().updateTwoFactor(row.userId, { lastUsedStep: 1 }, { expectedVersion: 0 })).toBeNull()
      const after = await ctx.adapter().getTwoFactor(row.userId)
      expect(after).toMatchObject({ lastUsedStep: 58_000_200, version: 1 })
      const verified = await ctx
        .adapter()
        .updateTwoFactor(row.userId, { verifiedAt: null, secret: "gh1.other" }, { expectedVersion: 1 })
      expect(verified).toMatchObject({ verifiedAt: null, secret: "gh1.other", version: 2, lastUsedStep: 58_000_200 })
    })

    it("updateTwoFactor of a missing row answers null", async () => {
      expect(await ctx.adapter().updateTwoFactor(uid(), { lastUsedStep: 3 }, { expectedVersion: 0 })).toBeNull()
    })

    it("20 concurrent updates with the same expected version: exactly one wins", async () => {
      const row = aRow(uid())
      await ctx.adapter().upsertTwoFactor(row)
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          ctx.adapter().updateTwoFactor(row.userId, { lastUsedStep: 60_000_000 + i }, { expectedVersion: 0 }),
        ),
      )
      const winners = results.filter((r) => r !== null)
      expect(winners).toHaveLength(1)
      const stored = await ctx.adapter().getTwoFactor(row.userId)
      expect(stored?.version).toBe(1)
      expect(stored?.lastUsedStep).toBe(winners[0]!.lastUsedStep)
    })

    it("delete answers the row, then null", async () => {
      const row = aRow(uid())
      await ctx.adapter().upsertTwoFactor(row)
      expect(await ctx.adapter().deleteTwoFactor(row.userId)).toEqual(row)
      expect(await ctx.adapter().deleteTwoFactor(row.userId)).toBeNull()
      expect(await ctx.adapter().getTwoFactor(row.userId)).toBeNull()
    })

    it("deleteUser removes the user's row", async () => {
      const user = await createdUser(ctx)
      await ctx.adapter().upsertTwoFactor(aRow(user.id))
      await ctx.adapter().deleteUser(user.id)
      expect(await ctx.adapter().getTwoFactor(user.id)).toBeNull()
    })
  })
}
