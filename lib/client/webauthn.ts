/**
 * `gatehouse-auth/client/webauthn`: passkey sign-in and registration for custom pages. Browser code, ESM, no
 * dependencies; it talks to the same routes as the built-in page (`webauthn-options`, `callback`, `csrf`) and can run
 * conditional UI (autofill) on any page with an `<input autocomplete="username webauthn">`.
 */

/** Options shared by both calls. */
export interface PasskeyClientOptions {
  /** The WebAuthn provider id. Default `"passkey"`. */
  provider?: string
  /** Where the auth routes are mounted. Default `"/auth"`. */
  basePath?: string
  /** Where to land afterwards. Default: the current page. */
  callbackUrl?: string
  /** `false`: do not navigate, just answer the result. Default `true`. */
  redirect?: boolean
  /** Aborts the ceremony (e.g. a conditional request when the user submits a password form instead). */
  signal?: AbortSignal
}

/** What a call answers: `ok` and the URL the server chose (the callback URL, or the error page with `error=`). */
export interface PasskeyResult {
  ok: boolean
  url: string
  /** The `error` query value of `url` when the ceremony failed on the server, or the browser's error name. */
  error?: string
}

type Json = Record<string, unknown>

const toB64url = (buffer: ArrayBuffer): string =>
  btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "")

const fromB64url = (value: string): ArrayBuffer =>
  Uint8Array.from(atob(value.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)).buffer

const descriptors = (list: unknown): PublicKeyCredentialDescriptor[] =>
  ((list as Array<{ id: string; transports?: AuthenticatorTransport[] }> | undefined) ?? []).map((c) => ({
    ...c,
    type: "public-key" as const,
    id: fromB64url(c.id),
  }))

function credentialJSON(credential: PublicKeyCredential): Json {
  const response = credential.response as AuthenticatorResponse &
    Partial<AuthenticatorAttestationResponse> &
    Partial<AuthenticatorAssertionResponse>
  const out: Json & { response: Json } = {
    id: credential.id,
    rawId: toB64url(credential.rawId),
    type: credential.type,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    response: { clientDataJSON: toB64url(response.clientDataJSON) },
  }
  if (response.attestationObject) {
    out.response.attestationObject = toB64url(response.attestationObject)
    out.response.transports = response.getTransports?.() ?? []
  } else {
    out.response.authenticatorData = toB64url(response.authenticatorData as ArrayBuffer)
    out.response.signature = toB64url(response.signature as ArrayBuffer)
    if (response.userHandle) out.response.userHandle = toB64url(response.userHandle)
  }
  return out
}

/** Whether this browser can use passkeys at all. */
export function isPasskeySupported(): boolean {
  return typeof window !== "undefined" && typeof window.PublicKeyCredential === "function"
}

async function ceremony(
  action: "register" | "authenticate",
  options: PasskeyClientOptions & { email?: string; conditional?: boolean },
): Promise<PasskeyResult> {
  const base = (options.basePath ?? "/auth").replace(/\/+$/, "")
  const provider = encodeURIComponent(options.provider ?? "passkey")
  const callbackUrl = options.callbackUrl ?? window.location.href
  const query = new URLSearchParams({ action })
  if (options.email) query.set("email", options.email)
  const answer = await fetch(`${base}/webauthn-options/${provider}?${query}`, { credentials: "same-origin" })
  if (!answer.ok) {
    // 429 from the rate limit (`webauthn-options`); anything else is a request the server did not accept.
    return { ok: false, url: window.location.href, error: answer.status === 429 ? "RateLimited" : "InvalidRequest" }
  }
  const { options: o } = (await answer.json()) as { options: Json }
  let credential: Credential | null
  try {
    credential =
      action === "register"
        ? await navigator.credentials.create({
            signal: options.signal,
            publicKey: {
              ...(o as unknown as PublicKeyCredentialCreationOptions),
              challenge: fromB64url(o.challenge as string),
              user: { ...(o.user as PublicKeyCredentialUserEntity), id: fromB64url((o.user as { id: string }).id) },
              excludeCredentials: descriptors(o.excludeCredentials),
            },
          })
        : await navigator.credentials.get({
            signal: options.signal,
            ...(options.conditional ? { mediation: "conditional" as CredentialMediationRequirement } : {}),
            publicKey: {
              ...(o as unknown as PublicKeyCredentialRequestOptions),
              challenge: fromB64url(o.challenge as string),
              allowCredentials: descriptors(o.allowCredentials),
            },
          })
  } catch (error) {
    return { ok: false, url: window.location.href, error: (error as Error).name || "NotAllowedError" }
  }
  if (!credential) return { ok: false, url: window.location.href, error: "NotAllowedError" }
  const { csrfToken } = (await (await fetch(`${base}/csrf`, { credentials: "same-origin" })).json()) as {
    csrfToken: string
  }
  const posted = await fetch(`${base}/callback/${provider}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body: new URLSearchParams({
      action,
      data: JSON.stringify(credentialJSON(credential as PublicKeyCredential)),
      csrfToken,
      callbackUrl,
    }),
  })
  const { url } = (await posted.json()) as { url: string }
  const error = new URL(url, window.location.href).searchParams.get("error") ?? undefined
  if (options.redirect !== false && !error) window.location.assign(url)
  return error ? { ok: false, url, error } : { ok: true, url }
}

/**
 * Signs in with a passkey. With `conditional: true` it waits for the user to pick a passkey from the autofill of an
 * `<input autocomplete="username webauthn">` (abort it with `signal` when they do something else).
 *
 * @example
 * ```ts
 * import { signInWithPasskey } from "gatehouse-auth/client/webauthn"
 * const controller = new AbortController()
 * signInWithPasskey({ conditional: true, signal: controller.signal })
 * button.onclick = () => { controller.abort(); signInWithPasskey({ callbackUrl: "/dashboard" }) }
 * ```
 */
export function signInWithPasskey(
  options: PasskeyClientOptions & { conditional?: boolean; email?: string } = {},
): Promise<PasskeyResult> {
  return ceremony("authenticate", options)
}

/**
 * Registers a passkey: for the signed-in user (no email needed), or signs a new user up with `email`.
 *
 * @example
 * ```ts
 * import { registerPasskey } from "gatehouse-auth/client/webauthn"
 * const result = await registerPasskey({ redirect: false })
 * if (!result.ok) showError(result.error)
 * ```
 */
export function registerPasskey(options: PasskeyClientOptions & { email?: string } = {}): Promise<PasskeyResult> {
  return ceremony("register", options)
}
