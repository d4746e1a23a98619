// The documentation site (VitePress): `npm run docs:dev`, `npm run docs:build`. Works offline: local search, the
// theme's own bundled font, no script or stylesheet from another host (`__tests__/docs/site.test.ts` checks the build).
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitepress"
import { buildSidebar } from "./sidebar"

const docsRoot = fileURLToPath(new URL("..", import.meta.url))

export default defineConfig({
  title: "Gatehouse",
  description: "Authentication for Express, in TypeScript. Wire-compatible with Auth.js v5.",
  lang: "en",
  // The site is read from disk or any static host: relative asset URLs, .html links.
  base: process.env.DOCS_BASE ?? "/",
  cleanUrls: false,
  lastUpdated: false,
  // Code blocks are type-checked by the tests; the site only shows them.
  markdown: { theme: { light: "github-light", dark: "github-dark" } },
  themeConfig: {
    search: { provider: "local" },
    nav: [
      { text: "Guide", link: "/getting-started" },
      { text: "Configuration", link: "/reference/configuration" },
      { text: "API", link: "/reference/api/" },
    ],
    sidebar: buildSidebar(docsRoot),
    outline: { level: [2, 3] },
    docFooter: { prev: "Previous", next: "Next" },
  },
})
