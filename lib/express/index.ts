/** The Express layer: `Gatehouse`, `ExpressAuth`, `getSession`, `requireAuth`, and the Node ↔ Web converters. */
import "./augment"

export {
  Gatehouse,
  type GatehouseInstance,
  type GatehouseAuth,
  type GatehouseHandlers,
  type GatehouseSignIn,
  type GatehouseSignOut,
  type GatehouseUpdate,
  type AuthenticatedHandler,
  type SignInOptions,
  type SignOutOptions,
  type AuthorizationParams,
} from "./gatehouse"
export type { ExpressConfigInput, SignedInHandler, SignedInRequest } from "./types"
export { ExpressAuth, type ExpressAuthConfig, type ExpressAuthOptions } from "./auth"
export { getSession } from "./session"
export { requireAuth, type RequireAuthOptions } from "./require-auth"
export { toWebRequest, sendWebResponse, type NodeRequest, type ToWebRequestOptions } from "./convert"
