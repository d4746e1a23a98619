// Contract cases for session management: the optional session columns, listing and bulk-deleting a user's sessions.
import { createdUser, inFuture, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

export function sessionManagementCases(ctx: ContractContext): void {
  describe("session management", () => {
    it("createSession stores createdAt, lastActiveAt and userAgent, and reads them back", async () => {
      const user = await createdUser(ctx)
      const createdAt = new Date(Date.now() - 5000)
      const input = {
        sessionToken: uid(),
        userId: user.id,
        expires: inFuture(),
        createdAt,
        lastActiveAt: createdAt,
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) ☃",
      }
      await ctx.adapter().createSession(input)
      const found = await ctx.adapter().getSessionAndUser(input.sessionToken)
      expect(found?.session).toEqual(input)
    })

    it("updateSession bumps lastActiveAt and keeps the other columns", async () => {
      const user = await createdUser(ctx)
      const createdAt = new Date(Date.now() - 60_000)
      const sessionToken = uid()
      await ctx.adapter().createSession({
        sessionToken,
        userId: user.id,
        expires: inFuture(),
        createdAt,
        lastActiveAt: createdAt,
        userAgent: "agent",
      })
      const now = new Date()
      const later = inFuture(7_200_000)
      await ctx.adapter().updateSession({ sessionToken, expires: later, lastActiveAt: now })
      const found = await ctx.adapter().getSessionAndUser(sessionToken)
      expect(found?.session).toEqual({
        sessionToken,
        userId: user.id,
        expires: later,
        createdAt,
        lastActiveAt: now,
        userAgent: "agent",
      })
    })

    it("listSessionsByUserId lists the user's sessions only", async () => {
      const [ann, bob] = [await createdUser(ctx), await createdUser(ctx)]
      const mine = [uid(), uid(), uid()]
      for (const sessionToken of mine) {
        await ctx.adapter().createSession({ sessionToken, userId: ann.id, expires: inFuture(), createdAt: new Date() })
      }
      await ctx.adapter().createSession({ sessionToken: uid(), userId: bob.id, expires: inFuture() })
      const listed = await ctx.adapter().listSessionsByUserId(ann.id)
      expect(listed.map((s) => s.sessionToken).sort()).toEqual([...mine].sort())
      listed.forEach((s) => expect(s.createdAt).toBeInstanceOf(Date))
      await expect(ctx.adapter().listSessionsByUserId(uid())).resolves.toEqual([])
    })

    it("deleteSessions deletes the user's sessions except one and counts them; other users keep theirs", async () => {
      const [ann, bob] = [await createdUser(ctx), await createdUser(ctx)]
      const [keep, a, b] = [uid(), uid(), uid()]
      for (const sessionToken of [keep, a, b]) {
        await ctx.adapter().createSession({ sessionToken, userId: ann.id, expires: inFuture() })
      }
      const bobs = uid()
      await ctx.adapter().createSession({ sessionToken: bobs, userId: bob.id, expires: inFuture() })
      await expect(ctx.adapter().deleteSessions({ userId: ann.id, exceptToken: keep })).resolves.toBe(2)
      expect((await ctx.adapter().listSessionsByUserId(ann.id)).map((s) => s.sessionToken)).toEqual([keep])
      await expect(ctx.adapter().getSessionAndUser(a)).resolves.toBeNull()
      await expect(ctx.adapter().deleteSessions({ userId: ann.id })).resolves.toBe(1)
      await expect(ctx.adapter().getSessionAndUser(keep)).resolves.toBeNull()
      await expect(ctx.adapter().deleteSessions({ userId: ann.id })).resolves.toBe(0)
      await expect(ctx.adapter().getSessionAndUser(bobs)).resolves.not.toBeNull()
    })
  })
}
