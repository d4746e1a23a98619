// Contract cases for database sessions: create, read with the user, update (also concurrently) and delete.
import { createdUser, inFuture, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

export function sessionCases(ctx: ContractContext): void {
  describe("sessions", () => {
    it("createSession returns the session with a Date expiry", async () => {
      const user = await createdUser(ctx)
      const input = { sessionToken: uid(), userId: user.id, expires: inFuture() }
      const session = await ctx.adapter().createSession(input)
      expect(session).toEqual(input)
      expect(session.expires).toBeInstanceOf(Date)
    })

    it("getSessionAndUser returns the session and its user", async () => {
      const user = await createdUser(ctx)
      const input = { sessionToken: uid(), userId: user.id, expires: inFuture() }
      await ctx.adapter().createSession(input)
      const found = await ctx.adapter().getSessionAndUser(input.sessionToken)
      expect(found?.session).toEqual(input)
      expect(found?.user).toMatchObject({ id: user.id, email: user.email, name: user.name })
      expect(found?.user.emailVerified?.getTime()).toBe(user.emailVerified?.getTime())
    })

    it("impersonatedBy round-trips through every read, and an update keeps it (accounts.md §6.1)", async () => {
      const user = await createdUser(ctx)
      const input = { sessionToken: uid(), userId: user.id, expires: inFuture(), impersonatedBy: "admin-1" }
      expect(await ctx.adapter().createSession(input)).toEqual(input)
      expect((await ctx.adapter().getSessionAndUser(input.sessionToken))?.session).toEqual(input)
      const later = new Date(input.expires.getTime() + 60_000)
      expect(await ctx.adapter().updateSession({ sessionToken: input.sessionToken, expires: later })).toEqual({
        ...input,
        expires: later,
      })
      expect(await ctx.adapter().deleteSession(input.sessionToken)).toMatchObject({ impersonatedBy: "admin-1" })
    })

    it("getSessionAndUser returns null for an unknown token", async () => {
      await expect(ctx.adapter().getSessionAndUser(uid())).resolves.toBeNull()
    })

    it("session expiry round-trips to the millisecond", async () => {
      const user = await createdUser(ctx)
      const expires = new Date(Date.now() + 30 * 86_400_000 + 123)
      const sessionToken = uid()
      await ctx.adapter().createSession({ sessionToken, userId: user.id, expires })
      expect((await ctx.adapter().getSessionAndUser(sessionToken))?.session.expires.getTime()).toBe(expires.getTime())
    })

    it("createSession rejects an unknown user", async () => {
      const sessionToken = uid()
      await expect(ctx.adapter().createSession({ sessionToken, userId: uid(), expires: inFuture() })).rejects.toThrow()
      await expect(ctx.adapter().getSessionAndUser(sessionToken)).resolves.toBeNull()
    })

    it("updateSession extends the expiry and returns the updated session", async () => {
      const user = await createdUser(ctx)
      const sessionToken = uid()
      await ctx.adapter().createSession({ sessionToken, userId: user.id, expires: inFuture(60_000) })
      const later = inFuture(7_200_000)
      const updated = await ctx.adapter().updateSession({ sessionToken, expires: later })
      expect(updated).toEqual({ sessionToken, userId: user.id, expires: later })
      expect((await ctx.adapter().getSessionAndUser(sessionToken))?.session.expires.getTime()).toBe(later.getTime())
    })

    it("updateSession without expires keeps the expiry", async () => {
      const user = await createdUser(ctx)
      const expires = inFuture()
      const sessionToken = uid()
      await ctx.adapter().createSession({ sessionToken, userId: user.id, expires })
      const updated = await ctx.adapter().updateSession({ sessionToken })
      expect(updated && updated.expires.getTime()).toBe(expires.getTime())
    })

    it("updateSession of an unknown token resolves to nothing and creates nothing", async () => {
      const sessionToken = uid()
      expect((await ctx.adapter().updateSession({ sessionToken, expires: inFuture() })) ?? null).toBeNull()
      await expect(ctx.adapter().getSessionAndUser(sessionToken)).resolves.toBeNull()
    })

    it("updateSession never brings back a deleted session", async () => {
      const user = await createdUser(ctx)
      const sessionToken = uid()
      await ctx.adapter().createSession({ sessionToken, userId: user.id, expires: inFuture() })
      await ctx.adapter().deleteSession(sessionToken)
      expect((await ctx.adapter().updateSession({ sessionToken, expires: inFuture() })) ?? null).toBeNull()
      await expect(ctx.adapter().getSessionAndUser(sessionToken)).resolves.toBeNull()
    })

    it("concurrent updateSession calls all succeed and one of them wins", async () => {
      const user = await createdUser(ctx)
      const sessionToken = uid()
      await ctx.adapter().createSession({ sessionToken, userId: user.id, expires: inFuture(1000) })
      const candidates = Array.from({ length: 10 }, (_, i) => inFuture(3_600_000 + i * 1000))
      const results = await Promise.all(
        candidates.map((expires) => ctx.adapter().updateSession({ sessionToken, expires })),
      )
      results.forEach((result, i) => expect(result).toEqual({ sessionToken, userId: user.id, expires: candidates[i] }))
      const final = (await ctx.adapter().getSessionAndUser(sessionToken))?.session.expires.getTime()
      expect(candidates.map((d) => d.getTime())).toContain(final)
    })

    it("concurrent updates racing a delete leave the session deleted", async () => {
      const user = await createdUser(ctx)
      const sessionToken = uid()
      await ctx.adapter().createSession({ sessionToken, userId: user.id, expires: inFuture() })
      await ctx.adapter().deleteSession(sessionToken)
      await Promise.all(
        Array.from({ length: 5 }, () => ctx.adapter().updateSession({ sessionToken, expires: inFuture() })),
      )
      await expect(ctx.adapter().getSessionAndUser(sessionToken)).resolves.toBeNull()
    })

    it("deleteSession returns the deleted session, after which it is gone", async () => {
      const user = await createdUser(ctx)
      const input = { sessionToken: uid(), userId: user.id, expires: inFuture() }
      await ctx.adapter().createSession(input)
      expect(await ctx.adapter().deleteSession(input.sessionToken)).toEqual(input)
      await expect(ctx.adapter().getSessionAndUser(input.sessionToken)).resolves.toBeNull()
      expect((await ctx.adapter().deleteSession(input.sessionToken)) ?? null).toBeNull()
    })

    it("deleteSession of an unknown token resolves to nothing", async () => {
      expect((await ctx.adapter().deleteSession(uid())) ?? null).toBeNull()
    })

    it("a user can have several sessions; deleting one keeps the others", async () => {
      const user = await createdUser(ctx)
      const [a, b] = [uid(), uid()]
      await ctx.adapter().createSession({ sessionToken: a, userId: user.id, expires: inFuture() })
      await ctx.adapter().createSession({ sessionToken: b, userId: user.id, expires: inFuture() })
      await ctx.adapter().deleteSession(a)
      await expect(ctx.adapter().getSessionAndUser(a)).resolves.toBeNull()
      expect((await ctx.adapter().getSessionAndUser(b))?.user.id).toBe(user.id)
    })

    it("getSessionAndUser sees the user's latest data", async () => {
      const user = await createdUser(ctx)
      const sessionToken = uid()
      await ctx.adapter().createSession({ sessionToken, userId: user.id, expires: inFuture() })
      await ctx.adapter().updateUser({ id: user.id, name: "Renamed ✓" })
      expect((await ctx.adapter().getSessionAndUser(sessionToken))?.user.name).toBe("Renamed ✓")
    })

    it("an expired session is returned for the core to delete, or already gone (TTL stores)", async () => {
      const user = await createdUser(ctx)
      const sessionToken = uid()
      const expires = new Date(Date.now() - 1000)
      await ctx.adapter().createSession({ sessionToken, userId: user.id, expires })
      const found = await ctx.adapter().getSessionAndUser(sessionToken)
      if (ctx.expiresByTTL) expect(found).toBeNull()
      else expect(found?.session.expires.getTime()).toBe(expires.getTime())
      await ctx.adapter().deleteSession(sessionToken)
      await expect(ctx.adapter().getSessionAndUser(sessionToken)).resolves.toBeNull()
    })
  })
}
