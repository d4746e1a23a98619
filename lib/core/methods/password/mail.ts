/**
 * Delivering the Password provider's emails: the links' origin, and the hooks run after the answer (flows whose
 * answer must not reveal whether an address exists) or awaited (`awaitEmails`); a failing hook is only logged.
 */
import { EmailSignInError } from "../../../errors"
import type { PasswordMailUser } from "../../../password/types"
import type { AdapterUser } from "../../../storage/adapter"
import type { ResolvedPasswordProvider } from "../../kernel/config/password"
import { requestWithParsedBody, type RequestContext } from "../../kernel/context"
import type { AuthAction } from "../../kernel/routes"

/** The origin links are built from: the provider's `url`, else the request's (`AUTH_URL` when set). */
export const linkOrigin = (ctx: RequestContext, provider: ResolvedPasswordProvider): string =>
  provider.url ? new URL(provider.url).origin : ctx.origin

/** An absolute URL of one of the auth routes under the links' origin, with a query. */
export function linkTo(
  ctx: RequestContext,
  provider: ResolvedPasswordProvider,
  action: AuthAction,
  query?: Record<string, string>,
): string {
  const base = `${linkOrigin(ctx, provider)}${ctx.config.basePath}/${action}`
  return query ? `${base}?${new URLSearchParams(query)}` : base
}

/** What every hook receives besides its own fields. */
export function mailCommon(ctx: RequestContext, provider: ResolvedPasswordProvider, email: string, user: AdapterUser) {
  return {
    identifier: email,
    user: user as PasswordMailUser,
    provider,
    theme: provider.theme ?? ctx.config.theme,
    request: requestWithParsedBody({ request: { ...ctx.request, body: withoutSecrets(ctx.request.body) } }),
  }
}

/** The request body a hook sees: never a password. */
function withoutSecrets(body: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body ?? {})) if (!/password|token/i.test(key)) out[key] = value
  return out
}

/**
 * Runs an email hook. `background`: not awaited unless `awaitEmails` (the answer must not wait, or its timing would
 * tell a known address from an unknown one); the promise settles on its own and a failure is logged. Otherwise
 * awaited, and a failure is still only logged.
 *
 * @example
 * ```ts
 * await deliver(ctx, provider, "sendPasswordReset", () => provider.sendPasswordReset(params), true)
 * ```
 */
export async function deliver(
  ctx: RequestContext,
  provider: ResolvedPasswordProvider,
  hook: string,
  send: () => unknown,
  background: boolean,
): Promise<void> {
  const run = async () => {
    try {
      await send()
    } catch (error) {
      ctx.logger.error(
        new EmailSignInError("password-email-failed", { cause: { err: error as Error, hook, provider: provider.id } }),
      )
    }
  }
  if (background && !provider.awaitEmails) {
    // Started after the answer is built: the answer never waits for the SMTP server.
    setImmediate(() => void run())
    return
  }
  await run()
}
