// Contract cases for users: create, read, lookup by email (case-insensitive), update and delete.
import { aUser, anAccount, anAuthenticator, createdUser, inFuture, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

export function userCases(ctx: ContractContext): void {
  describe("users", () => {
    it("createUser returns the user with the id and fields it was given", async () => {
      const input = aUser()
      const user = await ctx.adapter().createUser(input)
      expect(user).toMatchObject({ id: input.id, name: input.name, email: input.email, image: input.image })
      expect(user.emailVerified).toEqual(input.emailVerified)
    })

    it("getUser returns the stored user", async () => {
      const input = aUser()
      await ctx.adapter().createUser(input)
      const user = await ctx.adapter().getUser(input.id)
      expect(user).toMatchObject({ id: input.id, name: input.name, email: input.email, image: input.image })
    })

    it("getUser returns null for an unknown id", async () => {
      await expect(ctx.adapter().getUser(uid())).resolves.toBeNull()
    })

    it("emailVerified round-trips as a Date to the millisecond", async () => {
      const verified = new Date("2031-12-31T23:59:58.987Z")
      const user = await createdUser(ctx, { emailVerified: verified })
      const read = await ctx.adapter().getUser(user.id)
      expect(read?.emailVerified).toBeInstanceOf(Date)
      expect(read?.emailVerified?.getTime()).toBe(verified.getTime())
    })

    it("emailVerified null round-trips as null", async () => {
      const user = await createdUser(ctx, { emailVerified: null })
      expect((await ctx.adapter().getUser(user.id))?.emailVerified).toBeNull()
    })

    it("unicode names and emails round-trip unchanged", async () => {
      const user = await createdUser(ctx, { name: "Zoë Ñandú 山田 🚀", email: `ÄNNE.Ø-${uid()}@exämple.org` })
      const read = await ctx.adapter().getUser(user.id)
      expect(read?.name).toBe("Zoë Ñandú 山田 🚀")
      expect(read?.email).toBe(user.email)
    })

    it("keeps the email in the case it was given", async () => {
      const email = `Mixed.Case-${uid()}@Example.COM`
      const user = await createdUser(ctx, { email })
      expect((await ctx.adapter().getUser(user.id))?.email).toBe(email)
    })

    it("keeps extra user fields (JSON values)", async () => {
      const user = await createdUser(ctx, { role: "admin", tags: ["a", "b"], profile: { age: 36 } })
      expect(await ctx.adapter().getUser(user.id)).toMatchObject({
        role: "admin",
        tags: ["a", "b"],
        profile: { age: 36 },
      })
    })

    it("getUserByEmail finds the user by the exact email", async () => {
      const user = await createdUser(ctx)
      expect((await ctx.adapter().getUserByEmail(user.email!))?.id).toBe(user.id)
    })

    it("getUserByEmail matches case-insensitively", async () => {
      const user = await createdUser(ctx, { email: `Grace.Hopper-${uid()}@Navy.MIL` })
      expect((await ctx.adapter().getUserByEmail(user.email!.toLowerCase()))?.id).toBe(user.id)
      expect((await ctx.adapter().getUserByEmail(user.email!.toUpperCase()))?.id).toBe(user.id)
    })

    it("getUserByEmail folds non-ASCII letters too", async () => {
      const user = await createdUser(ctx, { email: `ÉLODIE-${uid()}@CAFÉ.example` })
      expect((await ctx.adapter().getUserByEmail(user.email!.toLowerCase()))?.id).toBe(user.id)
    })

    it("getUserByEmail returns null for an unknown email", async () => {
      await expect(ctx.adapter().getUserByEmail(`nobody-${uid()}@example.com`)).resolves.toBeNull()
    })

    it("getUserByEmail returns null for an empty email", async () => {
      await expect(ctx.adapter().getUserByEmail("")).resolves.toBeNull()
    })

    it("createUser rejects an email already used in another case", async () => {
      const user = await createdUser(ctx)
      await expect(ctx.adapter().createUser(aUser({ email: user.email!.toUpperCase() }))).rejects.toMatchObject({
        code: "adapter_conflict",
      })
      expect((await ctx.adapter().getUserByEmail(user.email!))?.id).toBe(user.id)
    })

    it("createUser rejects an id already in use", async () => {
      const user = await createdUser(ctx)
      await expect(ctx.adapter().createUser(aUser({ id: user.id }))).rejects.toMatchObject({ code: "adapter_conflict" })
      expect((await ctx.adapter().getUser(user.id))?.email).toBe(user.email)
    })

    it("returned users are copies: mutating one does not change the store", async () => {
      const user = await createdUser(ctx)
      user.name = "changed"
      const read = await ctx.adapter().getUser(user.id)
      expect(read?.name).toBe("Ada Lovelace")
      read!.name = "changed again"
      expect((await ctx.adapter().getUser(user.id))?.name).toBe("Ada Lovelace")
    })

    it("updateUser returns the updated user and persists it", async () => {
      const user = await createdUser(ctx)
      const updated = await ctx.adapter().updateUser({ id: user.id, name: "Countess of Lovelace" })
      expect(updated).toMatchObject({ id: user.id, name: "Countess of Lovelace", email: user.email })
      expect((await ctx.adapter().getUser(user.id))?.name).toBe("Countess of Lovelace")
    })

    it("updateUser leaves fields it was not given unchanged", async () => {
      const user = await createdUser(ctx)
      await ctx.adapter().updateUser({ id: user.id, image: "https://example.com/new.png" })
      const read = await ctx.adapter().getUser(user.id)
      expect(read).toMatchObject({ name: user.name, email: user.email, image: "https://example.com/new.png" })
      expect(read?.emailVerified?.getTime()).toBe(user.emailVerified?.getTime())
    })

    it("updateUser sets emailVerified as a Date", async () => {
      const user = await createdUser(ctx, { emailVerified: null })
      const when = new Date("2025-01-02T03:04:05.006Z")
      const updated = await ctx.adapter().updateUser({ id: user.id, emailVerified: when })
      expect(updated.emailVerified?.getTime()).toBe(when.getTime())
      expect((await ctx.adapter().getUser(user.id))?.emailVerified?.getTime()).toBe(when.getTime())
    })

    it("updateUser can clear a field with null", async () => {
      const user = await createdUser(ctx)
      await ctx.adapter().updateUser({ id: user.id, name: null })
      expect((await ctx.adapter().getUser(user.id))?.name ?? null).toBeNull()
    })

    it("updateUser changing the email moves the email lookup", async () => {
      const user = await createdUser(ctx)
      const email = `New.Address-${uid()}@Example.com`
      await ctx.adapter().updateUser({ id: user.id, email })
      await expect(ctx.adapter().getUserByEmail(user.email!)).resolves.toBeNull()
      expect((await ctx.adapter().getUserByEmail(email.toLowerCase()))?.id).toBe(user.id)
    })

    it("updateUser rejects an email that another user has", async () => {
      const a = await createdUser(ctx)
      const b = await createdUser(ctx)
      await expect(ctx.adapter().updateUser({ id: b.id, email: a.email!.toUpperCase() })).rejects.toMatchObject({
        code: "adapter_conflict",
      })
      expect((await ctx.adapter().getUserByEmail(a.email!))?.id).toBe(a.id)
      expect((await ctx.adapter().getUserByEmail(b.email!))?.id).toBe(b.id)
    })

    it("updateUser rejects an unknown id", async () => {
      await expect(ctx.adapter().updateUser({ id: uid(), name: "ghost" })).rejects.toMatchObject({
        code: "adapter_not_found",
      })
    })

    it("deleteUser returns the deleted user and getUser then returns null", async () => {
      const user = await createdUser(ctx)
      const deleted = await ctx.adapter().deleteUser(user.id)
      expect(deleted).toMatchObject({ id: user.id, email: user.email })
      await expect(ctx.adapter().getUser(user.id)).resolves.toBeNull()
    })

    it("deleteUser of an unknown id resolves to nothing", async () => {
      expect((await ctx.adapter().deleteUser(uid())) ?? null).toBeNull()
    })

    it("deleteUser frees the email for a new user", async () => {
      const user = await createdUser(ctx)
      await ctx.adapter().deleteUser(user.id)
      await expect(ctx.adapter().getUserByEmail(user.email!)).resolves.toBeNull()
      const again = await ctx.adapter().createUser(aUser({ email: user.email }))
      expect((await ctx.adapter().getUserByEmail(user.email!))?.id).toBe(again.id)
    })

    it("deleteUser removes the user's accounts", async () => {
      const user = await createdUser(ctx)
      const account = await ctx.adapter().linkAccount(anAccount(user.id))
      await ctx.adapter().deleteUser(user.id)
      await expect(ctx.adapter().getAccount(account!.providerAccountId, "github")).resolves.toBeNull()
      await expect(ctx.adapter().getUserByAccount(account!)).resolves.toBeNull()
    })

    it("deleteUser removes the user's sessions", async () => {
      const user = await createdUser(ctx)
      const tokens = [uid(), uid()]
      for (const sessionToken of tokens) {
        await ctx.adapter().createSession({ sessionToken, userId: user.id, expires: inFuture() })
      }
      await ctx.adapter().deleteUser(user.id)
      for (const sessionToken of tokens) await expect(ctx.adapter().getSessionAndUser(sessionToken)).resolves.toBeNull()
    })

    it("deleteUser removes the user's authenticators", async () => {
      const user = await createdUser(ctx)
      const authenticator = await ctx.adapter().createAuthenticator(anAuthenticator(user.id))
      await ctx.adapter().deleteUser(user.id)
      await expect(ctx.adapter().getAuthenticator(authenticator.credentialID)).resolves.toBeNull()
      await expect(ctx.adapter().listAuthenticatorsByUserId(user.id)).resolves.toEqual([])
    })

    it("deleteUser leaves other users and their data alone", async () => {
      const doomed = await createdUser(ctx)
      const other = await createdUser(ctx)
      const account = anAccount(other.id)
      await ctx.adapter().linkAccount(account)
      const sessionToken = uid()
      await ctx.adapter().createSession({ sessionToken, userId: other.id, expires: inFuture() })
      await ctx.adapter().deleteUser(doomed.id)
      expect((await ctx.adapter().getUser(other.id))?.id).toBe(other.id)
      expect((await ctx.adapter().getUserByAccount(account))?.id).toBe(other.id)
      expect((await ctx.adapter().getSessionAndUser(sessionToken))?.user.id).toBe(other.id)
    })
  })
}
