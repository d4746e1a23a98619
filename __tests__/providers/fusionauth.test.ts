// FusionAuth: configuration and profile mapping (the catalogue's unit test of this provider).
import FusionAuth from "../../lib/providers/fusionauth"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: FusionAuth,
  id: "fusionauth",
  name: "FusionAuth",
  type: "oidc",
  issuer: "required",
  tenantIssuer: "https://auth.fusion.example",
  scope: "openid offline_access email profile",
  checks: ["state"],
  user: { id: "2a106a6a-6a8e-4a2f-8f46-bd5a4b3b1f0c", name: "Mary Ann Smith", email: "mary@example.com", image: null },
})
