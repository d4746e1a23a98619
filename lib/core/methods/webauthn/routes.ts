/** The optional passkey routes (`features.passkeyRoutes`): GET <base>/passkeys, POST <base>/passkeys/{rename,delete}. */
import { AuthError, UnknownAction, InvalidRequest } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import { jsonHeaders, noCacheHeaders, type AuthResult } from "../../kernel/response"
import { sessionContext } from "../../session/context"
import { deletePasskey, listPasskeys, renamePasskey } from "./manage"

const json = (status: number, body: unknown): AuthResult => ({
  status,
  headers: { ...jsonHeaders, ...noCacheHeaders },
  body,
})

/**
 * Answers the passkey routes: the list (200 JSON, `null` without a session), or a rename/delete (CSRF-checked)
 * answering 200 `{"ok":true}` or `{"error":"<Type>"}` with 404, 403, 409 (400 for a bad name).
 *
 * @example
 * ```ts
 * const result = await passkeysAction(ctx)
 * ```
 */
export async function passkeysAction(ctx: RequestContext): Promise<AuthResult> {
  const sub = ctx.request.providerId
  // Off by default: then the path is not one of ours, as for any unknown action.
  // The router answers for the route while `features.passkeyRoutes` is off, and checks CSRF on POST.
  if (!ctx.config.stores.webauthn) return { status: 400, headers: { ...jsonHeaders }, body: "Bad request." }
  const mctx = sessionContext(ctx)
  if (ctx.request.method === "GET") {
    if (sub !== undefined) throw new UnknownAction("Cannot handle action: passkeys")
    return json(200, await listPasskeys(mctx))
  }
  if (sub !== "rename" && sub !== "delete") throw new UnknownAction("Cannot handle action: passkeys")
  const body = ctx.request.body ?? {}
  try {
    if (sub === "rename") await renamePasskey(mctx, body.id, body.name)
    else await deletePasskey(mctx, body.id)
  } catch (error) {
    const status = (error as { status?: unknown }).status
    if (error instanceof AuthError && typeof status === "number") return json(status, { error: error.type })
    if (error instanceof InvalidRequest) return json(400, { error: "InvalidRequest" })
    throw error
  }
  return json(200, { ok: true })
}
