/**
 * Issue 29, item 10: provider buttons show the brand's own mark (inline SVG embedded at build time from simple-icons,
 * no request at run time), a monogram from the first significant word for a provider without one, and the sign-in
 * card says where you are signing in ("Sign in to {host}").
 */
import { readFileSync } from "node:fs"
import path from "node:path"
import { renderSignInPage, type PageProvider } from "../../../lib/core/kernel/pages"
import { brandMarks } from "../../../lib/core/kernel/pages/brand-marks.generated"
import { providerMark } from "../../../lib/core/kernel/pages/provider-button"
import { providers as catalogue } from "../../../lib/catalog"
import { MARKS_FILE, brandMarksOf, catalogueIds, renderBrandMarks } from "../../../scripts/brand-marks"

const origin = "https://app.example"
const button = (id: string, name: string): PageProvider => ({
  id,
  name,
  type: "oauth",
  signinUrl: `${origin}/auth/signin/${id}`,
  callbackUrl: `${origin}/auth/callback/${id}`,
})

/** The drawing of a mark: its path data, or the monogram letter. */
function drawing(svg: string): string {
  return /<path fill="currentColor" d="([^"]+)"\/>/.exec(svg)?.[1] ?? /<text[^>]*>([^<]+)<\/text>/.exec(svg)?.[1] ?? ""
}

describe("brand marks", () => {
  it("GitHub, Google and GitLab each show their own mark, no longer the same letter", () => {
    const marks = ["github", "google", "gitlab"].map((id) => providerMark(id, id))
    for (const mark of marks) {
      expect(mark).toMatch(/^<svg class="provider-mark" viewBox="0 0 24 24"[^>]*aria-hidden="true"[^>]*><path /)
      expect(mark).not.toContain("<text")
    }
    expect(new Set(marks.map(drawing)).size).toBe(3)
    expect(drawing(marks[0]!)).toBe(brandMarks.github!.path)
  })

  it("the page embeds them inline: no image, no URL, nothing fetched", () => {
    const { html } = renderSignInPage({
      providers: [button("github", "GitHub"), button("google", "Google"), button("gitlab", "GitLab")],
      csrfToken: "t",
      theme: {},
    })
    expect(html.match(/<svg class="provider-mark"[^>]*><path fill="currentColor" d="/g)).toHaveLength(3)
    expect(html).not.toMatch(/<img|https?:\/\/(?!app\.example)/)
  })

  it("a provider without a mark gets a monogram of its first significant word", () => {
    expect(drawing(providerMark("the local identity provider", "local-idp"))).toBe("L")
    expect(drawing(providerMark("Acme SSO", "acme"))).toBe("A")
    expect(drawing(providerMark("  an Example IdP", "x"))).toBe("E")
    expect(drawing(providerMark("", "nothing"))).toBe("?")
    // An id that only looks like a member of the table is no mark.
    expect(drawing(providerMark("Proto", "__proto__"))).toBe("P")
    expect(drawing(providerMark("Constructor", "constructor"))).toBe("C")
  })

  it("covers the catalogue's well-known brands, and only catalogue ids", () => {
    const ids = catalogue.map((p) => p.id)
    expect(catalogueIds()).toEqual([...ids].sort())
    for (const id of ["github", "google", "gitlab", "discord", "apple", "facebook", "twitter", "spotify", "twitch"]) {
      expect(Object.hasOwn(brandMarks, id)).toBe(true)
    }
    for (const id of Object.keys(brandMarks)) expect(ids).toContain(id)
    // Path data only: nothing that could close the attribute or the element.
    for (const { path: d } of Object.values(brandMarks)) expect(d).toMatch(/^[MmZzLlHhVvCcSsQqTtAaEe0-9.,\s+-]+$/)
  })

  it("the generated module is what scripts/brand-marks.ts writes from the installed simple-icons", () => {
    expect(readFileSync(MARKS_FILE, "utf8")).toBe(renderBrandMarks(catalogueIds()))
    expect(brandMarksOf(catalogueIds()).length).toBe(Object.keys(brandMarks).length)
    expect(path.basename(MARKS_FILE)).toBe("brand-marks.generated.ts")
  })
})

describe("the sign-in card's heading", () => {
  it('says "Sign in to {host}", escaped; without a site name there is none', () => {
    const page = (siteName?: string) =>
      renderSignInPage({
        providers: [button("github", "GitHub")],
        csrfToken: "t",
        theme: {},
        ...(siteName ? { siteName } : {}),
      }).html
    expect(page("app.example:8443")).toContain('<main class="card signin"><h1>Sign in to app.example:8443</h1>')
    expect(page("<b>x</b>")).toContain("<h1>Sign in to &lt;b&gt;x&lt;/b&gt;</h1>")
    expect(page()).not.toContain("<h1>")
  })
})
