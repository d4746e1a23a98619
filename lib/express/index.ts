/** The Express layer: `ExpressAuth`, `getSession`, `requireAuth`, and the Node ↔ Web converters. */
import "./augment"

export { ExpressAuth, type ExpressAuthConfig, type ExpressAuthOptions } from "./auth"
export { getSession } from "./session"
export { requireAuth, type RequireAuthOptions } from "./require-auth"
export {
  toWebRequest,
  sendWebResponse,
  sendSerialized,
  DEFAULT_BODY_LIMIT,
  type NodeRequest,
  type ToWebRequestOptions,
} from "./convert"
