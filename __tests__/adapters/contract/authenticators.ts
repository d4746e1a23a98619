// Contract cases for WebAuthn authenticators: create, read, list by user and counter updates.
import { anAuthenticator, createdUser, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

const byId = (a: { credentialID: string }, b: { credentialID: string }): number =>
  a.credentialID < b.credentialID ? -1 : a.credentialID > b.credentialID ? 1 : 0

export function authenticatorCases(ctx: ContractContext): void {
  describe("authenticators", () => {
    it("createAuthenticator returns the authenticator", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id)
      expect(await ctx.adapter().createAuthenticator(input)).toEqual(input)
    })

    it("getAuthenticator returns every field with its type", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id, { counter: 42, credentialBackedUp: false })
      await ctx.adapter().createAuthenticator(input)
      const found = await ctx.adapter().getAuthenticator(input.credentialID)
      expect(found).toEqual(input)
      expect(typeof found?.counter).toBe("number")
      expect(found?.credentialBackedUp).toBe(false)
    })

    it("transports null round-trips as null", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id, { transports: null })
      await ctx.adapter().createAuthenticator(input)
      expect((await ctx.adapter().getAuthenticator(input.credentialID))?.transports).toBeNull()
    })

    it("getAuthenticator returns null for an unknown credential", async () => {
      await expect(ctx.adapter().getAuthenticator(uid())).resolves.toBeNull()
    })

    it("listAuthenticatorsByUserId returns [] for a user without authenticators", async () => {
      const user = await createdUser(ctx)
      await expect(ctx.adapter().listAuthenticatorsByUserId(user.id)).resolves.toEqual([])
    })

    it("listAuthenticatorsByUserId returns [] for an unknown user", async () => {
      await expect(ctx.adapter().listAuthenticatorsByUserId(uid())).resolves.toEqual([])
    })

    it("listAuthenticatorsByUserId returns all of the user's authenticators and no one else's", async () => {
      const user = await createdUser(ctx)
      const other = await createdUser(ctx)
      const mine = [anAuthenticator(user.id), anAuthenticator(user.id), anAuthenticator(user.id)]
      for (const a of mine) await ctx.adapter().createAuthenticator(a)
      await ctx.adapter().createAuthenticator(anAuthenticator(other.id))
      const listed = await ctx.adapter().listAuthenticatorsByUserId(user.id)
      expect([...listed].sort(byId)).toEqual([...mine].sort(byId))
    })

    it("updateAuthenticatorCounter returns the updated authenticator and persists it", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id)
      await ctx.adapter().createAuthenticator(input)
      const updated = await ctx.adapter().updateAuthenticatorCounter(input.credentialID, 7)
      expect(updated).toEqual({ ...input, counter: 7 })
      expect((await ctx.adapter().getAuthenticator(input.credentialID))?.counter).toBe(7)
      await ctx.adapter().updateAuthenticatorCounter(input.credentialID, 8)
      expect((await ctx.adapter().listAuthenticatorsByUserId(user.id))[0]?.counter).toBe(8)
    })

    it("updateAuthenticatorCounter keeps a 32-bit counter exact", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id)
      await ctx.adapter().createAuthenticator(input)
      await ctx.adapter().updateAuthenticatorCounter(input.credentialID, 4_294_967_295)
      expect((await ctx.adapter().getAuthenticator(input.credentialID))?.counter).toBe(4_294_967_295)
    })

    it("updateAuthenticatorCounter rejects an unknown credential", async () => {
      await expect(ctx.adapter().updateAuthenticatorCounter(uid(), 1)).rejects.toMatchObject({
        code: "adapter_not_found",
      })
    })

    it("createAuthenticator rejects an unknown user", async () => {
      const input = anAuthenticator(uid())
      await expect(ctx.adapter().createAuthenticator(input)).rejects.toThrow()
      await expect(ctx.adapter().getAuthenticator(input.credentialID)).resolves.toBeNull()
    })

    it("createAuthenticator rejects a credential ID already registered", async () => {
      const user = await createdUser(ctx)
      const input = anAuthenticator(user.id)
      await ctx.adapter().createAuthenticator(input)
      await expect(ctx.adapter().createAuthenticator({ ...input, counter: 99 })).rejects.toMatchObject({
        code: "adapter_conflict",
      })
      expect((await ctx.adapter().getAuthenticator(input.credentialID))?.counter).toBe(0)
    })
  })
}
