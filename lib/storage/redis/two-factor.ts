// The Redis adapter's two-factor rows: JSON under `two-factor:<userId>` (no TTL), swapped only while unchanged.
import type { AdapterTwoFactor, TwoFactorAdapter } from "../adapter"
import { copyTwoFactor, patchedTwoFactor } from "../internal/models"
import { durable, MAX_RETRIES } from "./keys"
import type { RedisContext } from "./keys"
import * as lua from "./scripts"

const revive = (json: string): AdapterTwoFactor => copyTwoFactor(JSON.parse(json) as AdapterTwoFactor)

/** The two-factor methods (one key per user; in the cluster layout it shares the user's hash tag). */
export function twoFactorMethods(ctx: RedisContext): TwoFactorAdapter {
  const { client, key } = ctx
  return {
    async getTwoFactor(userId) {
      const json = await client.get(key.twoFactor(userId))
      return json === null ? null : revive(json)
    },
    async upsertTwoFactor(row) {
      const stored = { ...copyTwoFactor(row), version: 0 }
      await client.set(key.twoFactor(stored.userId), JSON.stringify(stored))
      await durable(ctx, key.twoFactor(stored.userId))
      return copyTwoFactor(stored)
    },
    async updateTwoFactor(userId, patch, { expectedVersion }) {
      const k = key.twoFactor(userId)
      for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
        const current = await client.get(k)
        if (current === null) return null
        const row = revive(current)
        if (row.version !== expectedVersion) return null
        const next = patchedTwoFactor(row, patch)
        // The script writes only while the stored JSON is still the one read (its version included).
        const status = await lua.run(client, lua.SWAP_ACCOUNT, [k], [current, JSON.stringify(next)])
        if (status === "missing") return null
        if (status !== "ok") continue
        await durable(ctx, k)
        return next
      }
      return null
    },
    async deleteTwoFactor(userId) {
      const json = await client.getdel(key.twoFactor(userId))
      if (json === null) return null
      await durable(ctx, key.twoFactor(userId))
      return revive(json)
    },
  }
}
