/**
 * In-process measurements for `npm run bench`: the JWT helpers against `jose` with a key derived once (the same run,
 * alternated rounds), and the cold start of `import("gatehouse-auth")` against `import("express")` in fresh Node
 * processes (needs `npm run build`: the package entry is dist/).
 */
import { execFile } from "node:child_process"
import { hkdfSync } from "node:crypto"
import { EncryptJWT, base64url, calculateJwkThumbprint, jwtDecrypt } from "jose"
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

/** Distinct tokens the decode case cycles through: more than any payload cache keeps, so every decode is fresh. */
const FRESH_TOKENS = 2048

/**
 * Gatehouse `decode`/`encode` (the secret as the app gives it; derived keys cached inside) against `jose` with a key
 * and `kid` computed once: `jwtDecrypt` with the same algorithms, `EncryptJWT` with the same header and claims. The
 * decode case cycles through {@link FRESH_TOKENS} distinct tokens on both sides, so it measures a decryption every
 * time whatever cache a future change adds. Then `getToken` on one cookie, answered from its payload cache after the
 * first call, against the same `jwtDecrypt` (no target: what an API route calling `getToken` pays).
 */
export async function jwtOps(msPerRun: number, rounds: number): Promise<OpsResult[]> {
  const key = new Uint8Array(
    hkdfSync("sha256", SECRET, COOKIE_NAME, `Auth.js Generated Encryption Key (${COOKIE_NAME})`, 64),
  )
  const kid = await calculateJwkThumbprint({ kty: "oct", k: base64url.encode(key) }, "sha512")
  const { encode, decode, getToken } = (await loadPackage()).jwt
  const tokens: string[] = []
  for (let i = 0; i < FRESH_TOKENS; i++)
    tokens.push(await encode({ token: { ...TOKEN, n: i }, secret: SECRET, salt: COOKIE_NAME }))
  const maxAge = 30 * 24 * 60 * 60
  const options = {
    clockTolerance: 15,
    keyManagementAlgorithms: ["dir"],
    contentEncryptionAlgorithms: ["A256CBC-HS512", "A256GCM"],
  }
  // Each side keeps its own position in the same list, so both decode the same tokens in the same order.
  let ourNext = 0
  let floorNext = 0
  const request = { headers: { cookie: `${COOKIE_NAME}=${tokens[0]!}` } }

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
        const token = tokens[ourNext++ % FRESH_TOKENS]!
        if (!(await decode({ token, secret: SECRET, salt: COOKIE_NAME }))) throw new Error("decode failed")
      },
      floor: () => jwtDecrypt(tokens[floorNext++ % FRESH_TOKENS]!, key, options),
    },
    {
      name: "encode",
      labels: ["gatehouse", jose],
      ours: () => encode({ token: TOKEN, secret: SECRET, salt: COOKIE_NAME }),
      floor: () => {
        const now = Math.floor(Date.now() / 1000)
        return new EncryptJWT({ ...TOKEN })
          .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid })
          .setIssuedAt(now)
          .setExpirationTime(now + maxAge)
          .setJti(crypto.randomUUID())
          .encrypt(key)
      },
    },
    {
      name: "getToken, one cookie",
      labels: ["gatehouse", jose],
      ours: async () => {
        if (!(await getToken({ req: request, secret: SECRET }))) throw new Error("getToken failed")
      },
      floor: () => jwtDecrypt(tokens[0]!, key, options),
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
