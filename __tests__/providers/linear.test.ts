// Linear: configuration and profile mapping (the catalogue's unit test of this provider).
import Linear from "../../lib/providers/linear"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Linear,
  id: "linear",
  name: "Linear",
  type: "oauth",
  authorization: "https://linear.app/oauth/authorize",
  token: "https://api.linear.app/oauth/token",
  userinfo: "https://api.linear.app/graphql",
  scope: "read",
  clientAuth: "client_secret_post",
  user: {
    id: "2e6eea91-1111-4a1a-9a2a-0123456789ab",
    name: "Kenji Sato",
    email: "kenji@example.com",
    image: "https://public.linear.app/avatars/abc.png",
  },
})
