// WordPress.com: configuration and profile mapping (the catalogue's unit test of this provider).
import WordPress from "../../lib/providers/wordpress"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: WordPress,
  id: "wordpress",
  name: "WordPress.com",
  type: "oauth",
  authorization: "https://public-api.wordpress.com/oauth2/authorize",
  token: "https://public-api.wordpress.com/oauth2/token",
  userinfo: "https://public-api.wordpress.com/rest/v1/me",
  scope: "auth",
  user: {
    id: "87654321",
    name: "Ada Writer",
    email: "ada@example.com",
    image: "https://0.gravatar.com/avatar/abc?s=96",
  },
})
