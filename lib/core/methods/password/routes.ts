/** The Password provider's routes, by action (sign-in is `callback/password`, dispatched with the other callbacks). */
import type { RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import { changePasswordAction, setPasswordAction } from "./change"
import { forgotPasswordAction, resetPasswordAction } from "./reset"
import { signUpAction } from "./signup"
import { resendVerificationAction, verifyEmailAction } from "./verify"

export { passwordErrorAnswer } from "./answers"
export { passwordSignIn } from "./signin"
export { passwordProviderOf } from "./common"

/** The handler of each Password route. */
export const passwordHandlers = {
  signup: signUpAction,
  "verify-email": verifyEmailAction,
  "resend-verification": resendVerificationAction,
  "forgot-password": forgotPasswordAction,
  "reset-password": resetPasswordAction,
  "change-password": changePasswordAction,
  "set-password": setPasswordAction,
} as const satisfies Record<string, (ctx: RequestContext) => Promise<AuthResult>>
