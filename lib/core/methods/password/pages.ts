/** The GET pages of the Password routes (or redirects to `pages.signUp` / `forgotPassword` / `resetPassword`). */
import type { ResolvedPasswordProvider } from "../../kernel/config/password"
import type { RequestContext } from "../../kernel/context"
import { pageHeaders } from "../../kernel/pages"
import {
  renderForgotPasswordPage,
  renderResetPasswordPage,
  renderSignUpPage,
  renderVerifyEmailPage,
  type PasswordPageBase,
} from "../../kernel/pages/password"
import type { RenderedPage } from "../../kernel/pages/types"
import type { AuthResult } from "../../kernel/response"

const shown = (rendered: RenderedPage): AuthResult => ({
  status: rendered.status,
  headers: { ...pageHeaders, "Cache-Control": "no-store" },
  body: rendered.html,
})

function base(ctx: RequestContext, provider: ResolvedPasswordProvider): PasswordPageBase {
  const { error, code } = ctx.request.query
  return {
    base: `${ctx.origin}${ctx.config.basePath}`,
    csrfToken: ctx.csrfToken,
    theme: provider.theme ?? ctx.config.theme,
    ...(typeof error === "string" ? { error } : {}),
    ...(typeof code === "string" ? { code } : {}),
  }
}

/** A custom page of the app, with the request's query: `undefined` when none is configured. */
function custom(ctx: RequestContext, path: string | undefined): AuthResult | undefined {
  return path ? { redirect: `${path}${ctx.request.url.search}` } : undefined
}

const masked = (email: string) => {
  const at = email.lastIndexOf("@")
  return at <= 0 ? "…" : `${Array.from(email.slice(0, at))[0]}…${email.slice(at)}`
}

export const signUpPage = (ctx: RequestContext, provider: ResolvedPasswordProvider): AuthResult =>
  custom(ctx, ctx.config.pages.signUp) ??
  shown(
    renderSignUpPage({
      ...base(ctx, provider),
      callbackUrl: ctx.callbackUrl,
      minLength: provider.minLength,
      maxLength: provider.maxLength,
    }),
  )

export const forgotPasswordPage = (ctx: RequestContext, provider: ResolvedPasswordProvider): AuthResult =>
  custom(ctx, ctx.config.pages.forgotPassword) ?? shown(renderForgotPasswordPage(base(ctx, provider)))

export const resetPasswordPage = (
  ctx: RequestContext,
  provider: ResolvedPasswordProvider,
  token: string,
  email: string,
): AuthResult =>
  custom(ctx, ctx.config.pages.resetPassword) ??
  shown(
    renderResetPasswordPage({
      ...base(ctx, provider),
      token,
      email,
      minLength: provider.minLength,
      maxLength: provider.maxLength,
    }),
  )

export const verifyEmailPage = (
  ctx: RequestContext,
  provider: ResolvedPasswordProvider,
  token: string,
  email: string,
): AuthResult =>
  shown(
    renderVerifyEmailPage({
      ...base(ctx, provider),
      token,
      email,
      masked: masked(email),
      callbackUrl: ctx.callbackUrl,
    }),
  )
