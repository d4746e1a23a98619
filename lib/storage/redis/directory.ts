// The Redis adapter's directory reads. `listUsers` walks the `users-by-email` sorted set with `ZRANGEBYLEX` (the
// listing order, the prefix search and the cursor, without a scan); `listAccountsByUserId` reads the user's account set.
import type { Cluster, Redis } from "ioredis"
import type { AdapterUser, UserCursor, UserDirectoryAdapter } from "../adapter"
import { compareUsers, emailKey } from "../internal/models"
import { directoryMember, directoryMemberOf, reviveAccount, reviveUser } from "./keys"
import type { RedisContext } from "./keys"

const glob = (value: string): string => value.replace(/[*?[\]\\]/g, (c) => `\\${c}`)

async function scanKeys(node: Redis, pattern: string): Promise<string[]> {
  const out: string[] = []
  let cursor = "0"
  do {
    const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 500)
    cursor = next
    out.push(...keys)
  } while (cursor !== "0")
  return out
}

/** A `ZRANGEBYLEX` bound: `[` (inclusive) or `(` (exclusive) before the member bytes. */
const bound = (kind: "[" | "(", member: Buffer): Buffer => Buffer.concat([Buffer.from(kind), member])

/** The id in a member (after the first 0 byte). */
const idOf = (member: Buffer): string => member.subarray(member.indexOf(0) + 1).toString("utf8")

/** The directory methods under the adapter's prefix. */
export function directoryMethods(ctx: RedisContext): UserDirectoryAdapter {
  const { client, p, key } = ctx
  const nodes = (): Redis[] =>
    "nodes" in client && typeof (client as Cluster).nodes === "function"
      ? (client as Cluster).nodes("master")
      : [client as Redis]
  let complete = false

  /**
   * Data written before the set existed: once per key space, every stored user is added to it (scanning each master),
   * then the mark is set. Writes meanwhile maintain the set themselves, and adding a member twice changes nothing.
   */
  const backfill = async (): Promise<void> => {
    if (complete || (await client.exists(key.usersByEmailReady)) === 1) {
      complete = true
      return
    }
    const keys = (await Promise.all(nodes().map((node) => scanKeys(node, `${glob(p)}user:*`)))).flat()
    for (let i = 0; i < keys.length; i += 500) {
      const values = await Promise.all(keys.slice(i, i + 500).map((k) => client.get(k)))
      const members = values
        .filter((v): v is string => typeof v === "string")
        .map((v) => directoryMemberOf(reviveUser(v)))
      if (members.length > 0) await client.zadd(key.usersByEmail, ...members.flatMap((m) => [0, m] as const))
    }
    await client.set(key.usersByEmailReady, "1")
    complete = true
  }

  /** The users listed from `min` to `max`, in order, skipping members whose user is gone or has another email. */
  const walk = async (min: Buffer | string, max: Buffer | string, limit: number): Promise<AdapterUser[]> => {
    const out: AdapterUser[] = []
    let from = min
    while (out.length < limit) {
      const want = limit - out.length
      const members = await client.zrangebylexBuffer(key.usersByEmail, from, max, "LIMIT", 0, want)
      if (members.length === 0) break
      const values = await Promise.all(members.map((m) => client.get(key.user(idOf(m)))))
      members.forEach((member, i) => {
        const json = values[i]
        if (typeof json !== "string") return
        const user = reviveUser(json)
        if (directoryMemberOf(user).equals(member)) out.push(user)
      })
      if (members.length < want) break
      from = bound("(", members[members.length - 1]!)
    }
    return out
  }

  const after = (cursor: UserCursor | undefined, user: AdapterUser): boolean =>
    !cursor || compareUsers({ emailKey: emailKey(user.email), id: user.id }, cursor) > 0

  return {
    async listUsers(filter) {
      const cursor = filter.after
      const byId = async (): Promise<AdapterUser[]> => {
        const json = filter.id === undefined ? null : await client.get(key.user(filter.id))
        const user = typeof json === "string" ? reviveUser(json) : null
        return user && after(cursor, user) ? [user] : []
      }
      if (filter.emailPrefix === undefined && filter.id !== undefined) return byId()
      await backfill()
      const start = cursor ? directoryMember(cursor.emailKey, cursor.id) : null
      let min: Buffer | string = start ? bound("(", start) : "-"
      let max: Buffer | string = "+"
      if (filter.emailPrefix !== undefined) {
        const prefix = Buffer.from(filter.emailPrefix, "utf8")
        if (!start || Buffer.compare(prefix, start) > 0) min = bound("[", prefix)
        // No UTF-8 text holds the byte 0xFF: every member that starts with the prefix sorts before this.
        max = bound("(", Buffer.concat([prefix, Buffer.from([0xff])]))
      }
      const listed = await walk(min, max, filter.limit)
      if (filter.id === undefined) return listed
      const extra = (await byId()).filter((u) => !listed.some((l) => l.id === u.id))
      const order = (u: AdapterUser) => ({ emailKey: emailKey(u.email), id: u.id })
      return [...listed, ...extra].sort((a, b) => compareUsers(order(a), order(b))).slice(0, filter.limit)
    },
    async listAccountsByUserId(userId) {
      const members = await client.smembers(key.accountsOf(userId))
      const values = await Promise.all(members.map((member) => client.get(member)))
      return values
        .filter((v): v is string => typeof v === "string")
        .map(reviveAccount)
        .filter((a) => a.userId === userId)
        .sort((a, b) =>
          a.provider === b.provider
            ? a.providerAccountId < b.providerAccountId
              ? -1
              : 1
            : a.provider < b.provider
              ? -1
              : 1,
        )
    },
  }
}
