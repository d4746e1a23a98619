// Contract cases for OIDC logout: the session's provider, OP session id, subject and auth time, and deleteSessionsByIdp.
import type { AdapterSession } from "../../../lib/storage/adapter"
import { createdUser, inFuture, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

export function idpSessionCases(ctx: ContractContext): void {
  describe("OIDC logout (idp columns, deleteSessionsByIdp)", () => {
    /** A session signed in through `provider` with the given OP session id and subject. */
    async function idpSession(
      userId: string,
      provider: string,
      idpSub: string,
      idpSid?: string,
    ): Promise<AdapterSession> {
      const session: AdapterSession = {
        sessionToken: uid(),
        userId,
        expires: inFuture(),
        provider,
        idpSub,
        ...(idpSid === undefined ? {} : { idpSid }),
        authTime: 1_900_000_123,
      }
      await ctx.adapter().createSession(session)
      return session
    }

    const tokens = (sessions: AdapterSession[]): string[] => sessions.map((s) => s.sessionToken).sort()
    const alive = async (session: AdapterSession): Promise<boolean> =>
      (await ctx.adapter().getSessionAndUser(session.sessionToken)) !== null

    it("createSession stores provider, idpSid, idpSub and authTime, and every read gives them back", async () => {
      const user = await createdUser(ctx)
      const session = await idpSession(user.id, "corp", `sub-${uid()}`, `sid-${uid()}`)
      expect((await ctx.adapter().getSessionAndUser(session.sessionToken))?.session).toEqual(session)
      expect(await ctx.adapter().listSessionsByUserId(user.id)).toEqual([session])
      expect(await ctx.adapter().deleteSession(session.sessionToken)).toEqual(session)
    })

    it("a session without a provider keeps the Auth.js shape", async () => {
      const user = await createdUser(ctx)
      const input = { sessionToken: uid(), userId: user.id, expires: inFuture() }
      await ctx.adapter().createSession(input)
      expect((await ctx.adapter().getSessionAndUser(input.sessionToken))?.session).toEqual(input)
    })

    it("by sid: deletes only that OP session of that provider, and resolves to the deleted rows", async () => {
      const user = await createdUser(ctx)
      const [sub, sid] = [`sub-${uid()}`, `sid-${uid()}`]
      const target = await idpSession(user.id, "corp", sub, sid)
      const sibling = await idpSession(user.id, "corp", sub, `sid-${uid()}`)
      const otherProvider = await idpSession(user.id, "other", sub, sid)
      const deleted = await ctx.adapter().deleteSessionsByIdp({ provider: "corp", idpSid: sid })
      expect(deleted).toEqual([target])
      expect(await alive(target)).toBe(false)
      expect(await alive(sibling)).toBe(true)
      expect(await alive(otherProvider)).toBe(true)
      await expect(ctx.adapter().deleteSessionsByIdp({ provider: "corp", idpSid: sid })).resolves.toEqual([])
    })

    it("by sid and sub: both must match", async () => {
      const user = await createdUser(ctx)
      const [sub, sid] = [`sub-${uid()}`, `sid-${uid()}`]
      const session = await idpSession(user.id, "corp", sub, sid)
      await expect(
        ctx.adapter().deleteSessionsByIdp({ provider: "corp", idpSid: sid, idpSub: `sub-${uid()}` }),
      ).resolves.toEqual([])
      expect(await alive(session)).toBe(true)
      await expect(ctx.adapter().deleteSessionsByIdp({ provider: "corp", idpSid: sid, idpSub: sub })).resolves.toEqual([
        session,
      ])
      expect(await alive(session)).toBe(false)
    })

    it("by sub: deletes every session of that subject at that provider, not another provider's or user's", async () => {
      const [ann, bob] = [await createdUser(ctx), await createdUser(ctx)]
      const sub = `sub-${uid()}`
      const mine = [
        await idpSession(ann.id, "corp", sub, `sid-${uid()}`),
        await idpSession(ann.id, "corp", sub, `sid-${uid()}`),
        await idpSession(ann.id, "corp", sub),
      ]
      const viaOther = await idpSession(ann.id, "other", sub, `sid-${uid()}`)
      const local = { sessionToken: uid(), userId: ann.id, expires: inFuture() }
      await ctx.adapter().createSession(local)
      const bobs = await idpSession(bob.id, "corp", `sub-${uid()}`, `sid-${uid()}`)
      const deleted = await ctx.adapter().deleteSessionsByIdp({ provider: "corp", idpSub: sub })
      expect(tokens(deleted)).toEqual(tokens(mine))
      for (const s of mine) expect(await alive(s)).toBe(false)
      expect(await alive(viaOther)).toBe(true)
      expect(await alive(bobs)).toBe(true)
      expect(await ctx.adapter().getSessionAndUser(local.sessionToken)).not.toBeNull()
      expect(tokens(await ctx.adapter().listSessionsByUserId(ann.id))).toEqual(
        tokens([viaOther, local as AdapterSession]),
      )
    })

    it("with neither sid nor sub it deletes nothing", async () => {
      const user = await createdUser(ctx)
      const session = await idpSession(user.id, "corp", `sub-${uid()}`, `sid-${uid()}`)
      await expect(ctx.adapter().deleteSessionsByIdp({ provider: "corp" })).resolves.toEqual([])
      expect(await alive(session)).toBe(true)
    })

    it("a session deleted otherwise (sign-out, user deletion) is not returned again", async () => {
      const user = await createdUser(ctx)
      const sub = `sub-${uid()}`
      const signedOut = await idpSession(user.id, "corp", sub, `sid-${uid()}`)
      const kept = await idpSession(user.id, "corp", sub, `sid-${uid()}`)
      await ctx.adapter().deleteSession(signedOut.sessionToken)
      await expect(ctx.adapter().deleteSessionsByIdp({ provider: "corp", idpSub: sub })).resolves.toEqual([kept])
      const other = await createdUser(ctx)
      const gone = await idpSession(other.id, "corp", `sub-${uid()}`, `sid-${uid()}`)
      await ctx.adapter().deleteUser(other.id)
      await expect(ctx.adapter().deleteSessionsByIdp({ provider: "corp", idpSid: gone.idpSid! })).resolves.toEqual([])
    })

    it("provider, sid and sub are matched exactly (no patterns, no case folding)", async () => {
      const user = await createdUser(ctx)
      const sid = `Sid-%_*?[x]-${uid()}`
      const session = await idpSession(user.id, "corp:x", `sub-${uid()}`, sid)
      await expect(
        ctx.adapter().deleteSessionsByIdp({ provider: "corp:x", idpSid: sid.toLowerCase() }),
      ).resolves.toEqual([])
      await expect(ctx.adapter().deleteSessionsByIdp({ provider: "corp", idpSid: sid })).resolves.toEqual([])
      await expect(ctx.adapter().deleteSessionsByIdp({ provider: "corp:x", idpSid: "Sid-%" })).resolves.toEqual([])
      expect(await alive(session)).toBe(true)
      await expect(ctx.adapter().deleteSessionsByIdp({ provider: "corp:x", idpSid: sid })).resolves.toEqual([session])
    })
  })
}
