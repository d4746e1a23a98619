// The default sign-in email: the link's lifetime is stated, and the button matches the pages' brand colour.
import { DEFAULT_EMAIL_BRAND, lifetimeText, signInMessage } from "../../lib/providers/internal/email-message"

const url = "https://app.example/auth/callback/email?token=abc&email=a%40b.example"

describe("the sign-in email", () => {
  it("states how long the link lives, in the text and the HTML", () => {
    const message = signInMessage({ url, theme: {}, expires: new Date(Date.now() + 10 * 60_000) })
    expect(message.text).toContain("This link expires in 10 minutes.")
    expect(message.html).toContain("This link expires in 10 minutes.")
    expect(message.text.split("\n")[1]).toBe(url)
  })

  it("says nothing about a lifetime it does not know (no or an invalid expiry)", () => {
    for (const expires of [undefined, new Date("nope")]) {
      const message = signInMessage({ url, theme: {}, ...(expires ? { expires } : {}) })
      expect(message.text).not.toContain("expires")
      expect(message.html).not.toContain("expires")
    }
  })

  it("words minutes and hours", () => {
    const now = Date.UTC(2026, 10, 23)
    expect(lifetimeText(new Date(now + 30_000), now)).toBe("1 minute")
    expect(lifetimeText(new Date(now + 60 * 60_000), now)).toBe("60 minutes")
    expect(lifetimeText(new Date(now + 24 * 3600_000), now)).toBe("24 hours")
    expect(lifetimeText(new Date(now - 3600_000), now)).toBe("1 minute")
  })

  it("uses the theme's brand colour, else the built-in pages' default, and ignores anything that is not a colour", () => {
    expect(signInMessage({ url, theme: {} }).html).toContain(`background:${DEFAULT_EMAIL_BRAND};`)
    expect(DEFAULT_EMAIL_BRAND).toBe("#334155")
    expect(signInMessage({ url, theme: { brandColor: "#ff0066" } }).html).toContain("background:#ff0066;")
    const hostile = signInMessage({ url, theme: { brandColor: "red;background:url(https://evil.example)" } })
    expect(hostile.html).not.toContain("evil.example")
    expect(hostile.html).toContain(`background:${DEFAULT_EMAIL_BRAND};`)
  })
})
