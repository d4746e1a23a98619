/**
 * The continuation context of a native sign-in (tokens.md T2.3): what the app asked for, sealed so it can travel in
 * the continuation URL. It carries no identity and grants nothing by itself.
 */
import { randomBytes } from "node:crypto"
import type { ResolvedConfig } from "../../kernel/config/types"
import { checkSealer } from "../../kernel/checks"

/** The sealed request of the app: redirect URI, challenge, state, provider. */
export interface NativeContext {
  ru: string
  cc: string
  st?: string
  p: string
  n: string
}

const CONTEXT_TTL = 600
const binding = { purpose: "nativeContext" as const, provider: "gatehouse", salt: "gatehouse.native-ctx" }

/** Seals a new context (10 minutes). */
export function sealContext(config: ResolvedConfig, value: Omit<NativeContext, "n">): Promise<string> {
  return checkSealer(config.secret).seal(
    { ...binding, maxAge: CONTEXT_TTL },
    { ...value, n: randomBytes(16).toString("base64url") },
  )
}

/** Opens a context from the query or form; `null` when missing, forged or expired. */
export async function openContext(config: ResolvedConfig, value: unknown): Promise<NativeContext | null> {
  if (typeof value !== "string" || value === "" || value.length > 4096) return null
  const opened = await checkSealer(config.secret).open<NativeContext>(binding, value)
  if (!opened.ok) return null
  const ctx = opened.value
  return typeof ctx.ru === "string" && typeof ctx.cc === "string" && typeof ctx.p === "string" ? ctx : null
}

/** `<redirect URI>?<params>` (a registered URI has no query). */
export function appRedirect(ru: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value)
  return `${ru}?${query}`
}
