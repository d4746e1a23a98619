// Azure AD B2C: configuration and profile mapping (the catalogue's unit test of this provider).
import AzureADB2C from "../../lib/providers/azure-ad-b2c"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: AzureADB2C,
  id: "azure-ad-b2c",
  name: "Azure AD B2C",
  type: "oidc",
  issuer: "required",
  tenantIssuer: "https://contoso.b2clogin.com/775527ff-9a37-4307-8b3d-cc311f58d925/v2.0/",
  scope: "openid profile email",
  user: {
    id: "7f3e2a1b-0c9d-4e8f-a7b6-c5d4e3f2a1b0",
    name: "Sam Rivera",
    email: "sam.rivera@example.com",
    image: null,
  },
})
