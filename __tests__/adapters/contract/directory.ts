// Contract cases for the administration reads (accounts.md §6.1, §6.3, §6.4): listUsers order, prefix, exact id,
// cursor, a walk with inserts and deletes; listAccountsByUserId; deleteUser takes the user's verification tokens.
import { anAccount, aToken, aUser, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"
import type { AdapterUser } from "../../../lib/storage/adapter"

const keyOf = (u: AdapterUser) => ({ emailKey: u.email ? u.email.toLowerCase() : null, id: u.id })

export function directoryCases(ctx: ContractContext): void {
  describe("user directory", () => {
    it("listUsers orders by lower-cased email then id, filters by prefix (case-insensitive) or exact id", async () => {
      const tag = `dir${uid().slice(0, 8)}`
      const a = aUser({ email: `${tag}-b@example.com` })
      const b = aUser({ email: `${tag.toUpperCase()}-A@example.com` })
      const c = aUser({ email: `${tag}-c@example.com` })
      for (const u of [a, b, c]) await ctx.adapter().createUser(u)
      const listed = await ctx.adapter().listUsers({ emailPrefix: tag, limit: 10 })
      expect(listed.map((u) => u.id)).toEqual([b.id, a.id, c.id])
      const byId = await ctx.adapter().listUsers({ id: c.id, limit: 10 })
      expect(byId.map((u) => u.id)).toEqual([c.id])
      const either = await ctx.adapter().listUsers({ emailPrefix: `${tag}-a`, id: c.id, limit: 10 })
      expect(either.map((u) => u.id)).toEqual([b.id, c.id])
      expect(await ctx.adapter().listUsers({ emailPrefix: `${tag}%`, limit: 10 })).toEqual([])
      expect(await ctx.adapter().listUsers({ emailPrefix: `${tag}_`, limit: 10 })).toEqual([])
    })

    it("listUsers walks with `after`, never repeating, with inserts and deletes during the walk", async () => {
      const tag = `walk${uid().slice(0, 8)}`
      const users = [0, 1, 2, 3, 4].map((n) => aUser({ email: `${tag}-${n}@example.com` }))
      for (const u of users) await ctx.adapter().createUser(u)
      const first = await ctx.adapter().listUsers({ emailPrefix: tag, limit: 2 })
      expect(first.map((u) => u.id)).toEqual([users[0]!.id, users[1]!.id])
      await ctx.adapter().deleteUser(users[2]!.id)
      await ctx.adapter().createUser(aUser({ email: `${tag}-0a@example.com` }))
      const second = await ctx.adapter().listUsers({ emailPrefix: tag, limit: 2, after: keyOf(first[1]!) })
      expect(second.map((u) => u.id)).toEqual([users[3]!.id, users[4]!.id])
      expect(await ctx.adapter().listUsers({ emailPrefix: tag, limit: 2, after: keyOf(second[1]!) })).toEqual([])
    })

    it("users without an email come after those with one, by id", async () => {
      const noEmail = aUser({ email: null, id: `zzzz-${uid()}` })
      await ctx.adapter().createUser(noEmail)
      const found = await ctx.adapter().listUsers({ id: noEmail.id, limit: 5 })
      expect(found.map((u) => u.id)).toEqual([noEmail.id])
      const afterLastEmail = await ctx.adapter().listUsers({
        id: noEmail.id,
        limit: 5,
        after: { emailKey: "\uffff", id: "" },
      })
      expect(afterLastEmail.map((u) => u.id)).toEqual([noEmail.id])
      expect(await ctx.adapter().listUsers({ id: noEmail.id, limit: 5, after: keyOf(noEmail) })).toEqual([])
    })

    it("listAccountsByUserId answers every account of the user, tokens included, and no other user's", async () => {
      const user = await ctx.adapter().createUser(aUser())
      const other = await ctx.adapter().createUser(aUser())
      const gh = anAccount(user.id, { provider: "github" })
      const idp = anAccount(user.id, { provider: "idp", type: "oidc" })
      await ctx.adapter().linkAccount(gh)
      await ctx.adapter().linkAccount(idp)
      await ctx.adapter().linkAccount(anAccount(other.id))
      const accounts = await ctx.adapter().listAccountsByUserId(user.id)
      expect(accounts.map((a) => a.provider)).toEqual(["github", "idp"])
      expect(accounts[0]).toMatchObject({ providerAccountId: gh.providerAccountId, access_token: "gho_access" })
      expect(await ctx.adapter().listAccountsByUserId(uid())).toEqual([])
    })

    it("deleteUser removes the tokens of the user's email in any case and its password links, and no other's", async () => {
      const tag = uid().slice(0, 8)
      const email = `Mixed-${tag}@Example.com`
      const user = await ctx.adapter().createUser(aUser({ email }))
      const otherEmail = `other-${tag}@example.com`
      await ctx.adapter().createUser(aUser({ email: otherEmail }))
      const lower = email.toLowerCase()
      const doomed = [
        aToken({ identifier: email }),
        aToken({ identifier: email.toUpperCase() }),
        aToken({ identifier: `gatehouse:verify-email:${lower}` }),
        aToken({ identifier: `gatehouse:password-reset:${email.toUpperCase()}` }),
      ]
      const kept = [
        aToken({ identifier: otherEmail }),
        aToken({ identifier: `gatehouse:password-reset:${otherEmail}` }),
        aToken({ identifier: `gatehouse:other:${lower}` }),
        aToken({ identifier: `x${lower}` }),
      ]
      for (const t of [...doomed, ...kept]) await ctx.adapter().createVerificationToken(t)
      await ctx.adapter().deleteUser(user.id)
      for (const t of doomed) {
        const used = await ctx.adapter().useVerificationToken({ identifier: t.identifier, token: t.token })
        expect([t.identifier, used ?? null]).toEqual([t.identifier, null])
      }
      for (const t of kept) {
        const used = await ctx.adapter().useVerificationToken({ identifier: t.identifier, token: t.token })
        expect([t.identifier, used?.token]).toEqual([t.identifier, t.token])
      }
    })

    it("deleteUser removes the tokens of a non-ASCII address in another case too", async () => {
      const email = `ÉLODIE-${uid().slice(0, 8)}@CAFÉ.example`
      const user = await ctx.adapter().createUser(aUser({ email }))
      const doomed = [
        aToken({ identifier: email.toLowerCase() }),
        aToken({ identifier: `gatehouse:password-reset:${email}` }),
      ]
      for (const t of doomed) await ctx.adapter().createVerificationToken(t)
      await ctx.adapter().deleteUser(user.id)
      for (const t of doomed) {
        const used = await ctx.adapter().useVerificationToken({ identifier: t.identifier, token: t.token })
        expect([t.identifier, used ?? null]).toEqual([t.identifier, null])
      }
    })

    it("banExpires round-trips as a Date, reason and expiry clear with null, and every getUser* reads the fields", async () => {
      const until = new Date("2031-01-02T03:04:05.678Z")
      const user = await ctx
        .adapter()
        .createUser(aUser({ role: "editor", banned: true, banReason: "spam", banExpires: until }))
      expect(user).toMatchObject({ role: "editor", banned: true, banReason: "spam", banExpires: until })
      const account = anAccount(user.id)
      await ctx.adapter().linkAccount(account)
      const reads = [
        await ctx.adapter().getUser(user.id),
        await ctx.adapter().getUserByEmail(user.email!),
        await ctx.adapter().getUserByAccount(account),
        (await ctx.adapter().listUsers({ id: user.id, limit: 1 }))[0],
      ]
      for (const read of reads) {
        expect(read).toMatchObject({ role: "editor", banned: true, banReason: "spam" })
        expect(read?.banExpires).toBeInstanceOf(Date)
        expect(read?.banExpires?.getTime()).toBe(until.getTime())
      }
      const cleared = await ctx.adapter().updateUser({ id: user.id, banned: false, banReason: null, banExpires: null })
      expect(cleared).toMatchObject({ role: "editor", banned: false, banReason: null, banExpires: null })
      expect(await ctx.adapter().getUser(user.id)).toMatchObject({ banned: false, banReason: null, banExpires: null })
    })

    it("role and ban fields round-trip through createUser and updateUser", async () => {
      const user = await ctx.adapter().createUser(aUser({ role: "admin", banned: false }))
      expect(await ctx.adapter().getUser(user.id)).toMatchObject({ role: "admin", banned: false })
      await ctx.adapter().updateUser({ id: user.id, banned: true, banReason: "r", role: null })
      expect(await ctx.adapter().getUser(user.id)).toMatchObject({ banned: true, banReason: "r", role: null })
    })
  })
}
