// The Redis adapter's audit trail: `audit:<id>` (JSON, expiring with retention), the sorted sets `audit-all` and
// `audit-user:<userId>` (score = at in ms, member = id). Equal scores come back in reverse member order, which is the
// contract's id descending. Each command touches one key, so the layout works on a cluster as on a single node.
import type { AdapterAuditEvent, AuditAdapter, AuditEventFilter } from "../adapter"
import { conflict } from "../internal/models"
import { copyAuditEvent, matchesAuditFilter } from "../internal/audit"
import type { RedisContext } from "./keys"

/** Members read per page of a listing, and the most pages one listing reads (a type filter may skip many). */
const PAGE = 100
const MAX_PAGES = 10

const revive = (json: string): AdapterAuditEvent => {
  const parsed = JSON.parse(json) as AdapterAuditEvent
  return copyAuditEvent({ ...parsed, at: new Date(parsed.at) })
}

/** The audit methods under the adapter's prefix. */
export function auditMethods(ctx: RedisContext): AuditAdapter {
  const { client, p } = ctx
  const eventKey = (id: string) => `${p}audit:${id}`
  const all = `${p}audit-all`
  const ofUser = (userId: string) => `${p}audit-user:${encodeURIComponent(userId)}`

  async function page(set: string, maxScore: number, offset: number): Promise<Array<[string, number]>> {
    const raw = await client.zrevrangebyscore(set, maxScore, "-inf", "WITHSCORES", "LIMIT", offset, PAGE)
    const out: Array<[string, number]> = []
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, Number(raw[i + 1])])
    return out
  }

  return {
    async createAuditEvent(event, options = {}) {
      const stored = copyAuditEvent(event)
      const at = stored.at.getTime()
      const expires = options.expires ? new Date(options.expires).getTime() : undefined
      const json = JSON.stringify(stored)
      const set =
        expires !== undefined && expires > Date.now()
          ? await client.set(eventKey(stored.id), json, "PXAT", expires, "NX")
          : await client.set(eventKey(stored.id), json, "NX")
      if (set !== "OK") throw conflict("Audit event", { id: stored.id })
      await client.zadd(all, at, stored.id)
      if (stored.userId !== null) await client.zadd(ofUser(stored.userId), at, stored.id)
      return stored
    },
    async listAuditEvents(filter: AuditEventFilter) {
      const set = filter.userId !== undefined ? ofUser(filter.userId) : all
      const maxScore = filter.before ? new Date(filter.before.at).getTime() : Number.POSITIVE_INFINITY
      const out: AdapterAuditEvent[] = []
      let offset = 0
      for (let n = 0; n < MAX_PAGES && out.length < filter.limit; n++) {
        const members = await page(set, maxScore, offset)
        if (members.length === 0) break
        offset += members.length
        const values = await Promise.all(members.map(([id]) => client.get(eventKey(id))))
        const gone: string[] = []
        members.forEach(([id], i) => {
          const json = values[i]
          if (json === null || json === undefined) return void gone.push(id)
          const event = revive(json)
          if (out.length < filter.limit && matchesAuditFilter(event, filter)) out.push(event)
        })
        // Records that expired with retention leave their members behind: drop them on the way.
        if (gone.length > 0) await client.zrem(set, ...gone)
        offset -= gone.length
        if (members.length < PAGE) break
      }
      return out
    },
    async deleteAuditEvents({ before }) {
      const cut = new Date(before).getTime()
      let count = 0
      for (;;) {
        const ids = await client.zrangebyscore(all, "-inf", `(${cut}`, "LIMIT", 0, PAGE)
        if (ids.length === 0) break
        const values = await Promise.all(ids.map((id) => client.get(eventKey(id))))
        const users = new Set<string>()
        values.forEach((json) => {
          if (typeof json !== "string") return
          count++
          const userId = (JSON.parse(json) as AdapterAuditEvent).userId
          if (userId !== null) users.add(userId)
        })
        for (const userId of users) await client.zremrangebyscore(ofUser(userId), "-inf", `(${cut}`)
        for (const id of ids) await client.del(eventKey(id))
        await client.zrem(all, ...ids)
      }
      return count
    },
  }
}
