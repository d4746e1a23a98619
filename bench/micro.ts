/**
 * In-process measurements for `npm run bench`: the JWT helpers against `jose` with a key derived once (the same run,
 * alternated rounds), and the cold start of `import("gatehouse-auth")` against `import("express")` in fresh Node
 * processes (needs `npm run build`: the package entry is dist/).
 */
import { execFile } from "node:child_process"
import { hkdfSync } from "node:crypto"
import { CompactEncrypt, EncryptJWT, base64url, calculateJwkThumbprint, jwtDecrypt } from "jose"
import { ROOT, loadPackage } from "./package"
import { COOKIE_NAME, SECRET } from "./servers"

export interface OpsResult {
  name: string
  /** What was measured against what (e.g. "gatehouse" and "jose cached key"). */
  labels: [ours: string, floor: string]
  /** Operations per second of Gatehouse, per round. */
  ours: number[]
  /** Operations per second of the jose floor, per round. */
  floor: number[]
}

/**
 * The name of the {@link jwtOps} result that measures what `jose`'s per-call key import costs an encode: the same
 * WebCrypto work with the key halves imported once against imported on every call.
 */
export const KEY_IMPORT_COST = "key imports"

/**
 * The WebCrypto work of one A256CBC-HS512 encryption (RFC 7518 section 5.2.2: AES-CBC with the key's second half, then
 * an HMAC-SHA-512 tag with its first half over AAD, IV, ciphertext and the AAD's bit length), given the two halves as
 * imported keys. `jose` does this on every encrypt, after importing both halves (it takes this key only as bytes, so
 * a caller cannot hand it imported keys). No JWE is assembled: this measures the crypto calls, not an encoder.
 */
async function cbcHmacWork(
  keys: [CryptoKey, CryptoKey],
  plaintext: Uint8Array<ArrayBuffer>,
  aad: Uint8Array,
): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(16))
  const ciphertext = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-CBC", iv }, keys[0], plaintext))
  const bits = new Uint8Array(8)
  new DataView(bits.buffer).setBigUint64(0, BigInt(aad.length * 8))
  const macData = Buffer.concat([aad, iv, ciphertext, bits])
  return new Uint8Array(await crypto.subtle.sign("HMAC", keys[1], macData)).subarray(0, 32)
}

/** What `jose` does with an A256CBC-HS512 key before every encrypt: import its two halves into WebCrypto. */
function importKeyHalves(key: Uint8Array<ArrayBuffer>): Promise<[CryptoKey, CryptoKey]> {
  return Promise.all([
    crypto.subtle.importKey("raw", key.subarray(32), "AES-CBC", false, ["encrypt"]),
    crypto.subtle.importKey("raw", key.subarray(0, 32), { name: "HMAC", hash: "SHA-512" }, false, ["sign"]),
  ])
}

const TOKEN = { sub: "user-1", name: "Bench User", email: "bench@example.com" }

/** Runs `op` repeatedly (awaiting each) for about `ms` milliseconds; returns the operations done and the time. */
async function timedOps(op: () => Promise<unknown>, ms: number): Promise<{ count: number; elapsed: number }> {
  const start = performance.now()
  let count = 0
  let elapsed = 0
  do {
    for (let i = 0; i < 10; i++) await op()
    count += 10
    elapsed = performance.now() - start
  } while (elapsed < ms)
  return { count, elapsed }
}

/** Slices per side in one round: the two sides take turns every `msPerRun / SLICES` ms. */
const SLICES = 10

/**
 * One round of `ours` against `floor`, about `msPerRun` each: the two take turns in {@link SLICES} short slices (the
 * first turn alternating between rounds), so a change in the machine's speed within the round hits both alike.
 * Returns the operations per second of each over the round.
 */
async function interleavedRound(
  ours: () => Promise<unknown>,
  floor: () => Promise<unknown>,
  msPerRun: number,
  floorFirst: boolean,
): Promise<[ours: number, floor: number]> {
  const sides = [
    { op: ours, count: 0, elapsed: 0 },
    { op: floor, count: 0, elapsed: 0 },
  ]
  const turns = floorFirst ? [sides[1]!, sides[0]!] : sides
  for (let slice = 0; slice < SLICES; slice++) {
    for (const side of slice % 2 === 0 ? turns : [...turns].reverse()) {
      const { count, elapsed } = await timedOps(side.op, msPerRun / SLICES)
      side.count += count
      side.elapsed += elapsed
    }
  }
  const [a, b] = sides.map((side) => (side.count * 1000) / side.elapsed)
  return [a!, b!]
}

/**
 * Gatehouse `decode`/`encode` (the secret as the app gives it; derived keys cached inside) against `jose` with a key
 * and `kid` computed once: `jwtDecrypt` with the same algorithms, `EncryptJWT` with the same header and claims. Then
 * the bound of the encode ratio: `jose`'s `CompactEncrypt` with the claims serialised by hand (no JWT builder, no
 * claim checks: the least a `jose`-based encoder can do) against the same `EncryptJWT`. Last, the WebCrypto work of
 * an encrypt with the key halves imported once against imported per call ({@link KEY_IMPORT_COST}): what the imports,
 * which no caller of `jose` can cache, cost an encode.
 */
export async function jwtOps(msPerRun: number, rounds: number): Promise<OpsResult[]> {
  const key = new Uint8Array(
    hkdfSync("sha256", SECRET, COOKIE_NAME, `Auth.js Generated Encryption Key (${COOKIE_NAME})`, 64),
  )
  const kid = await calculateJwkThumbprint({ kty: "oct", k: base64url.encode(key) }, "sha512")
  const { encode, decode } = (await loadPackage()).jwt
  const jwe = await encode({ token: TOKEN, secret: SECRET, salt: COOKIE_NAME })
  const imported = await importKeyHalves(key)
  const maxAge = 30 * 24 * 60 * 60
  const issued = Math.floor(Date.now() / 1000)
  const claims = { ...TOKEN, iat: issued, exp: issued + maxAge, jti: crypto.randomUUID() }
  const plaintext = new TextEncoder().encode(JSON.stringify(claims))
  const aad = new TextEncoder().encode(jwe.slice(0, jwe.indexOf(".")))
  const joseEncode = () => {
    const now = Math.floor(Date.now() / 1000)
    return new EncryptJWT({ ...TOKEN })
      .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid })
      .setIssuedAt(now)
      .setExpirationTime(now + maxAge)
      .setJti(crypto.randomUUID())
      .encrypt(key)
  }

  const jose = "jose cached key"
  const cases: {
    name: string
    labels: [string, string]
    ours: () => Promise<unknown>
    floor: () => Promise<unknown>
  }[] = [
    {
      name: "decode",
      labels: ["gatehouse", jose],
      ours: async () => {
        if (!(await decode({ token: jwe, secret: SECRET, salt: COOKIE_NAME }))) throw new Error("decode failed")
      },
      floor: () =>
        jwtDecrypt(jwe, key, {
          clockTolerance: 15,
          keyManagementAlgorithms: ["dir"],
          contentEncryptionAlgorithms: ["A256CBC-HS512", "A256GCM"],
        }),
    },
    {
      name: "encode",
      labels: ["gatehouse", jose],
      ours: () => encode({ token: TOKEN, secret: SECRET, salt: COOKIE_NAME }),
      floor: joseEncode,
    },
    {
      name: "encode bound",
      labels: ["jose CompactEncrypt", "EncryptJWT"],
      ours: () => {
        const now = Math.floor(Date.now() / 1000)
        const claims = { ...TOKEN, iat: now, exp: now + maxAge, jti: crypto.randomUUID() }
        return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(claims)))
          .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid })
          .encrypt(key)
      },
      floor: joseEncode,
    },
    {
      // The encrypt's WebCrypto calls on a plaintext and AAD of an encode's sizes, with the key halves imported once
      // against imported on every call as jose does: what caching the imports would save (run.ts sets it against
      // EncryptJWT's time from the encode case).
      name: KEY_IMPORT_COST,
      labels: ["once", "per call"],
      ours: () => cbcHmacWork(imported, plaintext, aad),
      floor: async () => cbcHmacWork(await importKeyHalves(key), plaintext, aad),
    },
  ]
  const results: OpsResult[] = []
  for (const c of cases) {
    // Warm-up, so neither side pays JIT or the first key derivation inside a measured run.
    await timedOps(c.ours, Math.min(200, msPerRun))
    await timedOps(c.floor, Math.min(200, msPerRun))
    const result: OpsResult = { name: c.name, labels: c.labels, ours: [], floor: [] }
    for (let round = 0; round < rounds; round++) {
      const [ours, floor] = await interleavedRound(c.ours, c.floor, msPerRun, round % 2 === 1)
      result.ours.push(ours)
      result.floor.push(floor)
    }
    results.push(result)
  }
  return results
}

export interface ColdStart {
  /** Milliseconds to import each, per run (fresh process each time). */
  express: number[]
  gatehouse: number[]
  /** Files of provider or adapter entries, or optional drivers, loaded by `require("gatehouse-auth")`. */
  eagerModules: string[]
}

function runNode(args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(process.execPath, args, { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}: ${stderr}`))
      else resolvePromise(stdout.trim())
    })
  })
}

/** Milliseconds `import(specifier)` takes in a fresh Node process (process start-up not included). */
async function importTime(specifier: string): Promise<number> {
  const script =
    `const t = performance.now(); await import(${JSON.stringify(specifier)});` + ` console.log(performance.now() - t)`
  const out = await runNode(["--input-type=module", "-e", script])
  const ms = Number(out.split("\n").pop())
  if (!Number.isFinite(ms)) throw new Error(`unexpected output importing ${specifier}: ${out}`)
  return ms
}

/**
 * Cold start: `runs` fresh processes each for `import("express")` and `import("gatehouse-auth")` (alternated), and
 * which provider/adapter files or optional drivers `require("gatehouse-auth")` pulls in (none should). Needs the build
 * (run.ts has loaded it through `loadPackage`, which refuses a missing or stale one).
 */
export async function coldStart(runs: number): Promise<ColdStart> {
  // The package imports itself by name from its own root (package.json `exports` self-reference).
  const result: ColdStart = { express: [], gatehouse: [], eagerModules: [] }
  for (let i = 0; i < runs; i++) {
    const pair: [string, number[]][] = [
      ["express", result.express],
      ["gatehouse-auth", result.gatehouse],
    ]
    if (i % 2 === 1) pair.reverse()
    for (const [specifier, into] of pair) into.push(await importTime(specifier))
  }
  const listing = await runNode([
    "-e",
    `require("gatehouse-auth"); console.log(JSON.stringify(Object.keys(require.cache)))`,
  ])
  const files = JSON.parse(listing) as string[]
  const eager =
    /[\\/]dist[\\/](providers|adapters|store)[\\/]|[\\/]node_modules[\\/](pg|ioredis|better-sqlite3|nodemailer|@simplewebauthn)[\\/]/
  result.eagerModules = files.filter((f) => eager.test(f)).map((f) => f.replace(ROOT, "."))
  return result
}
