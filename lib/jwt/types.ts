/** Parameter types of `encode`, `decode` and `getToken`. */
import type { JWT } from "../models"
import type { LoggerInstance } from "../logger"

export interface JWTEncodeParams<Payload = JWT> {
  /** The payload; `iat`, `exp` and `jti` are set by `encode`. */
  token?: Payload
  /** The first secret of an array encrypts. */
  secret: string | readonly string[]
  /** Combined with the secret to derive the key: the cookie name for session tokens. */
  salt: string
  /** Seconds until expiry. Default 30 days. */
  maxAge?: number
}

export interface JWTDecodeParams {
  token?: string
  /** Every secret of an array is tried (chosen by the `kid` header). */
  secret: string | readonly string[]
  salt: string
}

export interface GetTokenParams<R extends boolean = false> {
  /** A `Request`, or any object with `headers` (a `Headers` or a plain record). */
  req: Request | { headers: Headers | Record<string, string | string[] | undefined> }
  secret?: string | readonly string[]
  /** Defaults to the cookie name. */
  salt?: string
  /** Use the `__Secure-` cookie name. Default false. */
  secureCookie?: boolean
  cookieName?: string
  /** Return the raw JWE string instead of the payload. */
  raw?: R
  decode?: (params: JWTDecodeParams) => JWT | null | PromiseLike<JWT | null>
  logger?: Pick<LoggerInstance, "error" | "debug"> | Console
}

/** What `getToken` resolves: the raw JWE string with `raw: true`, else the decoded payload; `null` when absent or invalid. */
export type GetTokenResult<R extends boolean = false> = (R extends true ? string : JWT) | null
