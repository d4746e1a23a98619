/**
 * The offline check of the built site (docs/.vitepress/check-site.ts, run by `npm run docs:check` in CI) on small
 * sites made here: it finds what a page would fetch from another host, and only that.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { externalResources, siteProblems } from "../../docs/.vitepress/check-site"

function site(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gatehouse-site-"))
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), text)
  }
  return dir
}

const clean = {
  "index.html":
    '<link rel="preload stylesheet" href="/assets/style.css"><script type="module" src="/assets/app.js"></script>' +
    '<a href="https://www.npmjs.com/package/gatehouse-auth">npm</a><pre><code>https://sso.example.com</code></pre>',
  "assets/style.css": '@font-face{src:url(/assets/inter.woff2)} .x{background:url("data:image/svg+xml,%3Csvg/%3E")}',
  "assets/app.js": 'import{a}from"./chunks/framework.js";const issuer="https://sso.example.com"',
  "assets/chunks/@localSearchIndexroot.js": "export default {}",
}

describe("the built site's offline check", () => {
  const dirs: string[] = []
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))
  const make = (files: Record<string, string>) => {
    const dir = site(files)
    dirs.push(dir)
    return dir
  }

  it("passes a site whose resources are all its own, with links and example URLs in the text", () => {
    expect(siteProblems(make(clean))).toEqual([])
  })

  it("finds a script, a stylesheet, a font and a module import from another host", () => {
    const dir = make({
      ...clean,
      "index.html": `${clean["index.html"]}<script src="https://cdn.example.net/x.js"></script><link rel="stylesheet" href="//styles.example.net/a.css">`,
      "assets/style.css": `${clean["assets/style.css"]}@font-face{src:url(https://fonts.example.net/f.woff2)}`,
      "assets/app.js": `${clean["assets/app.js"]};import("https://esm.example.net/m.js")`,
    })
    expect(externalResources(dir)).toEqual([
      "assets/app.js: https://esm.example.net/m.js",
      "assets/style.css: https://fonts.example.net/f.woff2",
      "index.html: //styles.example.net/a.css",
      "index.html: https://cdn.example.net/x.js",
    ])
  })

  it("finds a font service named anywhere, and a missing search index", () => {
    const dir = make({
      "index.html": '<style>@import "https://fonts.googleapis.com/css2?family=Inter";</style>',
    })
    expect(siteProblems(dir)).toEqual([
      "loads from another host: index.html: https://fonts.googleapis.com/css2?family=Inter",
      "loads from another host: index.html: mentions fonts.googleapis.com",
      "no local search index in the build",
    ])
  })

  it("says when there is no build", () => {
    expect(siteProblems(make({}))[0]).toMatch(/no index\.html/)
  })
})
