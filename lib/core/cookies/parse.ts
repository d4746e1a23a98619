/** The strict Cookie header parser (shared with `getToken`, so it lives in lib/cookie-header.ts). */
export { parseCookieHeader } from "../../cookie-header"
