// HubSpot: configuration and profile mapping (the catalogue's unit test of this provider).
import HubSpot from "../../lib/providers/hubspot"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: HubSpot,
  id: "hubspot",
  name: "HubSpot",
  type: "oauth",
  authorization: "https://app.hubspot.com/oauth/authorize",
  token: "https://api.hubapi.com/oauth/v1/token",
  userinfo: "https://api.hubapi.com/oauth/v1/access-tokens",
  scope: "oauth",
  clientAuth: "client_secret_post",
  user: { id: "8675309", name: "maria@example.com", email: "maria@example.com", image: null },
})
