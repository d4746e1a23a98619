// Contract cases for accounts: link, unlink, lookups and the OAuth token fields.
import { anAccount, createdUser, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

export function accountCases(ctx: ContractContext): void {
  describe("accounts", () => {
    it("linkAccount returns the linked account", async () => {
      const user = await createdUser(ctx)
      const input = anAccount(user.id)
      const linked = await ctx.adapter().linkAccount(input)
      expect(linked).toMatchObject({ userId: user.id, provider: "github", providerAccountId: input.providerAccountId })
    })

    it("getAccount returns every token field as given", async () => {
      const user = await createdUser(ctx)
      const input = anAccount(user.id, { type: "oidc", provider: "google" })
      await ctx.adapter().linkAccount(input)
      const account = await ctx.adapter().getAccount(input.providerAccountId, "google")
      expect(account).toEqual(input)
    })

    it("expires_at comes back as a number of seconds", async () => {
      const user = await createdUser(ctx)
      const input = anAccount(user.id, { expires_at: 4_102_444_800 })
      await ctx.adapter().linkAccount(input)
      const account = await ctx.adapter().getAccount(input.providerAccountId, input.provider)
      expect(typeof account?.expires_at).toBe("number")
      expect(account?.expires_at).toBe(4_102_444_800)
    })

    it("an account with only the required fields has no token fields", async () => {
      const user = await createdUser(ctx)
      const input = { userId: user.id, type: "email" as const, provider: "email", providerAccountId: user.email! }
      await ctx.adapter().linkAccount(input)
      const account = await ctx.adapter().getAccount(user.email!, "email")
      expect(account).toEqual(input)
      expect(account?.access_token).toBeUndefined()
      expect(account?.expires_at).toBeUndefined()
    })

    it("keeps extra account fields from the token response", async () => {
      const user = await createdUser(ctx)
      const input = anAccount(user.id, { refresh_token_expires_in: 15_897_600, "not-before-policy": 0 })
      await ctx.adapter().linkAccount(input)
      const account = await ctx.adapter().getAccount(input.providerAccountId, input.provider)
      expect(account).toMatchObject({ refresh_token_expires_in: 15_897_600, "not-before-policy": 0 })
    })

    it("getAccount takes (providerAccountId, provider) in that order", async () => {
      const user = await createdUser(ctx)
      const input = anAccount(user.id)
      await ctx.adapter().linkAccount(input)
      await expect(ctx.adapter().getAccount("github", input.providerAccountId)).resolves.toBeNull()
      expect(await ctx.adapter().getAccount(input.providerAccountId, "github")).not.toBeNull()
    })

    it("getAccount returns null for an unknown account", async () => {
      await expect(ctx.adapter().getAccount(uid(), "github")).resolves.toBeNull()
    })

    it("getUserByAccount returns the account's user", async () => {
      const user = await createdUser(ctx)
      const input = anAccount(user.id)
      await ctx.adapter().linkAccount(input)
      const found = await ctx.adapter().getUserByAccount({
        provider: "github",
        providerAccountId: input.providerAccountId,
      })
      expect(found).toMatchObject({ id: user.id, email: user.email })
      expect(found?.emailVerified?.getTime()).toBe(user.emailVerified?.getTime())
    })

    it("getUserByAccount returns null for an unknown account", async () => {
      await expect(ctx.adapter().getUserByAccount({ provider: "github", providerAccountId: uid() })).resolves.toBeNull()
    })

    it("the same providerAccountId at two providers is two accounts", async () => {
      const a = await createdUser(ctx)
      const b = await createdUser(ctx)
      const providerAccountId = uid()
      await ctx.adapter().linkAccount(anAccount(a.id, { provider: "github", providerAccountId }))
      await ctx.adapter().linkAccount(anAccount(b.id, { provider: "gitlab", providerAccountId }))
      expect((await ctx.adapter().getUserByAccount({ provider: "github", providerAccountId }))?.id).toBe(a.id)
      expect((await ctx.adapter().getUserByAccount({ provider: "gitlab", providerAccountId }))?.id).toBe(b.id)
    })

    it("separators inside provider ids never make two accounts collide", async () => {
      const a = await createdUser(ctx)
      const b = await createdUser(ctx)
      const suffix = uid()
      await ctx.adapter().linkAccount(anAccount(a.id, { provider: "x:y", providerAccountId: `z-${suffix}` }))
      await ctx.adapter().linkAccount(anAccount(b.id, { provider: "x", providerAccountId: `y:z-${suffix}` }))
      const first = await ctx.adapter().getUserByAccount({ provider: "x:y", providerAccountId: `z-${suffix}` })
      const second = await ctx.adapter().getUserByAccount({ provider: "x", providerAccountId: `y:z-${suffix}` })
      expect([first?.id, second?.id]).toEqual([a.id, b.id])
    })

    it("unicode provider account ids round-trip", async () => {
      const user = await createdUser(ctx)
      const providerAccountId = `ユーザー/${uid()}?é=1&ü`
      await ctx.adapter().linkAccount(anAccount(user.id, { providerAccountId }))
      expect((await ctx.adapter().getAccount(providerAccountId, "github"))?.providerAccountId).toBe(providerAccountId)
    })

    it("linkAccount rejects a (provider, providerAccountId) pair already linked", async () => {
      const a = await createdUser(ctx)
      const b = await createdUser(ctx)
      const input = anAccount(a.id)
      await ctx.adapter().linkAccount(input)
      await expect(ctx.adapter().linkAccount({ ...input, userId: b.id })).rejects.toMatchObject({
        code: "adapter_conflict",
      })
      expect((await ctx.adapter().getUserByAccount(input))?.id).toBe(a.id)
    })

    it("linkAccount rejects an unknown user", async () => {
      const input = anAccount(uid())
      await expect(ctx.adapter().linkAccount(input)).rejects.toThrow()
      await expect(ctx.adapter().getAccount(input.providerAccountId, input.provider)).resolves.toBeNull()
    })

    it("a user can have several accounts", async () => {
      const user = await createdUser(ctx)
      const github = anAccount(user.id, { provider: "github" })
      const google = anAccount(user.id, { provider: "google", type: "oidc" })
      await ctx.adapter().linkAccount(github)
      await ctx.adapter().linkAccount(google)
      expect((await ctx.adapter().getUserByAccount(github))?.id).toBe(user.id)
      expect((await ctx.adapter().getUserByAccount(google))?.id).toBe(user.id)
    })

    it("unlinkAccount removes the account and returns it", async () => {
      const user = await createdUser(ctx)
      const input = anAccount(user.id)
      await ctx.adapter().linkAccount(input)
      const removed = await ctx.adapter().unlinkAccount(input)
      expect(removed).toMatchObject({ provider: "github", providerAccountId: input.providerAccountId })
      await expect(ctx.adapter().getUserByAccount(input)).resolves.toBeNull()
      await expect(ctx.adapter().getAccount(input.providerAccountId, "github")).resolves.toBeNull()
      expect((await ctx.adapter().getUser(user.id))?.id).toBe(user.id)
    })

    it("unlinkAccount of an unknown account resolves to nothing", async () => {
      expect((await ctx.adapter().unlinkAccount({ provider: "github", providerAccountId: uid() })) ?? null).toBeNull()
    })

    it("an unlinked account can be linked again to another user", async () => {
      const a = await createdUser(ctx)
      const b = await createdUser(ctx)
      const input = anAccount(a.id)
      await ctx.adapter().linkAccount(input)
      await ctx.adapter().unlinkAccount(input)
      await ctx.adapter().linkAccount({ ...input, userId: b.id })
      expect((await ctx.adapter().getUserByAccount(input))?.id).toBe(b.id)
    })
  })
}
