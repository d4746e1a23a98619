// Contract cases for the audit trail (accounts.md §6.1, §6.4): create/list/filter/cursor/prune on every adapter.
import { randomBytes } from "node:crypto"
import type { AdapterAuditEvent } from "../../../lib/storage/adapter"
import { uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

const eventId = (): string => randomBytes(16).toString("base64url")

function anEvent(overrides: Partial<AdapterAuditEvent> = {}): AdapterAuditEvent {
  return {
    id: eventId(),
    type: "signin",
    at: new Date(),
    userId: uid(),
    actorId: null,
    ip: "192.0.2.0/24",
    userAgent: "Mozilla/5.0",
    provider: "github",
    outcome: "success",
    reason: null,
    details: { newUser: false },
    ...overrides,
  }
}

export function auditCases(ctx: ContractContext): void {
  describe("audit events", () => {
    it("an event round-trips with every field, `at` to the millisecond", async () => {
      const event = anEvent({
        at: new Date("2026-03-04T05:06:07.891Z"),
        actorId: uid(),
        outcome: "failure",
        reason: "AccountBanned",
        details: { expiresAt: null, newUser: true, count: 3, operation: "banUser" },
      })
      await ctx.adapter().createAuditEvent(event)
      const [found] = await ctx.adapter().listAuditEvents({ userId: event.userId!, limit: 10 })
      expect(found).toEqual(event)
      expect(found?.at).toBeInstanceOf(Date)
    })

    it("an event without user, details or optional fields keeps them null", async () => {
      const event = anEvent({ userId: null, ip: null, userAgent: null, provider: null, details: null, type: uid() })
      await ctx.adapter().createAuditEvent(event)
      const found = await ctx.adapter().listAuditEvents({ type: event.type, limit: 10 })
      expect(found).toEqual([event])
    })

    it("a second event with the same id is refused", async () => {
      const event = anEvent()
      await ctx.adapter().createAuditEvent(event)
      await expect(Promise.resolve(ctx.adapter().createAuditEvent({ ...event }))).rejects.toThrow()
      expect(await ctx.adapter().listAuditEvents({ userId: event.userId!, limit: 10 })).toHaveLength(1)
    })

    it("lists one user's events newest first by (at, id), and walks them with `before` without repeating", async () => {
      const userId = uid()
      const base = Date.now() - 60_000
      const events = [
        anEvent({ userId, at: new Date(base) }),
        anEvent({ userId, at: new Date(base + 1000), id: `A${eventId().slice(1)}` }),
        anEvent({ userId, at: new Date(base + 1000), id: `B${eventId().slice(1)}` }),
        anEvent({ userId, at: new Date(base + 2000), type: "signout" }),
      ]
      for (const event of events) await ctx.adapter().createAuditEvent(event)
      await ctx.adapter().createAuditEvent(anEvent({ at: new Date(base + 1500) }))
      const expected = [events[3], events[2], events[1], events[0]].map((e) => e!.id)
      const first = await ctx.adapter().listAuditEvents({ userId, limit: 2 })
      expect(first.map((e) => e.id)).toEqual(expected.slice(0, 2))
      const last = first[first.length - 1]!
      const second = await ctx.adapter().listAuditEvents({ userId, limit: 2, before: { at: last.at, id: last.id } })
      expect(second.map((e) => e.id)).toEqual(expected.slice(2))
      const end = second[second.length - 1]!
      expect(await ctx.adapter().listAuditEvents({ userId, limit: 2, before: { at: end.at, id: end.id } })).toEqual([])
    })

    it("filters by type, alone and with a user", async () => {
      const userId = uid()
      const type = `test.${uid()}`
      const mine = anEvent({ userId, type })
      await ctx.adapter().createAuditEvent(mine)
      await ctx.adapter().createAuditEvent(anEvent({ userId }))
      await ctx.adapter().createAuditEvent(anEvent({ type }))
      expect((await ctx.adapter().listAuditEvents({ userId, type, limit: 10 })).map((e) => e.id)).toEqual([mine.id])
      expect(await ctx.adapter().listAuditEvents({ type, limit: 10 })).toHaveLength(2)
    })

    it("the unfiltered listing is newest first and honours the limit", async () => {
      const newest = anEvent({ at: new Date(Date.now() + 3_600_000) })
      await ctx.adapter().createAuditEvent(newest)
      const listed = await ctx.adapter().listAuditEvents({ limit: 3 })
      expect(listed).toHaveLength(3)
      expect(listed[0]!.id).toBe(newest.id)
      for (let i = 1; i < listed.length; i++) {
        expect(listed[i - 1]!.at.getTime()).toBeGreaterThanOrEqual(listed[i]!.at.getTime())
      }
    })

    it("deleteAuditEvents removes the events older than `before` and counts them", async () => {
      const userId = uid()
      const old = anEvent({ userId, at: new Date(Date.now() - 100 * 86_400_000) })
      const recent = anEvent({ userId })
      await ctx.adapter().createAuditEvent(old, { expires: new Date(Date.now() + 60_000) })
      await ctx.adapter().createAuditEvent(recent)
      const count = await ctx.adapter().deleteAuditEvents({ before: new Date(Date.now() - 90 * 86_400_000) })
      expect(count).toBeGreaterThanOrEqual(1)
      expect((await ctx.adapter().listAuditEvents({ userId, limit: 10 })).map((e) => e.id)).toEqual([recent.id])
    })
  })
}
