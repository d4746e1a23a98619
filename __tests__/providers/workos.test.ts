// WorkOS: configuration and profile mapping (the catalogue's unit test of this provider).
import WorkOS from "../../lib/providers/workos"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: WorkOS,
  id: "workos",
  name: "WorkOS",
  type: "oauth",
  authorization: "https://api.workos.com/sso/authorize?connection=",
  token: "https://api.workos.com/sso/token",
  userinfo: "https://api.workos.com/sso/profile",
  scope: "openid profile email",
  clientAuth: "client_secret_post",
  user: {
    id: "prof_01DMC79VCBZ0NY2099737PSVF1",
    name: "Todd Rundgren",
    email: "todd@example.com",
    image: "https://okta.example/todd.png",
  },
})
