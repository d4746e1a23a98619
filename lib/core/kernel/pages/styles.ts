// The stylesheet inlined into every built-in page (no external requests; the CSP allows inline styles only).

const lightPalette =
  "--gh-page-bg:#f3f4f6;--gh-card-bg:#ffffff;--gh-fg:#1f2328;--gh-muted:#59636e;--gh-border:#d1d5db;" +
  "--gh-input-bg:#ffffff;--gh-focus:#2563eb;--gh-error-bg:#fef2f2;--gh-error-fg:#991b1b;--gh-error-border:#fca5a5"

const darkPalette =
  "--gh-page-bg:#111418;--gh-card-bg:#1b1f24;--gh-fg:#e6e8eb;--gh-muted:#9aa4ae;--gh-border:#3a414a;" +
  "--gh-input-bg:#0f1216;--gh-focus:#60a5fa;--gh-error-bg:#3b1515;--gh-error-fg:#fecaca;--gh-error-border:#7f1d1d"

/** The CSS shared by all pages; theme overrides (validated colours only) are appended after it. */
export const pageCss = [
  ":root{--gh-brand:#334155;--gh-brand-text:#ffffff}",
  "*,*::before,*::after{box-sizing:border-box}",
  `.__next-auth-theme-light,.__next-auth-theme-auto{color-scheme:light;${lightPalette}}`,
  `.__next-auth-theme-dark{color-scheme:dark;${darkPalette}}`,
  `@media (prefers-color-scheme:dark){.__next-auth-theme-auto{color-scheme:dark;${darkPalette}}}`,
  "body{margin:0;min-height:100vh;background:var(--gh-page-bg);color:var(--gh-fg);" +
    'font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}',
  ".page{display:flex;flex-direction:column;align-items:center;justify-content:center;min-height:100vh;" +
    "padding:2rem 1rem;gap:1.25rem}",
  ".brand-logo{display:block;max-width:10rem;max-height:4.5rem;object-fit:contain}",
  ".card{width:100%;max-width:22rem;padding:1.75rem 1.5rem;background:var(--gh-card-bg);" +
    "border:1px solid var(--gh-border);border-radius:.75rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}",
  ".card h1{margin:0 0 .75rem;font-size:1.35rem;font-weight:650;line-height:1.25}",
  ".card p{margin:0 0 1rem;color:var(--gh-muted)}",
  ".card p:last-child{margin-bottom:0}",
  ".card hr{margin:1.25rem 0;border:0;border-top:1px solid var(--gh-border)}",
  ".provider+.provider{margin-top:.6rem}",
  ".provider form{display:flex;flex-direction:column;margin:0}",
  ".field-label{margin:.25rem 0 .3rem;font-size:.875rem;font-weight:600}",
  ".field{width:100%;margin-bottom:.75rem;padding:.6rem .75rem;font:inherit;color:var(--gh-fg);" +
    "background:var(--gh-input-bg);border:1px solid var(--gh-border);border-radius:.5rem}",
  ".field:focus{outline:2px solid var(--gh-focus);outline-offset:1px}",
  ".button{display:inline-flex;align-items:center;justify-content:center;gap:.6rem;width:100%;min-height:2.75rem;" +
    "padding:.6rem 1rem;font:inherit;font-weight:600;text-decoration:none;cursor:pointer;" +
    "color:var(--gh-brand-text);background:var(--gh-brand);border:1px solid transparent;border-radius:.5rem}",
  ".button:hover{filter:brightness(1.08)}",
  ".button:focus-visible{outline:2px solid var(--gh-focus);outline-offset:2px}",
  ".provider-button{color:var(--provider-fg,var(--gh-fg));background:var(--provider-bg,var(--gh-card-bg));" +
    "border-color:var(--gh-border)}",
  ".__next-auth-theme-dark .provider-button{color:var(--provider-fg-dark,var(--provider-fg,var(--gh-fg)));" +
    "background:var(--provider-bg-dark,var(--provider-bg,var(--gh-card-bg)))}",
  "@media (prefers-color-scheme:dark){.__next-auth-theme-auto .provider-button{" +
    "color:var(--provider-fg-dark,var(--provider-fg,var(--gh-fg)));" +
    "background:var(--provider-bg-dark,var(--provider-bg,var(--gh-card-bg)))}}",
  ".provider-logo,.provider-mark{width:1.4rem;height:1.4rem;flex:none;object-fit:contain}",
  ".error{margin-bottom:1.25rem;padding:.75rem 1rem;color:var(--gh-error-fg);background:var(--gh-error-bg);" +
    "border:1px solid var(--gh-error-border);border-radius:.5rem}",
  ".error p{margin:0;color:inherit}",
  ".site{color:var(--gh-fg);font-weight:600}",
  ".back{margin-top:1rem;text-align:center}",
].join("")
