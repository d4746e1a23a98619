/**
 * The signing keys of access tokens (tokens.md T3.4): configured keys as given, or keys generated on first use and
 * kept in the store (`at-keys`, sealed under the first secret; every secret opens it), rotated with an overlap under a
 * lock, and cached in each process for 30 s.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose"
import { InvalidConfig } from "../../../errors"
import type { KeyValueStore } from "../../../storage/kv"
import { checkSealer } from "../../kernel/checks"
import type { AccessTokenAlg, ResolvedAccessTokens } from "../../kernel/config/access-tokens"
import type { ResolvedConfig } from "../../kernel/config/types"

/** One key of the set. Times are seconds since the epoch. */
export interface SigningKey {
  kid: string
  alg: AccessTokenAlg
  jwk: JWK
  createdAt: number
  retireAt?: number
}

interface KeySet {
  v: 1
  keys: SigningKey[]
}

const STORE_KEY = "at-keys"
const PROCESS_CACHE_MS = 30_000
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"]
const binding = { purpose: "accessTokenKeys" as const, provider: "gatehouse", salt: "gatehouse.at-keys" }

/** The public members of a JWK (never `d`, `p`, `q`, `dp`, `dq`, `qi`, `k`). */
export function publicJwk(key: SigningKey): JWK {
  const out: JWK = {}
  for (const [name, value] of Object.entries(key.jwk)) {
    if (!PRIVATE_MEMBERS.includes(name) && !["use", "alg", "kid", "key_ops", "ext"].includes(name)) {
      ;(out as Record<string, unknown>)[name] = value
    }
  }
  return { ...out, kid: key.kid, alg: key.alg, use: "sig" }
}

const now = () => Math.floor(Date.now() / 1000)

/** Per store: the set this process read last, and when. */
const cache = new WeakMap<KeyValueStore, { at: number; set: KeySet }>()
const imported = new Map<string, Promise<CryptoKey>>()

async function generate(alg: AccessTokenAlg): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg === "EdDSA" ? "Ed25519" : alg, {
    extractable: true,
    ...(alg === "RS256" ? { modulusLength: 2048 } : {}),
  })
  const jwk = await exportJWK(privateKey)
  const kid = await calculateJwkThumbprint(await exportJWK(publicKey), "sha256")
  return { kid, alg, jwk, createdAt: now() }
}

async function readSet(config: ResolvedConfig): Promise<KeySet | null> {
  const [sealed] = await config.store.get([STORE_KEY])
  if (!sealed) return null
  const opened = await checkSealer(config.secret).open<KeySet>(binding, sealed)
  if (!opened.ok || opened.value.v !== 1 || !Array.isArray(opened.value.keys)) return null
  return opened.value
}

async function writeSet(config: ResolvedConfig, options: ResolvedAccessTokens, set: KeySet): Promise<void> {
  const ttl = options.rotation.every + options.rotation.overlap + options.ttl
  const sealed = await checkSealer(config.secret).seal({ ...binding, maxAge: ttl }, set)
  await config.store.set(STORE_KEY, sealed, ttl)
  cache.set(config.store, { at: Date.now(), set })
}

/** The key set after a rotation: a new signer, the old ones retiring after `overlap`, the retired ones dropped. */
async function rotated(options: ResolvedAccessTokens, set: KeySet | null): Promise<KeySet> {
  const t = now()
  const next = await generate(options.alg)
  const kept = (set?.keys ?? [])
    .map((key) => (key.retireAt === undefined ? { ...key, retireAt: t + options.rotation.overlap } : key))
    .filter((key) => (key.retireAt ?? Infinity) > t)
  return { v: 1, keys: [next, ...kept] }
}

/**
 * Changes the stored set under the lock of its current signer (one winner per transition); a loser re-reads every
 * 100 ms for up to 2 s until the winner's set appears.
 */
async function transition(
  config: ResolvedConfig,
  options: ResolvedAccessTokens,
  from: KeySet | null,
  change: (set: KeySet | null) => Promise<KeySet>,
): Promise<KeySet> {
  const lock = `at-keys-lock:${from?.keys[0]?.kid ?? "none"}`
  if (await config.store.consume(lock, 10)) {
    const set = await change(from)
    await writeSet(config, options, set)
    return set
  }
  for (let waited = 0; waited < 2000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    const set = await readSet(config)
    if (set && set.keys[0]?.kid !== from?.keys[0]?.kid) {
      cache.set(config.store, { at: Date.now(), set })
      return set
    }
  }
  throw new KeysUnavailable()
}

/** The key set could not be created in time (another instance holds the lock): answered 503. */
export class KeysUnavailable extends Error {
  constructor() {
    super("access token keys unavailable")
  }
}

/**
 * The live keys, signer first: the configured ones, else the stored set (created on first use, rotated when its
 * signer is older than `rotation.every`). `onRotated` hears of a rotation this call made.
 *
 * @example
 * ```ts
 * const [signer] = await liveKeys(config, options)
 * ```
 */
export async function liveKeys(
  config: ResolvedConfig,
  options: ResolvedAccessTokens,
  onRotated?: (kid: string, previousKid?: string) => Promise<void>,
): Promise<SigningKey[]> {
  if (options.keys) {
    return options.keys.map((jwk) => ({ kid: jwk.kid, alg: jwk.alg, jwk: jwk as JWK, createdAt: 0 }))
  }
  const cached = cache.get(config.store)
  let set = cached && Date.now() - cached.at < PROCESS_CACHE_MS ? cached.set : null
  if (!set) {
    set = await readSet(config)
    if (set) cache.set(config.store, { at: Date.now(), set })
  }
  const signer = set?.keys[0]
  if (!set || !signer) {
    set = await transition(config, options, set, (from) => rotated(options, from))
    await onRotated?.(set.keys[0]!.kid)
  } else if (now() - signer.createdAt >= options.rotation.every) {
    const before = signer.kid
    set = await transition(config, options, set, (from) => rotated(options, from))
    if (set.keys[0]!.kid !== before) await onRotated?.(set.keys[0]!.kid, before)
  }
  const t = now()
  return set.keys.filter((key) => (key.retireAt ?? Infinity) > t)
}

/**
 * Rotates the generated keys now (`rotateAccessTokenKeys()`): a new signer, the previous one published until
 * `rotation.overlap` has passed. Configured keys are rotated by changing the config.
 *
 * @example
 * ```ts
 * const { kid, previousKid } = await rotateKeys(config, options)
 * ```
 */
export async function rotateKeys(
  config: ResolvedConfig,
  options: ResolvedAccessTokens,
): Promise<{ kid: string; previousKid: string | null }> {
  if (options.keys) {
    throw new InvalidConfig(
      "rotateAccessTokenKeys() works on generated keys: with accessTokens.keys, change the config",
      {
        cause: { option: "accessTokens.keys" },
      },
    )
  }
  const current = await readSet(config)
  const previousKid = current?.keys[0]?.kid ?? null
  const set = await transition(config, options, current, (from) => rotated(options, from))
  return { kid: set.keys[0]!.kid, previousKid }
}

/** The private key of a signing key, imported once. */
export function signingKeyOf(key: SigningKey): Promise<CryptoKey> {
  const id = `${key.alg}:${key.kid}`
  let found = imported.get(id)
  if (!found) {
    found = importJWK(key.jwk, key.alg) as Promise<CryptoKey>
    imported.set(id, found)
  }
  return found
}
