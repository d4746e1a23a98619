// The Redis adapter's directory reads. `listUsers` scans the user records (every master of a cluster) and orders them
// in the client; `listAccountsByUserId` reads the user's account set.
import type { Cluster, Redis } from "ioredis"
import type { AdapterUser, UserDirectoryAdapter } from "../adapter"
import { listUsersIn } from "../internal/models"
import { reviveAccount, reviveUser } from "./keys"
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

/** The directory methods under the adapter's prefix. */
export function directoryMethods(ctx: RedisContext): UserDirectoryAdapter {
  const { client, p, key } = ctx
  const nodes = (): Redis[] =>
    "nodes" in client && typeof (client as Cluster).nodes === "function"
      ? (client as Cluster).nodes("master")
      : [client as Redis]
  return {
    async listUsers(filter) {
      const keys = (await Promise.all(nodes().map((node) => scanKeys(node, `${glob(p)}user:*`)))).flat()
      const values = await Promise.all(keys.map((k) => client.get(k)))
      const users: AdapterUser[] = values.filter((v): v is string => typeof v === "string").map(reviveUser)
      return listUsersIn(users, filter)
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
