/**
 * `npm run bench:enumeration`: whether the time of an answer tells a known address from an unknown one, where the
 * answer itself does not (next-wave B.2 rule 8). Passkey registration options asked by nobody signed in, for an address
 * that has an account and one that has none, alternated, 50 tries each after a warm-up, through the built package's
 * `Auth()` with the memory adapter: the median of each and their ratio. A report: it exits 0 unless the measurement
 * itself breaks (the answers must match in status and shape first).
 */
import type * as Core from "../lib/core"
import type * as MemoryEntry from "../lib/storage/memory/adapter"
import type * as PasskeyEntry from "../lib/providers/passkey"
import { loadEntry } from "./package"

const TRIES = Number(process.env.BENCH_TRIES ?? 50)
const ORIGIN = "http://localhost:3000"

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

async function main(): Promise<void> {
  const { Auth } = (await loadEntry("gatehouse-auth/core")) as typeof Core
  const { MemoryAdapter } = (await loadEntry("gatehouse-auth/adapters/memory")) as typeof MemoryEntry
  const { default: Passkey } = (await loadEntry("gatehouse-auth/providers/passkey")) as typeof PasskeyEntry
  const adapter = MemoryAdapter()
  await adapter.createUser({ id: "ada", email: "ada@example.com", emailVerified: new Date() })
  const config = {
    secret: "bench-enumeration-secret-0123456789abcdef",
    trustHost: true,
    adapter,
    providers: [Passkey({ relyingParty: { id: "localhost", name: "Bench", origin: ORIGIN } })],
  }
  const ask = async (email: string): Promise<{ ms: number; status: number; action: unknown }> => {
    const started = performance.now()
    const query = new URLSearchParams({ action: "register", email })
    const response = await Auth(new Request(`${ORIGIN}/auth/webauthn-options/passkey?${query}`), config)
    const body = (await response.json()) as { action?: unknown }
    return { ms: performance.now() - started, status: response.status, action: body.action }
  }
  const known = await ask("ada@example.com")
  const unknown = await ask("nobody@example.com")
  if (known.status !== unknown.status || known.action !== unknown.action) {
    throw new Error(`the answers differ: known ${known.status} ${String(known.action)}, unknown ${unknown.status}`)
  }
  for (let i = 0; i < 20; i += 1) await Promise.all([ask("ada@example.com"), ask(`warm${i}@example.com`)])
  const times = { known: [] as number[], unknown: [] as number[] }
  for (let i = 0; i < TRIES; i += 1) {
    // Alternated, the order flipped each round, so a drift of the machine's speed touches both alike.
    const pair = i % 2 ? ["known", "unknown"] : ["unknown", "known"]
    for (const which of pair as Array<keyof typeof times>) {
      times[which].push((await ask(which === "known" ? "ada@example.com" : `new${i}@example.com`)).ms)
    }
  }
  const [k, u] = [median(times.known), median(times.unknown)]
  console.log(`passkey registration options, nobody signed in, median of ${TRIES} tries each (ms)`)
  console.log(`known address ${k.toFixed(3)}   unknown address ${u.toFixed(3)}   known/unknown ${(k / u).toFixed(3)}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
