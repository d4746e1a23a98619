/**
 * Socket error codes meaning "the other side cannot be reached now" (it may be back later). Shared by the adapter
 * wrapper (a database that is down) and the OAuth engine (a provider that is down); each adds its own driver codes.
 */
export const SOCKET_UNREACHABLE_CODES: readonly string[] = Object.freeze([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
])
