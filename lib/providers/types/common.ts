/** What every provider config has: its id, name and type, and the brand style of its sign-in button. */
import type { ProviderType } from "../../models"

/** Brand style of a provider button on the built-in sign-in page. */
export interface ProviderStyle {
  /** An image URL (https or `data:image/...`) shown instead of the built-in monogram mark. */
  logo?: string
  /** @deprecated use brandColor */
  bg?: string
  brandColor?: string
  text?: string
  /** Button background in dark mode; derived from `brandColor` when left out. */
  bgDark?: string
  /** Button text colour in dark mode; derived when left out. */
  textDark?: string
}

/** The fields every provider config has. */
export interface CommonProviderOptions {
  id: string
  name: string
  type: ProviderType
}
