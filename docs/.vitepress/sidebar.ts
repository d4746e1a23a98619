/**
 * The site's navigation, computed from the files in docs/ on every `docs:dev` / `docs:build`: a page added under
 * docs/guide/ (or a folder of pages such as docs/guide/providers/) appears without touching this file. A guide page
 * picks its group and place with front matter (`group: Sessions`, `order: 3`); without it, it lands in "More guides",
 * sorted by title.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import path from "node:path"

/** A sidebar entry, in the shape VitePress's default theme takes. */
export interface SidebarItem {
  text: string
  link?: string
  items?: SidebarItem[]
  collapsed?: boolean
}

/** The guide groups in the order they are shown; a page names one in its front matter (`group:`). */
export const GUIDE_GROUPS = ["Using Gatehouse", "Sign-in methods", "Sessions", "Production", "Moving over"] as const

/** Where a page without a known `group` goes. */
export const DEFAULT_GUIDE_GROUP = "More guides"

/** Pages outside docs/guide/, in the order they are shown (paths relative to docs/, without `.md`). */
export const FIXED_SECTIONS: { text: string; pages: string[] }[] = [
  { text: "Introduction", pages: ["index", "getting-started", "demo"] },
  { text: "Reference", pages: ["reference/configuration", "reference/routes"] },
  { text: "Measured", pages: ["performance", "benchmarks", "reliability"] },
  { text: "Project", pages: ["architecture", "testing", "changelog"] },
]

/** Folders whose pages are generated at build time and listed as a group of their own (see api-reference.ts). */
export const GENERATED_SECTIONS: { text: string; dir: string }[] = [{ text: "API reference", dir: "reference/api" }]

export interface PageInfo {
  /** Path relative to docs/ without `.md`, with `/` separators (`guide/email`, `guide/providers/index`). */
  page: string
  title: string
  group?: string
  order?: number
}

/** The front matter's `key: value` lines (plain scalars only, which is all the sidebar reads). */
export function frontMatter(markdown: string): Record<string, string> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(markdown)
  const fields: Record<string, string> = {}
  if (!match) return fields
  for (const line of match[1]!.split(/\r?\n/)) {
    const field = /^([A-Za-z][\w-]*):\s*(.*?)\s*$/.exec(line)
    if (field) fields[field[1]!] = field[2]!.replace(/^(["'])(.*)\1$/, "$2")
  }
  return fields
}

/** The page's title: `title:` from the front matter, else its first `# ` heading without inline-code backticks. */
export function pageTitle(markdown: string, fallback: string): string {
  const fields = frontMatter(markdown)
  if (fields.title) return fields.title
  const heading = /^# (.+)$/m.exec(markdown)
  return heading ? heading[1]!.replace(/`/g, "").trim() : fallback
}

export function readPage(docsRoot: string, page: string): PageInfo {
  const markdown = readFileSync(path.join(docsRoot, `${page}.md`), "utf8")
  const fields = frontMatter(markdown)
  const order = fields.order === undefined ? undefined : Number(fields.order)
  return {
    page,
    title: pageTitle(markdown, path.basename(page)),
    ...(fields.group ? { group: fields.group } : {}),
    ...(order !== undefined && Number.isFinite(order) ? { order } : {}),
  }
}

/** The site link of a page: `index` is `/`, `guide/providers/index` is `/guide/providers/`. */
export function pageLink(page: string): string {
  if (page === "index") return "/"
  return page.endsWith("/index") ? `/${page.slice(0, -"index".length)}` : `/${page}`
}

function byOrderThenTitle(a: PageInfo, b: PageInfo): number {
  const order = (a.order ?? Number.MAX_SAFE_INTEGER) - (b.order ?? Number.MAX_SAFE_INTEGER)
  return order !== 0 ? order : a.title.localeCompare(b.title)
}

function markdownFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => name.slice(0, -3))
}

/**
 * One entry per page of docs/guide/ and one per sub-folder (its `index.md` is the entry's own page and gives its
 * group and order; the folder's other pages are its items), grouped by `group`.
 */
function guideGroups(docsRoot: string): SidebarItem[] {
  const guideDir = path.join(docsRoot, "guide")
  const entries: { info: PageInfo; item: SidebarItem }[] = []
  for (const name of markdownFiles(guideDir)) {
    const info = readPage(docsRoot, `guide/${name}`)
    entries.push({ info, item: { text: info.title, link: pageLink(info.page) } })
  }
  const folders = existsSync(guideDir)
    ? readdirSync(guideDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : []
  for (const folder of folders) {
    const pages = markdownFiles(path.join(guideDir, folder)).map((name) =>
      readPage(docsRoot, `guide/${folder}/${name}`),
    )
    if (pages.length === 0) continue
    const index = pages.find((page) => page.page.endsWith("/index"))
    const children = pages.filter((page) => page !== index).sort(byOrderThenTitle)
    const info: PageInfo = index ?? { page: `guide/${folder}`, title: folder }
    entries.push({
      info,
      item: {
        text: info.title,
        ...(index ? { link: pageLink(index.page) } : {}),
        ...(children.length > 0
          ? { collapsed: false, items: children.map((page) => ({ text: page.title, link: pageLink(page.page) })) }
          : {}),
      },
    })
  }
  const known = new Set<string>(GUIDE_GROUPS)
  const groups: SidebarItem[] = []
  for (const group of [...GUIDE_GROUPS, DEFAULT_GUIDE_GROUP]) {
    const members = entries
      .filter(({ info }) => (known.has(info.group ?? "") ? info.group === group : group === DEFAULT_GUIDE_GROUP))
      .sort((a, b) => byOrderThenTitle(a.info, b.info))
    if (members.length > 0) groups.push({ text: group, collapsed: false, items: members.map(({ item }) => item) })
  }
  return groups
}

/** The whole sidebar: the fixed sections around the guide groups and the generated reference pages. */
export function buildSidebar(docsRoot: string): SidebarItem[] {
  const fixed = (text: string): SidebarItem => {
    const section = FIXED_SECTIONS.find((s) => s.text === text)!
    const items = section.pages
      .filter((page) => existsSync(path.join(docsRoot, `${page}.md`)))
      .map((page) => ({ text: readPage(docsRoot, page).title, link: pageLink(page) }))
    return { text, collapsed: false, items }
  }
  const generated = GENERATED_SECTIONS.map(({ text, dir }) => {
    const pages = markdownFiles(path.join(docsRoot, dir)).map((name) => readPage(docsRoot, `${dir}/${name}`))
    pages.sort((a, b) => (a.page.endsWith("/index") ? -1 : b.page.endsWith("/index") ? 1 : byOrderThenTitle(a, b)))
    return { text, collapsed: true, items: pages.map((page) => ({ text: page.title, link: pageLink(page.page) })) }
  }).filter((section) => section.items.length > 0)
  return [
    fixed("Introduction"),
    ...guideGroups(docsRoot),
    fixed("Reference"),
    ...generated,
    fixed("Measured"),
    fixed("Project"),
  ]
}

/** Every page the sidebar links to, as paths relative to docs/ without `.md`. */
export function sidebarPages(items: SidebarItem[]): string[] {
  return items.flatMap((item) => {
    const own = item.link ? [item.link === "/" ? "index" : item.link.replace(/^\//, "").replace(/\/$/, "/index")] : []
    return [...own, ...sidebarPages(item.items ?? [])]
  })
}
