// PayPal: configuration and profile mapping (the catalogue's unit test of this provider).
import PayPal from "../../lib/providers/paypal"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: PayPal,
  id: "paypal",
  name: "PayPal",
  type: "oauth",
  authorization: "https://www.paypal.com/signin/authorize",
  token: "https://api-m.paypal.com/v1/oauth2/token",
  userinfo: "https://api-m.paypal.com/v1/identity/openidconnect/userinfo?schema=openid",
  scope: "openid email profile",
  user: {
    id: "https://www.paypal.com/webapps/auth/identity/user/mWq6_1sU85v5EG9yHdPxJRrhGHrnMJ-1PQKtX6pcsmA",
    name: "Lucía Fernández",
    email: "lucia@example.com",
    image: null,
  },
})
