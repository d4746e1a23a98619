/**
 * Generates the API reference pages (docs/reference/api/*.md) from the sources with the TypeScript compiler API: one
 * page per public entry point (one page for each family of small entries: providers, adapters, stores, client), each
 * export with its signature or declaration, its TSDoc text and its `@example`. The pages are built, not committed
 * (`npm run docs:api`, run by `docs:dev` and `docs:build`), so they never lag behind the code.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import ts from "typescript"
import { entryPoints } from "../../tsup.config"

/** The folder of the generated pages, relative to docs/. */
export const API_DIR = "reference/api"

interface Family {
  /** The page's file name without `.md`. */
  page: string
  title: string
  intro: string
  /** Entry names (tsup's, e.g. `providers/github`) that belong on this page. */
  matches: (entry: string) => boolean
}

/** One page for a single entry (`index` is the package itself). */
function single(entry: string, intro: string): Family {
  const page = entry === "index" ? "gatehouse-auth" : entry
  return { page, title: importPath(entry), intro, matches: (e) => e === entry }
}

/** One page for every entry under `dir/` (`providers/github`, `providers/google`, ...). */
function folder(dir: string, intro: string): Family {
  return { page: dir, title: `gatehouse-auth/${dir}/*`, intro, matches: (e) => e.startsWith(`${dir}/`) }
}

const FAMILIES: Family[] = [
  single("index", "The main entry: the Express flavour of the initializer and the low-level helpers."),
  single("web", "The Fetch flavour of the initializer."),
  single("core", "The framework-neutral core."),
  single("jwt", "The session JWT helpers."),
  single("errors", "Every error class."),
  folder("providers", "One entry per provider factory."),
  folder("adapters", "The database adapters."),
  folder("store", "The key-value stores."),
  folder("client", "Browser code, bundled or served by your app."),
]

const KIND_ORDER = ["Functions", "Classes", "Constants", "Types"] as const
type Kind = (typeof KIND_ORDER)[number]

interface Documented {
  name: string
  kind: Kind
  code: string
  doc: string
  examples: string[]
  deprecated?: string
}

const FORMAT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope

/** The public import path of an entry (`index` is the package itself). */
export function importPath(entry: string): string {
  return entry === "index" ? "gatehouse-auth" : `gatehouse-auth/${entry}`
}

/** A fence long enough for `code`, which may itself hold fences (TSDoc examples inside declarations). */
function fence(code: string, lang = "ts"): string {
  const longest = Math.max(2, ...[...code.matchAll(/`{3,}/g)].map((m) => m[0].length))
  const marks = "`".repeat(longest + 1)
  return `${marks}${lang}\n${code.trimEnd()}\n${marks}`
}

/**
 * TSDoc prose as Markdown: `{@link X}` becomes `X` in code, and `<`, `>` and `{{` outside code spans are escaped so the
 * page compiles as a Vue template.
 */
export function prose(text: string): string {
  const linked = text.replace(/\{@link\s+([^}|\s]+)(?:[\s|][^}]*)?\}/g, "`$1`")
  return linked
    .split(/(`[^`\n]*`)/)
    .map((part, i) =>
      i % 2 === 1 ? part : part.replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\{\{/g, "&#123;&#123;"),
    )
    .join("")
}

/** The `@example` text as Markdown: kept as it is when it has its own fence, else fenced as TypeScript. */
function example(text: string): string {
  return /^\s*```/.test(text) ? text.trim() : fence(text.trim())
}

function moduleDoc(source: ts.SourceFile): string {
  const ranges = ts.getLeadingCommentRanges(source.text, 0) ?? []
  const first = ranges.map((r) => source.text.slice(r.pos, r.end)).find((c) => c.startsWith("/**"))
  if (!first) return ""
  return first
    .replace(/^\/\*\*\s*/, "")
    .replace(/\s*\*\/$/, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim()
}

function resolved(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
}

function describe(checker: ts.TypeChecker, exported: ts.Symbol, name: string): Documented | undefined {
  const symbol = resolved(checker, exported)
  const declaration = symbol.declarations?.[0]
  if (!declaration) return undefined
  const tags = symbol.getJsDocTags(checker)
  const text = (tag: ts.JSDocTagInfo) => ts.displayPartsToString(tag.text ?? [])
  const deprecated = tags.find((tag) => tag.name === "deprecated")
  const base = {
    name,
    doc: prose(ts.displayPartsToString(symbol.getDocumentationComment(checker))),
    examples: tags.filter((tag) => tag.name === "example").map((tag) => example(text(tag))),
    ...(deprecated ? { deprecated: prose(text(deprecated)) } : {}),
  }
  if (symbol.flags & ts.SymbolFlags.Function) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration)
    const signatures = type
      .getCallSignatures()
      .map((s) => `function ${name}${checker.signatureToString(s, declaration, FORMAT)}`)
    return { ...base, kind: "Functions", code: signatures.join("\n") }
  }
  if (symbol.flags & ts.SymbolFlags.Class) {
    const node = declaration as ts.ClassDeclaration
    const heritage = node.heritageClauses?.map((clause) => clause.getText()).join(" ")
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration)
    const constructors = type
      .getConstructSignatures()
      .map((s) => `  constructor${checker.signatureToString(s, declaration, FORMAT).replace(/: [^:]*$/, "")}`)
    const code = `class ${name}${heritage ? ` ${heritage}` : ""} {\n${constructors.join("\n")}\n}`
    return { ...base, kind: "Classes", code }
  }
  if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Enum)) {
    const declarations = (symbol.declarations ?? []).filter(
      (d) => ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d) || ts.isEnumDeclaration(d),
    )
    const code = declarations
      .map((d) =>
        d
          .getText()
          .replace(/^export\s+(default\s+)?/, "")
          .replace(/^declare\s+/, ""),
      )
      .join("\n\n")
    return { ...base, kind: "Types", code }
  }
  if (symbol.flags & ts.SymbolFlags.Variable) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration)
    const signatures = type.getCallSignatures()
    if (signatures.length > 0 && type.getProperties().length === 0) {
      const code = signatures.map((s) => `function ${name}${checker.signatureToString(s, declaration, FORMAT)}`)
      return { ...base, kind: "Functions", code: code.join("\n") }
    }
    return { ...base, kind: "Constants", code: `const ${name}: ${checker.typeToString(type, declaration, FORMAT)}` }
  }
  return undefined
}

function entrySection(
  checker: ts.TypeChecker,
  program: ts.Program,
  entry: string,
  file: string,
  level: string,
): string {
  const source = program.getSourceFile(file)
  if (!source) throw new Error(`api-reference: ${file} is not in the program`)
  const moduleSymbol = checker.getSymbolAtLocation(source)
  const exports = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []
  const documented: Documented[] = []
  const defaultExport = exports.find((s) => s.name === "default")
  let defaultNote = ""
  if (defaultExport) {
    const target = resolved(checker, defaultExport)
    const named = exports.find((s) => s !== defaultExport && resolved(checker, s) === target)
    if (named) defaultNote = `The default export is \`${named.name}\`.`
    else {
      const item = describe(checker, defaultExport, target.name === "default" ? "default" : target.name)
      if (item) documented.push(item)
    }
  }
  for (const symbol of exports) {
    if (symbol === defaultExport) continue
    const item = describe(checker, symbol, symbol.name)
    if (item) documented.push(item)
  }
  const lines = [`${level} \`${importPath(entry)}\``, ""]
  const doc = moduleDoc(source)
  if (doc) lines.push(prose(doc), "")
  if (defaultNote) lines.push(defaultNote, "")
  const sub = `${level}#`
  for (const kind of KIND_ORDER) {
    const members = documented.filter((d) => d.kind === kind).sort((a, b) => a.name.localeCompare(b.name))
    for (const member of members) {
      lines.push(`${sub} ${member.name}`, "")
      if (member.deprecated !== undefined) lines.push(`**Deprecated.** ${member.deprecated}`, "")
      lines.push(fence(member.code), "")
      if (member.doc) lines.push(member.doc, "")
      for (const ex of member.examples) lines.push("Example:", "", ex, "")
    }
  }
  return lines.join("\n")
}

/**
 * The generated pages, keyed by their path relative to docs/ (`reference/api/core.md`). `root` is the repository.
 *
 * @example
 * ```ts
 * const pages = apiReferencePages(process.cwd())
 * console.log([...pages.keys()]) // ["reference/api/index.md", "reference/api/gatehouse-auth.md", ...]
 * ```
 */
export function apiReferencePages(root: string): Map<string, string> {
  const cwd = process.cwd()
  let entries: Record<string, string>
  try {
    // tsup.config.ts lists the entries relative to the repository root.
    process.chdir(root)
    entries = entryPoints()
  } finally {
    process.chdir(cwd)
  }
  const files = Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, path.join(root, file)]))
  const program = ts.createProgram(Object.values(files), {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  })
  const checker = program.getTypeChecker()
  const pages = new Map<string, string>()
  const index = [
    "# API reference",
    "",
    "Generated from the TSDoc of the sources by `npm run docs:api` (part of `docs:dev` and `docs:build`): every",
    "export of every entry point, with its signature or declaration. The [configuration reference](../configuration.md)",
    "and the [routes](../routes.md) are written by hand.",
    "",
    "| entry | page |",
    "|---|---|",
  ]
  for (const family of FAMILIES) {
    const names = Object.keys(files).filter(family.matches).sort()
    if (names.length === 0) continue
    const single = names.length === 1 && !family.title.endsWith("*")
    const body = single
      ? entrySection(checker, program, names[0]!, files[names[0]!]!, "#").replace(/^# .*$/m, `# ${family.title}`)
      : [
          `# ${family.title}`,
          "",
          family.intro,
          "",
          ...names.map((name) => entrySection(checker, program, name, files[name]!, "##")),
        ].join("\n")
    pages.set(`${API_DIR}/${family.page}.md`, `${body.trimEnd()}\n`)
    for (const name of names) index.push(`| \`${importPath(name)}\` | [${family.title}](./${family.page}.md) |`)
  }
  pages.set(`${API_DIR}/index.md`, `${index.join("\n")}\n`)
  return pages
}

/** Writes the pages under `docsRoot`, replacing the previous ones. */
export function writeApiReference(root: string, docsRoot = path.join(root, "docs")): string[] {
  const dir = path.join(docsRoot, API_DIR)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const pages = apiReferencePages(root)
  for (const [page, markdown] of pages) writeFileSync(path.join(docsRoot, page), markdown)
  return readdirSync(dir)
}
