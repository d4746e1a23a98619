// Yahoo: configuration and profile mapping (the catalogue's unit test of this provider).
import Yahoo from "../../lib/providers/yahoo"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Yahoo,
  id: "yahoo",
  name: "Yahoo",
  type: "oidc",
  issuer: "https://api.login.yahoo.com",
  scope: "openid email profile",
  user: {
    id: "FSVIDUW3D7FSVIDUW3D72F2F",
    name: "Jasmine Smith",
    email: "jasmine@example.com",
    image: "https://s.yimg.com/ag/images/default_user_profile_pic_192sq.jpg",
  },
})
