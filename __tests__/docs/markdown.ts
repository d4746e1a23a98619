/**
 * Reads the documentation for the tests: which Markdown files there are (README.md and the pages of docs/), their
 * TypeScript code blocks, their links and the anchors their headings get on the site (VitePress) and on GitHub.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import path from "node:path"

export const root = path.resolve(__dirname, "../..")
export const docsRoot = path.join(root, "docs")

/** Folders of docs/ that hold no hand-written page: VitePress's own, and the generated API reference. */
const NOT_WRITTEN = new Set([".vitepress", path.join("reference", "api")])

/** README.md and every hand-written page under docs/, as paths relative to the repository (`docs/guide/email.md`). */
export function documentationFiles(): string[] {
  const pages: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(docsRoot, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!NOT_WRITTEN.has(rel)) walk(rel)
      } else if (entry.name.endsWith(".md")) pages.push(path.join("docs", rel))
    }
  }
  walk("")
  return ["README.md", ...pages.sort()]
}

export interface CodeBlock {
  file: string
  /** 1-based line of the opening fence. */
  line: number
  /** The fence's info string: `ts`, `ts no-check`, `sh`, ... */
  info: string
  code: string
}

/** The fenced code blocks of a Markdown text (``` or ~~~, indented by at most three spaces). */
export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split("\n")
  const blocks: CodeBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]!)
    if (!open) continue
    const marker = open[1]!
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length; j++) {
      const close = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}\\s*$`)
      if (close.test(lines[j]!)) break
      body.push(lines[j]!)
    }
    blocks.push({ file, line: i + 1, info: open[2]!.trim(), code: `${body.join("\n")}\n` })
    i = j
  }
  return blocks
}

/** Whether a block is TypeScript the tests compile: `ts`/`typescript`, unless marked `no-check`. */
export function isCheckedTypeScript(block: CodeBlock): boolean {
  const [lang, ...flags] = block.info.split(/\s+/)
  return (lang === "ts" || lang === "typescript") && !flags.includes("no-check")
}

/** Every checked TypeScript block of README.md and of the pages of docs/. */
export function typeScriptBlocks(): CodeBlock[] {
  return documentationFiles().flatMap((file) =>
    codeBlocks(file, readFileSync(path.join(root, file), "utf8")).filter(isCheckedTypeScript),
  )
}

/** The Markdown with its fenced code blocks blanked (headings inside them do not count). */
export function withoutFences(markdown: string): string {
  const lines = markdown.split("\n")
  const blanked = [...lines]
  for (const block of codeBlocks("", markdown)) {
    const end = block.line + block.code.split("\n").length - 1
    for (let i = block.line - 1; i < Math.min(end, lines.length); i++) blanked[i] = ""
  }
  return blanked.join("\n")
}

/** The Markdown with its code blocks and inline code spans blanked (links inside them do not count). */
export function withoutCode(markdown: string): string {
  return withoutFences(markdown).replace(/(`+)[^`\n]*?\1/g, (span) => " ".repeat(span.length))
}

/** A heading's text as both renderers see it: inline code, emphasis and link syntax removed. */
function headingText(raw: string): string {
  return raw
    .replace(/\s*\{#[^}]*\}\s*$/, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .replace(/\*\*?/g, "")
    .trim()
}

// VitePress's slugify (its default for heading anchors).
// eslint-disable-next-line no-control-regex -- the slugifier removes control characters, as VitePress's does
const rControl = /[\u0000-\u001f]/g
const rSpecial = /[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g
const rCombining = /[\u0300-\u036F]/g

export function siteSlug(text: string): string {
  return text
    .normalize("NFKD")
    .replace(rCombining, "")
    .replace(rControl, "")
    .replace(rSpecial, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "")
    .replace(/^(\d)/, "_$1")
    .toLowerCase()
}

/** GitHub's heading anchors: lower case, punctuation other than `-` and `_` dropped, each space a `-`. */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-")
}

/** The anchors of a page's headings under one slug function, with `-1`, `-2`, ... for repeated headings. */
export function anchors(markdown: string, slug: (text: string) => string): Set<string> {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(headingText(match[1]!))
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    result.add(count === 0 ? base : `${base}-${count}`)
  }
  return result
}

export interface Link {
  file: string
  line: number
  target: string
}

/** The inline links and images of a Markdown text (outside code), with their line. */
export function links(file: string, markdown: string): Link[] {
  const text = withoutCode(markdown)
  const found: Link[] = []
  text.split("\n").forEach((line, i) => {
    for (const match of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ file, line: i + 1, target: match[1]! })
    }
    for (const match of line.matchAll(/<a\s[^>]*href="([^"]+)"/g)) found.push({ file, line: i + 1, target: match[1]! })
  })
  return found
}

export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target)
}

export function exists(file: string): boolean {
  return existsSync(file)
}
