// LINE: configuration and profile mapping (the catalogue's unit test of this provider).
import Line from "../../lib/providers/line"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Line,
  id: "line",
  name: "LINE",
  type: "oidc",
  issuer: "https://access.line.me",
  scope: "openid profile email",
  idTokenAlg: "HS256",
  checks: ["state"],
  user: {
    id: "U4af4980629d5b1a0c9a2f1e7b3d4c5e6",
    name: "Taro Yamada",
    email: "taro.yamada@example.jp",
    image: "https://profile.line-scdn.net/0h1a2b3c",
  },
})
