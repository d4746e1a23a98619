// ORCID: configuration and profile mapping (the catalogue's unit test of this provider).
import Orcid from "../../lib/providers/orcid"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Orcid,
  id: "orcid",
  name: "ORCID",
  type: "oidc",
  issuer: "https://orcid.org",
  scope: "openid",
  user: { id: "0000-0002-1825-0097", name: "Josiah Carberry", email: null, image: null },
})
