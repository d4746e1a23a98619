// Contract cases for the passkey additions (next-wave B.1): the named/dated columns, deleteAuthenticator,
// updateAuthenticator and the compare-and-swap form of updateAuthenticatorCounter, including races (B5/B6 at the
// storage level: of several updates from one read, exactly one wins, and the counter never goes down).
import { anAuthenticator, createdUser, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

export function passkeyCases(ctx: ContractContext): void {
  describe("authenticators: passkey additions", () => {
    it("name, aaguid and createdAt round-trip; lastUsedAt starts absent", async () => {
      const user = await createdUser(ctx)
      const createdAt = new Date("2026-01-02T03:04:05.678Z")
      const input = anAuthenticator(user.id, {
        name: "iCloud Keychain",
        aaguid: "fbfc3007-154e-4ecc-8c0b-6e020557d7bd",
        createdAt,
      })
      expect(await ctx.adapter().createAuthenticator(input)).toEqual(input)
      const found = await ctx.adapter().getAuthenticator(input.credentialID)
      expect(found).toEqual(input)
      expect(found?.createdAt).toBeInstanceOf(Date)
      expect(found?.lastUsedAt ?? null).toBeNull()
    })

    it("the CAS update writes when the stored counter is the expected one, and sets lastUsedAt", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id, { counter: 5 })
      await ctx.adapter().createAuthenticator(input)
      const before = Date.now()
      const updated = await ctx.adapter().updateAuthenticatorCounter(input.credentialID, 7, { expected: 5 })
      expect(updated?.counter).toBe(7)
      const stored = await ctx.adapter().getAuthenticator(input.credentialID)
      expect(stored?.counter).toBe(7)
      expect(stored?.lastUsedAt?.getTime()).toBeGreaterThanOrEqual(before - 1000)
    })

    it("the CAS update keeps a zero counter at zero (synced passkeys) and still records the use", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id)
      await ctx.adapter().createAuthenticator(input)
      const updated = await ctx.adapter().updateAuthenticatorCounter(input.credentialID, 0, { expected: 0 })
      expect(updated?.counter).toBe(0)
      expect(updated?.lastUsedAt).toBeInstanceOf(Date)
    })

    it("the CAS update answers null and changes nothing when the stored counter moved", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id, { counter: 9 })
      await ctx.adapter().createAuthenticator(input)
      await expect(
        ctx.adapter().updateAuthenticatorCounter(input.credentialID, 12, { expected: 8 }),
      ).resolves.toBeNull()
      const stored = await ctx.adapter().getAuthenticator(input.credentialID)
      expect(stored?.counter).toBe(9)
      expect(stored?.lastUsedAt ?? null).toBeNull()
    })

    it("the CAS update never lowers the counter", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id, { counter: 9 })
      await ctx.adapter().createAuthenticator(input)
      await expect(ctx.adapter().updateAuthenticatorCounter(input.credentialID, 3, { expected: 9 })).resolves.toBeNull()
      expect((await ctx.adapter().getAuthenticator(input.credentialID))?.counter).toBe(9)
    })

    it("the CAS update of an unknown credential answers null", async () => {
      await expect(ctx.adapter().updateAuthenticatorCounter(uid(), 1, { expected: 0 })).resolves.toBeNull()
    })

    it("parallel CAS updates from one read: exactly one wins (a replayed assertion cannot count twice)", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id, { counter: 0 })
      await ctx.adapter().createAuthenticator(input)
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          ctx.adapter().updateAuthenticatorCounter(input.credentialID, 0, { expected: 0 }),
        ),
      )
      // Zero counters all match: each is a distinct challenge's use. With a moving counter only one may win:
      expect(results.every((r) => r?.counter === 0)).toBe(true)
      const moving = await Promise.all(
        [4, 5, 6, 7].map((n) => ctx.adapter().updateAuthenticatorCounter(input.credentialID, n, { expected: 0 })),
      )
      expect(moving.filter((r) => r !== null)).toHaveLength(1)
      const winner = moving.find((r) => r !== null)
      expect((await ctx.adapter().getAuthenticator(input.credentialID))?.counter).toBe(winner?.counter)
    })

    it("parallel CAS updates with retry on miss end at the highest counter (8 and 9 → 9)", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id, { counter: 7 })
      await ctx.adapter().createAuthenticator(input)
      const bump = async (next: number): Promise<void> => {
        for (let attempt = 0; attempt < 5; attempt++) {
          const current = await ctx.adapter().getAuthenticator(input.credentialID)
          if (!current || current.counter >= next) return
          if (await ctx.adapter().updateAuthenticatorCounter(input.credentialID, next, { expected: current.counter })) {
            return
          }
        }
      }
      await Promise.all([bump(8), bump(9)])
      expect((await ctx.adapter().getAuthenticator(input.credentialID))?.counter).toBe(9)
    })

    it("deleteAuthenticator removes one credential and answers it; the user's others stay", async () => {
      const user = await createdUser(ctx)
      const gone = anAuthenticator(user.id)
      const kept = anAuthenticator(user.id)
      await ctx.adapter().createAuthenticator(gone)
      await ctx.adapter().createAuthenticator(kept)
      expect(await ctx.adapter().deleteAuthenticator(gone.credentialID)).toEqual(gone)
      await expect(ctx.adapter().getAuthenticator(gone.credentialID)).resolves.toBeNull()
      expect(await ctx.adapter().listAuthenticatorsByUserId(user.id)).toEqual([kept])
      await expect(ctx.adapter().deleteAuthenticator(gone.credentialID)).resolves.toBeNull()
    })

    it("deleteAuthenticator of an unknown credential answers null", async () => {
      await expect(ctx.adapter().deleteAuthenticator(uid())).resolves.toBeNull()
    })

    it("updateAuthenticator renames and records the last use, touching nothing else", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id, { counter: 3, name: "Passkey" })
      await ctx.adapter().createAuthenticator(input)
      const renamed = await ctx.adapter().updateAuthenticator(input.credentialID, { name: "Work laptop" })
      expect(renamed).toEqual({ ...input, name: "Work laptop" })
      const at = new Date("2026-03-04T05:06:07.890Z")
      const touched = await ctx.adapter().updateAuthenticator(input.credentialID, { lastUsedAt: at })
      expect(touched).toEqual({ ...input, name: "Work laptop", lastUsedAt: at })
      expect(await ctx.adapter().getAuthenticator(input.credentialID)).toEqual(touched)
    })

    it("updateAuthenticator of an unknown credential answers null and creates nothing", async () => {
      const id = uid()
      await expect(ctx.adapter().updateAuthenticator(id, { name: "x" })).resolves.toBeNull()
      await expect(ctx.adapter().getAuthenticator(id)).resolves.toBeNull()
    })

    it("a credential id in standard base64 (+, /, =) is stored and found exactly", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id, { credentialID: "ab+/cd==" + uid().slice(0, 4) })
      await ctx.adapter().createAuthenticator(input)
      expect((await ctx.adapter().getAuthenticator(input.credentialID))?.credentialID).toBe(input.credentialID)
    })
  })
}
