/**
 * Writes the provider table of docs/guide/providers/index.md from `lib/catalog.ts` (`npm run catalog`), or checks that
 * the table, the catalogue and the files of lib/providers/ agree (`npm run catalog:check`, part of `npm test`).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { providers, type CatalogEntry } from "../lib/catalog"

const root = join(__dirname, "..")
/** The page that holds the generated table. */
export const TABLE_FILE = join(root, "docs/guide/providers/index.md")
const BEGIN = "<!-- catalog:begin -->"
const END = "<!-- catalog:end -->"
/** Files of lib/providers/ that are not OAuth/OIDC catalogue providers. */
const NOT_CATALOGUE = new Set([
  "types",
  "credentials",
  "email",
  "nodemailer",
  "webauthn",
  "passkey",
  "password",
  "oidc",
])

const mark = (yes: boolean) => (yes ? "✅" : "—")
/** A table cell: pipes escaped so a note never splits a row. */
const cell = (text: string) => text.replace(/\|/g, "\\|")

/**
 * The Markdown table of the catalogue: a header and one row per entry, the id in backticks first.
 *
 * @example
 * ```ts
 * renderCatalogTable(providers).split("\n")[2] // "| `42-school` | 42 School | oauth | ✅ | — |  |"
 * ```
 */
export function renderCatalogTable(entries: readonly CatalogEntry[]): string {
  const rows = entries.map((e) => {
    const notes = [...e.deviations.map((d) => `≠ Auth.js: ${d}`), ...e.quirks]
    if (e.options.length > 0) notes.push(`options: ${e.options.map((o) => `\`${o}\``).join(", ")}`)
    const name = `[${e.name}](${e.docs})`
    return `| \`${e.id}\` | ${cell(name)} | ${e.type} | ${mark(e.authjs)} | ${mark(e.betterAuth)} | ${cell(notes.join("; "))} |`
  })
  return ["| id | name | type | Auth.js | Better Auth | notes |", "|---|---|---|---|---|---|", ...rows].join("\n")
}

/** `text` with the block between the catalog markers replaced by `table`. */
export function withTable(text: string, table: string): string {
  const start = text.indexOf(BEGIN)
  const end = text.indexOf(END)
  if (start < 0 || end < start) throw new Error(`${TABLE_FILE} has no ${BEGIN} … ${END} block`)
  return `${text.slice(0, start + BEGIN.length)}\n${table}\n${text.slice(end)}`
}

/** The provider files of lib/providers/ that belong in the catalogue. */
export function providerFiles(): string[] {
  return readdirSync(join(root, "lib/providers"))
    .filter((file) => file.endsWith(".ts"))
    .map((file) => basename(file, ".ts"))
    .filter((name) => !NOT_CATALOGUE.has(name))
    .sort()
}

/**
 * What disagrees between the files, the catalogue and the generated table; empty when all three agree.
 *
 * @example
 * ```ts
 * catalogProblems() // [] or ["lib/providers/acme.ts has no catalogue entry", ...]
 * ```
 */
export function catalogProblems(page = readFileSync(TABLE_FILE, "utf8")): string[] {
  const problems: string[] = []
  const ids = providers.map((p) => p.id)
  const files = providerFiles()
  for (const file of files) if (!ids.includes(file)) problems.push(`lib/providers/${file}.ts has no catalogue entry`)
  for (const id of ids)
    if (!files.includes(id)) problems.push(`the catalogue entry ${id} has no lib/providers/${id}.ts`)
  if ([...ids].sort().join() !== ids.join() || new Set(ids).size !== ids.length) {
    problems.push("the catalogue is not sorted by id, or repeats an id")
  }
  if (withTable(page, renderCatalogTable(providers)) !== page) {
    problems.push("the provider table is stale: run `npm run catalog`")
  }
  return problems
}

if (/catalog\.[cm]?[jt]s$/.test(process.argv[1] ?? "")) {
  if (process.argv.includes("--check")) {
    const problems = catalogProblems()
    for (const problem of problems) console.error(problem)
    process.exitCode = problems.length > 0 ? 1 : 0
  } else {
    writeFileSync(TABLE_FILE, withTable(readFileSync(TABLE_FILE, "utf8"), renderCatalogTable(providers)))
  }
}
