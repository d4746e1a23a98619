// Battle.net: configuration and profile mapping (the catalogue's unit test of this provider).
import BattleNet from "../../lib/providers/battlenet"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: BattleNet,
  id: "battlenet",
  name: "Battle.net",
  type: "oidc",
  issuer: "required",
  tenantIssuer: "https://oauth.battle.net",
  scope: "openid profile email",
  user: { id: "123456789", name: "Jaina#1234", email: null, image: null },
})
