// The Redis adapter's password rows: the account record `account:password:<userId>` (its JSON gains `passwordHash`
// and `passwordChangedAt` in epoch ms), written by one Lua script that reads, compares and writes.
import type { AdapterPasswordAccount, PasswordAdapter } from "../adapter"
import { missingUser } from "../internal/models"
import { PASSWORD_PROVIDER, passwordAccount } from "../internal/password"
import { durable } from "./keys"
import type { RedisContext } from "./keys"
import * as lua from "./scripts"

/**
 * KEYS: the password record. ARGV: mode (`any`, `absent`, `equal`), the expected hash, the new hash, the change time
 * in epoch ms (`""`: keep), the user id. Returns the record written, or false when the condition failed. One key, so
 * it runs on either key layout.
 */
const SET_PASSWORD = lua.script(`
local cur = redis.call('GET', KEYS[1])
local rec
if cur then
  if ARGV[1] == 'absent' then return false end
  rec = cjson.decode(cur)
  if ARGV[1] == 'equal' and rec.passwordHash ~= ARGV[2] then return false end
else
  if ARGV[1] == 'equal' then return false end
  rec = {userId = ARGV[5], type = 'password', provider = 'password', providerAccountId = ARGV[5]}
end
rec.passwordHash = ARGV[3]
if ARGV[4] ~= '' then rec.passwordChangedAt = tonumber(ARGV[4]) end
local json = cjson.encode(rec)
redis.call('SET', KEYS[1], json)
return json`)

const fromJson = (json: unknown): AdapterPasswordAccount | null => {
  if (typeof json !== "string") return null
  const record = JSON.parse(json) as { userId: string; passwordHash?: unknown; passwordChangedAt?: unknown }
  if (typeof record.passwordHash !== "string") return null
  return passwordAccount(record.userId, record.passwordHash, record.passwordChangedAt ?? null)
}

/** `getPasswordAccount` and `setPasswordHash`. */
export function passwordMethods(ctx: RedisContext): PasswordAdapter {
  const { client, key } = ctx
  const recordKey = (userId: string) => key.account({ provider: PASSWORD_PROVIDER, providerAccountId: userId })
  return {
    async getPasswordAccount(userId) {
      return fromJson(await client.get(recordKey(userId)))
    },
    async setPasswordHash(userId, passwordHash, options = {}) {
      if ((await client.exists(key.user(userId))) === 0) throw missingUser(userId)
      const { expected, changedAt } = options
      const mode = expected === undefined ? "any" : expected === null ? "absent" : "equal"
      const k = recordKey(userId)
      const written = await lua.run(
        client,
        SET_PASSWORD,
        [k],
        [mode, expected ?? "", passwordHash, changedAt ? String(new Date(changedAt).getTime()) : "", userId],
      )
      if (typeof written !== "string") return null
      // The row joins the user's accounts, so deleting the user deletes it.
      await client.sadd(key.accountsOf(userId), k)
      await durable(ctx, k)
      return fromJson(written)
    },
  }
}
