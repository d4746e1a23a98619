// Vercel: configuration and profile mapping (the catalogue's unit test of this provider).
import Vercel from "../../lib/providers/vercel"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Vercel,
  id: "vercel",
  name: "Vercel",
  type: "oauth",
  authorization: "https://vercel.com/oauth/authorize",
  token: "https://api.vercel.com/login/oauth/token",
  userinfo: "https://api.vercel.com/login/oauth/userinfo",
  scope: "openid email profile",
  user: {
    id: "wv5sFGLKg1bTRvdrXqaGbXLa",
    name: "rauchg-fan",
    email: "dev@example.com",
    image: "https://vercel.com/api/www/avatar/abc",
  },
})
