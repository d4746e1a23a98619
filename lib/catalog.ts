/**
 * The provider catalogue as data: one entry per OAuth/OIDC provider of `gatehouse-auth/providers/<id>`, sorted by id.
 * It imports no provider module, so listing the catalogue costs nothing; the generated provider table of the docs and
 * the tests that hold the files, the docs and this list together all read it.
 */

/** One OAuth/OIDC provider of the catalogue. */
export interface CatalogEntry {
  /** The provider id: its file `gatehouse-auth/providers/<id>` and its callback path segment. */
  id: string
  /** The name on the sign-in button. */
  name: string
  type: "oauth" | "oidc"
  /** The default issuer of an OpenID Connect provider, when it has one (tenant-specific ones have none). */
  issuer?: string
  /** Auth.js (`@auth/core` 0.41.3) ships a provider with the same id. */
  authjs: boolean
  /** Better Auth ships it (a social provider or a generic OAuth preset). */
  betterAuth: boolean
  /** Where Gatehouse's defaults differ from Auth.js's on purpose, each with its reason. */
  deviations: string[]
  /** What is unusual about the provider, in one line each. */
  quirks: string[]
  /** The provider's OAuth/OIDC documentation (https). */
  docs: string
  /** Options of the factory beyond the common OAuth ones, e.g. `["apiVersion"]`. */
  options: string[]
}

/** Fills the fields most entries share: no deviation, no quirk, no provider-specific option. */
function entry(
  id: string,
  name: string,
  type: "oauth" | "oidc",
  peers: { authjs: boolean; betterAuth: boolean },
  docs: string,
  more: Partial<Pick<CatalogEntry, "issuer" | "deviations" | "quirks" | "options">> = {},
): CatalogEntry {
  return Object.freeze({
    id,
    name,
    type,
    ...(more.issuer ? { issuer: more.issuer } : {}),
    ...peers,
    deviations: Object.freeze([...(more.deviations ?? [])]) as string[],
    quirks: Object.freeze([...(more.quirks ?? [])]) as string[],
    docs,
    options: Object.freeze([...(more.options ?? [])]) as string[],
  })
}

const both = { authjs: true, betterAuth: true }
const authjsOnly = { authjs: true, betterAuth: false }
const betterAuthOnly = { authjs: false, betterAuth: true }
const neither = { authjs: false, betterAuth: false }
/** The one line of every provider whose issuer is the customer's own tenant or instance. */
const needsIssuer = "tenant or instance specific: `issuer` (or `AUTH_<ID>_ISSUER`) is required"

/** The OAuth/OIDC providers of the catalogue, sorted by id. */
export const providers: readonly CatalogEntry[] = Object.freeze([
  entry("42-school", "42 School", "oauth", authjsOnly, "https://api.intra.42.fr/apidoc/guides/web_application_flow"),
  entry("amazon", "Amazon", "oauth", neither, "https://developer.amazon.com/docs/login-with-amazon/web-docs.html"),
  entry("apple", "Apple", "oidc", both, "https://developer.apple.com/documentation/sign_in_with_apple", {
    issuer: "https://appleid.apple.com",
    quirks: [
      "`response_mode=form_post`, `client_secret_post`, `state` and `nonce`",
      "the client secret is an ES256 JWT you mint (at most 6 months)",
    ],
  }),
  entry(
    "atlassian",
    "Atlassian",
    "oauth",
    both,
    "https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/",
    {
      deviations: [
        "params: `prompt=consent` (Atlassian's 3LO flow requires it)",
        "client auth: `client_secret_post` (Atlassian takes the credentials in the body)",
      ],
    },
  ),
  entry("auth0", "Auth0", "oidc", both, "https://auth0.com/docs/authenticate/protocols/openid-connect-protocol", {
    quirks: [needsIssuer],
  }),
  entry(
    "authentik",
    "authentik",
    "oidc",
    authjsOnly,
    "https://docs.goauthentik.io/docs/add-secure-apps/providers/oauth2/",
    {
      quirks: [needsIssuer],
    },
  ),
  entry(
    "azure-ad-b2c",
    "Azure AD B2C",
    "oidc",
    authjsOnly,
    "https://learn.microsoft.com/azure/active-directory-b2c/openid-connect",
    {
      quirks: [needsIssuer, "the email is the first of `emails`"],
    },
  ),
  entry("battlenet", "Battle.net", "oidc", authjsOnly, "https://develop.battle.net/documentation/guides/using-oauth", {
    quirks: [`${needsIssuer}: the region's (\`https://oauth.battle.net\`, \`https://oauth.battlenet.com.cn\`)`],
  }),
  entry("bitbucket", "Bitbucket", "oauth", authjsOnly, "https://developer.atlassian.com/cloud/bitbucket/oauth-2/", {
    deviations: ["scope: `account email` (without `email` the profile has no address)"],
  }),
  entry("box", "Box", "oauth", authjsOnly, "https://developer.box.com/guides/authentication/oauth2/"),
  entry(
    "cognito",
    "Amazon Cognito",
    "oidc",
    both,
    "https://docs.aws.amazon.com/cognito/latest/developerguide/federation-endpoints.html",
    {
      quirks: [needsIssuer],
    },
  ),
  entry("descope", "Descope", "oidc", authjsOnly, "https://docs.descope.com/getting-started/oidc-endpoints", {
    quirks: [`${needsIssuer}; defaults to \`https://api.descope.com/<clientId>\``],
  }),
  entry("discord", "Discord", "oauth", both, "https://discord.com/developers/docs/topics/oauth2", {
    deviations: ["authorization URL: `https://discord.com/oauth2/authorize` (`/api/oauth2/authorize` is legacy)"],
  }),
  entry("docusign", "DocuSign", "oauth", neither, "https://developers.docusign.com/platform/auth/authcode/", {
    options: ["environment"],
  }),
  entry("dropbox", "Dropbox", "oauth", both, "https://developers.dropbox.com/oauth-guide"),
  entry(
    "facebook",
    "Facebook",
    "oauth",
    both,
    "https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow",
    {
      deviations: [
        "endpoints: Graph `v21.0` (Auth.js pins v19.0, past its retirement)",
        "client auth: `client_secret_post` (Meta takes the credentials in the body)",
      ],
    },
  ),
  entry("figma", "Figma", "oauth", both, "https://www.figma.com/developers/api#oauth2"),
  entry(
    "fusionauth",
    "FusionAuth",
    "oidc",
    authjsOnly,
    "https://fusionauth.io/docs/lifecycle/authenticate-users/oauth/",
    {
      quirks: [needsIssuer],
      options: ["tenantId"],
    },
  ),
  entry(
    "github",
    "GitHub",
    "oauth",
    both,
    "https://docs.github.com/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps",
    {
      quirks: ["the email falls back to `/user/emails` (primary address)"],
      options: ["enterprise"],
    },
  ),
  entry("gitlab", "GitLab", "oauth", both, "https://docs.gitlab.com/api/oauth2/", { options: ["baseUrl"] }),
  entry("google", "Google", "oidc", both, "https://developers.google.com/identity/openid-connect/openid-connect", {
    issuer: "https://accounts.google.com",
  }),
  entry("hubspot", "HubSpot", "oauth", both, "https://developers.hubspot.com/docs/api/oauth-quickstart-guide"),
  entry("huggingface", "Hugging Face", "oidc", both, "https://huggingface.co/docs/hub/oauth", {
    issuer: "https://huggingface.co",
  }),
  entry(
    "instagram",
    "Instagram",
    "oauth",
    authjsOnly,
    "https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login",
    {
      deviations: [
        "authorization URL, scope `instagram_business_basic` and Graph `v21.0` userinfo (the Basic Display API Auth.js uses closed on 2024-12-04)",
        "image: `profile_picture_url` (the new API returns it)",
      ],
    },
  ),
  entry("kakao", "Kakao", "oauth", both, "https://developers.kakao.com/docs/latest/en/kakaologin/rest-api", {
    quirks: ["empty default scope (consent items come from the Kakao console); profile under `kakao_account`"],
  }),
  entry("keycloak", "Keycloak", "oidc", both, "https://www.keycloak.org/docs/latest/server_admin/#_oidc", {
    quirks: [needsIssuer],
  }),
  entry(
    "kick",
    "Kick",
    "oauth",
    betterAuthOnly,
    "https://docs.kick.com/getting-started/generating-tokens-oauth2-flow",
    {
      quirks: ["PKCE is mandatory; `client_secret_post`"],
    },
  ),
  entry("line", "LINE", "oidc", both, "https://developers.line.biz/en/docs/line-login/integrate-line-login/", {
    issuer: "https://access.line.me",
    quirks: ["HS256 ID tokens signed with the channel secret; the email needs the channel's email permission"],
  }),
  entry("linear", "Linear", "oauth", betterAuthOnly, "https://linear.app/developers/oauth-2-0-authentication", {
    quirks: ["the profile is a GraphQL `POST` (`viewer`)"],
  }),
  entry(
    "linkedin",
    "LinkedIn",
    "oidc",
    both,
    "https://learn.microsoft.com/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2",
    {
      issuer: "https://www.linkedin.com/oauth",
    },
  ),
  entry("mailru", "Mail.ru", "oauth", authjsOnly, "https://oauth.mail.ru/docs/"),
  entry("mastodon", "Mastodon", "oauth", authjsOnly, "https://docs.joinmastodon.org/spec/oauth/", {
    quirks: [`${needsIssuer}: the instance`],
  }),
  entry(
    "microsoft-entra-id",
    "Microsoft Entra ID",
    "oidc",
    both,
    "https://learn.microsoft.com/entra/identity-platform/v2-protocols-oidc",
    {
      issuer: "https://login.microsoftonline.com/common/v2.0",
      quirks: ["multi-tenant (`common`, `organizations`) needs `allowedTenants` in production"],
      options: ["tenantId", "allowedTenants"],
    },
  ),
  entry("naver", "Naver", "oauth", both, "https://developers.naver.com/docs/login/devguide/devguide.md", {
    quirks: ["errors arrive as HTTP 200 with `resultcode` other than `00`"],
  }),
  entry("notion", "Notion", "oauth", both, "https://developers.notion.com/docs/authorization"),
  entry("okta", "Okta", "oidc", both, "https://developer.okta.com/docs/reference/api/oidc/", { quirks: [needsIssuer] }),
  entry("onelogin", "OneLogin", "oidc", authjsOnly, "https://developers.onelogin.com/openid-connect", {
    quirks: [`${needsIssuer}: the subdomain (\`/oidc/2\` is added)`],
  }),
  entry(
    "orcid",
    "ORCID",
    "oidc",
    neither,
    "https://info.orcid.org/documentation/integration-guide/sign-in-using-orcid/",
    {
      issuer: "https://orcid.org",
      options: ["environment"],
    },
  ),
  entry("osu", "osu!", "oauth", authjsOnly, "https://osu.ppy.sh/docs/index.html#authorization-code-grant", {
    deviations: ["client auth: `client_secret_post` (osu! takes the credentials in the body)"],
  }),
  entry("patreon", "Patreon", "oauth", both, "https://docs.patreon.com/#oauth", {
    deviations: ["userinfo: API v2 identity and `client_secret_post` (API v1 is deprecated)"],
  }),
  entry(
    "paypal",
    "PayPal",
    "oauth",
    betterAuthOnly,
    "https://developer.paypal.com/docs/log-in-with-paypal/integrate/",
    {
      options: ["environment"],
    },
  ),
  entry(
    "ping-id",
    "Ping Identity",
    "oidc",
    authjsOnly,
    "https://docs.pingidentity.com/r/en-us/pingone/p1_c_openid_connect",
    {
      quirks: [needsIssuer],
    },
  ),
  entry(
    "pinterest",
    "Pinterest",
    "oauth",
    authjsOnly,
    "https://developers.pinterest.com/docs/getting-started/authentication/",
  ),
  entry("reddit", "Reddit", "oauth", both, "https://github.com/reddit-archive/reddit/wiki/OAuth2", {
    deviations: ["image: `icon_img` (Auth.js returns `null` although the API has an avatar)"],
  }),
  entry("roblox", "Roblox", "oidc", both, "https://create.roblox.com/docs/cloud/open-cloud/oauth2-overview", {
    issuer: "https://apis.roblox.com/oauth/",
  }),
  entry(
    "salesforce",
    "Salesforce",
    "oidc",
    both,
    "https://help.salesforce.com/s/articleView?id=sf.remoteaccess_using_openid.htm",
    {
      issuer: "https://login.salesforce.com",
    },
  ),
  entry("slack", "Slack", "oidc", both, "https://api.slack.com/authentication/sign-in-with-slack", {
    issuer: "https://slack.com",
  }),
  entry("snapchat", "Snapchat", "oauth", neither, "https://developers.snap.com/snap-kit/login-kit/overview"),
  entry(
    "spotify",
    "Spotify",
    "oauth",
    both,
    "https://developer.spotify.com/documentation/web-api/tutorials/code-pkce-flow",
  ),
  entry("strava", "Strava", "oauth", authjsOnly, "https://developers.strava.com/docs/authentication/", {
    deviations: ["authorization and token URLs from Strava's docs, no `approval_prompt`"],
  }),
  entry("tiktok", "TikTok", "oauth", both, "https://developers.tiktok.com/doc/login-kit-web/", {
    quirks: ["`client_key` instead of `client_id`; profile under `data.user`"],
  }),
  entry("twitch", "Twitch", "oidc", both, "https://dev.twitch.tv/docs/authentication/getting-tokens-oidc/", {
    issuer: "https://id.twitch.tv/oauth2",
  }),
  entry(
    "twitter",
    "Twitter",
    "oauth",
    both,
    "https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/authorization-code",
  ),
  entry("vercel", "Vercel", "oauth", betterAuthOnly, "https://vercel.com/docs/sign-in-with-vercel"),
  entry("vk", "VK", "oauth", both, "https://dev.vk.com/en/api/access-token/authcode-flow-user", {
    quirks: ["API version on every URL; the email comes in the token response"],
    options: ["apiVersion"],
  }),
  entry(
    "wechat",
    "WeChat",
    "oauth",
    both,
    "https://developers.weixin.qq.com/doc/oplatform/en/Website_App/WeChat_Login/Wechat_Login.html",
    {
      deviations: ["token request: WeChat's documented GET (Auth.js posts to a URL carrying appid and secret)"],
      quirks: ["`appid` and a token GET with the secret in the query (WeChat's API); `openid` from the token response"],
      options: ["platformType"],
    },
  ),
  entry("wordpress", "WordPress.com", "oauth", authjsOnly, "https://developer.wordpress.com/docs/oauth2/"),
  entry("workos", "WorkOS", "oauth", authjsOnly, "https://workos.com/docs/reference/sso", { options: ["connection"] }),
  entry("yahoo", "Yahoo", "oidc", neither, "https://developer.yahoo.com/sign-in-with-yahoo/", {
    issuer: "https://api.login.yahoo.com",
  }),
  entry("yandex", "Yandex", "oauth", authjsOnly, "https://yandex.com/dev/id/doc/en/codes/code-url"),
  entry("zitadel", "ZITADEL", "oidc", authjsOnly, "https://zitadel.com/docs/apis/openidoauth/endpoints", {
    quirks: [needsIssuer],
  }),
  entry("zoom", "Zoom", "oauth", both, "https://developers.zoom.us/docs/integrations/oauth/", {
    deviations: ["scope: `user:read:user` (granular scopes are required for apps created since 2024)"],
  }),
])

export default providers
