// DocuSign: configuration and profile mapping (the catalogue's unit test of this provider).
import DocuSign from "../../lib/providers/docusign"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: DocuSign,
  id: "docusign",
  name: "DocuSign",
  type: "oauth",
  authorization: "https://account.docusign.com/oauth/auth",
  token: "https://account.docusign.com/oauth/token",
  userinfo: "https://account.docusign.com/oauth/userinfo",
  scope: "signature",
  user: { id: "564f7988-e82b-4e0b-a4d7-1e6c5b0e2a11", name: "Grace Hopper", email: "grace@example.com", image: null },
})
