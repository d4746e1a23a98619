// Mail.ru: configuration and profile mapping (the catalogue's unit test of this provider).
import Mailru from "../../lib/providers/mailru"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Mailru,
  id: "mailru",
  name: "Mail.ru",
  type: "oauth",
  authorization: "https://oauth.mail.ru/login",
  token: "https://oauth.mail.ru/token",
  userinfo: "https://oauth.mail.ru/userinfo",
  scope: "userinfo",
  user: { id: "2312351233", name: "Olga Ivanova", email: "olga@example.ru", image: null },
})
