// The Redis adapter's WebAuthn authenticators, with the counter's compare-and-swap.
import type { AuthenticatorAdapter } from "../adapter"
import { conflict, copyAuthenticator, notFound } from "../internal/models"
import { durable, expectOk, reviveAuthenticator } from "./keys"
import type { RedisContext } from "./keys"
import * as lua from "./scripts"

/** The authenticator methods. */
export function authenticatorMethods(ctx: RedisContext): AuthenticatorAdapter {
  const { client, p, key } = ctx
  return {
    async getAuthenticator(credentialID) {
      const json = await client.get(key.authenticator(credentialID))
      return json === null ? null : reviveAuthenticator(json)
    },
    async createAuthenticator(authenticator) {
      const stored = copyAuthenticator(authenticator)
      const status = await lua.run(
        client,
        lua.CREATE_OWNED,
        [key.user(stored.userId), key.authenticator(stored.credentialID), key.authenticatorsOf(stored.userId)],
        [JSON.stringify(stored)],
      )
      expectOk(status, stored.userId, () => conflict("Authenticator", { credentialID: stored.credentialID }))
      return copyAuthenticator(stored)
    },
    async listAuthenticatorsByUserId(userId) {
      const list = await lua.run(client, lua.LIST_SET, [key.authenticatorsOf(userId)], [])
      return Array.isArray(list) ? list.map((json) => reviveAuthenticator(String(json))) : []
    },
    async updateAuthenticatorCounter(credentialID, newCounter, opts) {
      if (opts?.expected !== undefined) {
        const swapped = await lua.run(
          client,
          lua.SWAP_COUNTER,
          [key.authenticator(credentialID)],
          [newCounter, opts.expected, new Date().toISOString()],
        )
        if (typeof swapped !== "string") return null
        await durable(ctx, key.authenticator(credentialID))
        return reviveAuthenticator(swapped)
      }
      const json = await lua.run(client, lua.UPDATE_COUNTER, [key.authenticator(credentialID)], [newCounter])
      if (typeof json !== "string") throw notFound("Authenticator", credentialID)
      return reviveAuthenticator(json)
    },
    async deleteAuthenticator(credentialID) {
      const json = await lua.run(
        client,
        lua.DELETE_OWNED,
        [key.authenticator(credentialID)],
        [p, "user-authenticators"],
      )
      return typeof json === "string" ? reviveAuthenticator(json) : null
    },
    async updateAuthenticator(credentialID, patch) {
      const flag = (b: boolean): string => (b ? "1" : "")
      const json = await lua.run(
        client,
        lua.PATCH_AUTHENTICATOR,
        [key.authenticator(credentialID)],
        [
          flag(patch.name !== undefined),
          patch.name ?? "",
          flag(patch.name === null),
          flag(patch.lastUsedAt !== undefined),
          patch.lastUsedAt ? new Date(patch.lastUsedAt).toISOString() : "",
        ],
      )
      return typeof json === "string" ? reviveAuthenticator(json) : null
    },
  }
}
