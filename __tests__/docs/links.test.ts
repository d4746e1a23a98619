/**
 * Internal links of README.md and docs/: every relative link names a file that exists, every anchor names a heading of
 * its target, and every page of the site is in its navigation and has something to read.
 */
import { readFileSync } from "node:fs"
import path from "node:path"
import { apiReferencePages } from "../../docs/.vitepress/api-reference"
import { buildSidebar, sidebarPages } from "../../docs/.vitepress/sidebar"
import {
  anchors,
  docsRoot,
  documentationFiles,
  exists,
  githubSlug,
  isExternal,
  links,
  root,
  siteSlug,
  withoutCode,
  type Link,
} from "./markdown"

/** Pages that are only an include of a file outside docs/ (the site shows it; GitHub shows the file itself). */
const INCLUDES: Record<string, string> = {
  "docs/benchmarks.md": "bench/README.md",
  "docs/changelog.md": "CHANGELOG.md",
}

function read(file: string): string {
  return readFileSync(path.join(root, file), "utf8")
}

/**
 * What is wrong with one link, or undefined. `pages` holds the text of every page (hand-written and generated), keyed
 * by its path relative to the repository.
 */
function problem(link: Link, pages: Map<string, string>): string | undefined {
  const { file, target } = link
  if (isExternal(target)) return undefined
  const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined]
  const inDocs = file.startsWith("docs/")
  if (pathPart.startsWith("/")) return "site-absolute link: link the .md file relatively, so it works on GitHub too"
  const resolved = pathPart === "" ? file : path.normalize(path.join(path.dirname(file), decodeURI(pathPart)))
  if (resolved.startsWith("..")) return "points outside the repository"
  if (inDocs && !resolved.startsWith("docs/"))
    return "a page of the site links outside docs/: the site cannot serve it (name the file in code instead)"
  if (inDocs && !resolved.endsWith(".md")) return "a page of the site links a file that is not a page"
  const text = pages.get(resolved) ?? (exists(path.join(root, resolved)) ? read(resolved) : undefined)
  if (text === undefined) return `no such file: ${resolved}`
  if (anchor === undefined) return undefined
  if (!resolved.endsWith(".md")) return "an anchor into a file that is not Markdown"
  const included = INCLUDES[resolved]
  const headings = included ? read(included) : text
  // A docs page is read on the site and on GitHub: its anchors must be the same under both; README.md only on GitHub.
  const slugs = resolved.startsWith("docs/") ? [siteSlug, githubSlug] : [githubSlug]
  for (const slug of slugs) {
    if (!anchors(headings, slug).has(anchor)) {
      return slug === siteSlug
        ? `no heading with the anchor #${anchor} in ${resolved} on the site`
        : `no heading with the anchor #${anchor} in ${resolved} on GitHub (simplify the heading or the link)`
    }
  }
  return undefined
}

describe("documentation links", () => {
  const files = documentationFiles()
  const generated = new Map<string, string>()

  beforeAll(() => {
    for (const [page, text] of apiReferencePages(root)) generated.set(path.join("docs", page), text)
  }, 60_000)

  function allPages(): Map<string, string> {
    const pages = new Map<string, string>(generated)
    for (const file of files) pages.set(file, read(file))
    return pages
  }

  it("finds the README and the pages of docs/", () => {
    expect(files).toEqual(
      expect.arrayContaining(["README.md", "docs/getting-started.md", "docs/guide/migrating-from-authjs.md"]),
    )
    expect(files.length).toBeGreaterThan(20)
  })

  it("every relative link of README.md and docs/ resolves, anchors included", () => {
    const pages = allPages()
    const broken = files
      .flatMap((file) => links(file, pages.get(file)!))
      .map((link) => ({ link, problem: problem(link, pages) }))
      .filter((entry) => entry.problem !== undefined)
      .map(({ link, problem }) => `${link.file}:${link.line} ${link.target}: ${problem}`)
    expect(broken).toEqual([])
  })

  it("every link of the generated API reference resolves", () => {
    const pages = allPages()
    const broken = [...generated.keys()]
      .flatMap((file) => links(file, generated.get(file)!))
      .map((link) => ({ link, problem: problem(link, pages) }))
      .filter((entry) => entry.problem !== undefined)
      .map(({ link, problem }) => `${link.file} ${link.target}: ${problem}`)
    expect(broken).toEqual([])
  })

  it("catches a broken file, a broken anchor and an anchor GitHub would not find", () => {
    const pages = new Map([
      ["docs/a.md", "# A\n\n## Proxies and `trust proxy`\n\n## `Gatehouse(config)`: handlers\n"],
      ["README.md", "# R\n\n## Try it\n"],
    ])
    const check = (file: string, target: string) => problem({ file, line: 1, target }, pages)
    expect(check("README.md", "docs/a.md#proxies-and-trust-proxy")).toBeUndefined()
    expect(check("README.md", "#try-it")).toBeUndefined()
    expect(check("README.md", "#try-this")).toMatch(/no heading/)
    expect(check("README.md", "docs/missing.md")).toMatch(/no such file/)
    expect(check("docs/a.md", "#gatehouse-config-handlers")).toMatch(/on GitHub/)
    expect(check("docs/a.md", "../README.md")).toMatch(/outside docs/)
    expect(check("docs/a.md", "/guide/a")).toMatch(/site-absolute/)
  })

  it("every page of docs/ is in the sidebar, and every sidebar link is a page", () => {
    const sidebar = sidebarPages(buildSidebar(docsRoot)).filter((page) => !page.startsWith("reference/api/"))
    const pages = files.filter((file) => file.startsWith("docs/")).map((file) => file.slice(5, -3))
    expect([...sidebar].sort()).toEqual([...pages].sort())
  })

  it("no page is empty: each has a title and some text besides headings", () => {
    const empty = files.filter((file) => {
      const text = INCLUDES[file] ? read(INCLUDES[file]) : read(file)
      const prose = withoutCode(text)
        .replace(/^---[\s\S]*?---\n/, "")
        .split("\n")
        .filter((line) => line.trim() !== "" && !/^#{1,6}\s/.test(line))
      return !/^# /m.test(text) || prose.join(" ").length < 200
    })
    expect(empty).toEqual([])
  })
})
