/**
 * Checks a built site (docs/.vitepress/dist) works offline: no page loads a script, stylesheet, font, image or frame
 * from another host, and the local search index is there. `npm run docs:check` builds the site and runs this; CI runs
 * that after `npm test`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import path from "node:path"

/** Hosts that serve fonts and libraries to pages; any mention of them in the built site is a finding. */
const CDN_HOSTS =
  /\b(fonts\.googleapis\.com|fonts\.gstatic\.com|cdn\.jsdelivr\.net|unpkg\.com|cdnjs\.cloudflare\.com|use\.typekit\.net|esm\.sh|algolia\.net|algolianet\.com)\b/

// What makes a browser fetch a URL: an element's src/href (links to read, <a href>, do not), a CSS url() or @import, a
// JavaScript import.
const HTML_LOADS =
  /<(script|link|img|iframe|source|video|audio|embed|object)\b[^>]*?\s(?:src|href|data|srcset)\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi
const CSS_LOADS = /(?:url\(\s*["']?|@import\s+["']?)((?:https?:)?\/\/[^"')\s]+)/gi
const JS_LOADS = /\b(?:import\s*\(\s*|from\s*|import\s+)["'`]((?:https?:)?\/\/[^"'`]+)/g

function files(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((file) => path.join(dir, file))
}

/** Every resource a built page would fetch from another host, as `file: URL`. */
export function externalResources(distDir: string): string[] {
  const found: string[] = []
  for (const file of files(distDir)) {
    const ext = path.extname(file)
    if (![".html", ".css", ".js", ".mjs"].includes(ext)) continue
    const text = readFileSync(file, "utf8")
    const rel = path.relative(distDir, file)
    const patterns = ext === ".html" ? [HTML_LOADS, CSS_LOADS, JS_LOADS] : ext === ".css" ? [CSS_LOADS] : [JS_LOADS]
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) found.push(`${rel}: ${match[match.length - 1]}`)
    }
    const cdn = CDN_HOSTS.exec(text)
    if (cdn) found.push(`${rel}: mentions ${cdn[1]}`)
  }
  return [...new Set(found)].sort()
}

/** What is wrong with a built site, or an empty list. */
export function siteProblems(distDir: string): string[] {
  if (!existsSync(path.join(distDir, "index.html"))) return [`${distDir}: no index.html (build the site first)`]
  const problems = externalResources(distDir).map((finding) => `loads from another host: ${finding}`)
  const hasSearchIndex = files(distDir).some((file) => /localSearchIndex/.test(path.basename(file)))
  if (!hasSearchIndex) problems.push("no local search index in the build")
  return problems
}

if (require.main === module) {
  const dist = path.resolve(process.argv[2] ?? path.join(__dirname, "dist"))
  const problems = siteProblems(dist)
  for (const problem of problems) console.error(problem)
  if (problems.length > 0) process.exit(1)
  console.log(
    `${path.relative(process.cwd(), dist)}: works offline (local search, no outside scripts, styles or fonts)`,
  )
}
