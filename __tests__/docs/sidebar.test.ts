/** The site's sidebar is computed from the files of docs/: a new guide page appears without editing the config. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { buildSidebar, DEFAULT_GUIDE_GROUP, frontMatter, pageTitle, sidebarPages } from "../../docs/.vitepress/sidebar"

describe("the sidebar", () => {
  let docs = ""
  beforeEach(() => {
    docs = mkdtempSync(path.join(os.tmpdir(), "gatehouse-docs-"))
    mkdirSync(path.join(docs, "guide/providers"), { recursive: true })
    const page = (file: string, text: string) => writeFileSync(path.join(docs, file), text)
    page("index.md", "# Home\n")
    page("getting-started.md", "# Getting started\n")
    page("guide/email.md", "---\ngroup: Sign-in methods\norder: 2\n---\n\n# Email (magic links)\n")
    page("guide/passkeys.md", "---\ngroup: Sign-in methods\norder: 1\n---\n\n# Passkeys\n")
    page("guide/two-factor.md", "# Two-factor sign-in\n")
    page("guide/providers/index.md", "---\ngroup: Sign-in methods\norder: 3\n---\n\n# `OAuth` providers\n")
    page("guide/providers/enterprise.md", "# Enterprise providers\n")
  })
  afterEach(() => rmSync(docs, { recursive: true, force: true }))

  it("groups guide pages by their front matter, in their order, and folders as nested items", () => {
    const sidebar = buildSidebar(docs)
    const signIn = sidebar.find((section) => section.text === "Sign-in methods")!
    expect(signIn.items).toEqual([
      { text: "Passkeys", link: "/guide/passkeys" },
      { text: "Email (magic links)", link: "/guide/email" },
      {
        text: "OAuth providers",
        link: "/guide/providers/",
        collapsed: false,
        items: [{ text: "Enterprise providers", link: "/guide/providers/enterprise" }],
      },
    ])
  })

  it("lists a page without front matter under the default group", () => {
    const more = buildSidebar(docs).find((section) => section.text === DEFAULT_GUIDE_GROUP)!
    expect(more.items).toEqual([{ text: "Two-factor sign-in", link: "/guide/two-factor" }])
  })

  it("links every page it lists back to its file", () => {
    expect(sidebarPages(buildSidebar(docs)).sort()).toEqual([
      "getting-started",
      "guide/email",
      "guide/passkeys",
      "guide/providers/enterprise",
      "guide/providers/index",
      "guide/two-factor",
      "index",
    ])
  })

  it("reads front matter and titles", () => {
    expect(frontMatter('---\ntitle: "A: b"\norder: 3\n---\n# X\n')).toEqual({ title: "A: b", order: "3" })
    expect(pageTitle("# The `jwt` helpers\n", "jwt")).toBe("The jwt helpers")
    expect(pageTitle("no heading", "fallback")).toBe("fallback")
  })
})
