// The OAuth/OIDC catalogue: endpoints, scopes, options carried through, and profile mapping from documented samples.
import { readdirSync } from "node:fs"
import { basename, join } from "node:path"
import type { User } from "../../lib/core/kernel/types"
import type { EndpointConfig, OAuthConfig, TokenSet } from "../../lib/providers/types"
import Apple from "../../lib/providers/apple"
import Atlassian from "../../lib/providers/atlassian"
import Auth0 from "../../lib/providers/auth0"
import Authentik from "../../lib/providers/authentik"
import Bitbucket from "../../lib/providers/bitbucket"
import Cognito from "../../lib/providers/cognito"
import Discord from "../../lib/providers/discord"
import Dropbox from "../../lib/providers/dropbox"
import Facebook from "../../lib/providers/facebook"
import GitHub from "../../lib/providers/github"
import GitLab from "../../lib/providers/gitlab"
import Google from "../../lib/providers/google"
import Keycloak from "../../lib/providers/keycloak"
import LinkedIn from "../../lib/providers/linkedin"
import MicrosoftEntraID from "../../lib/providers/microsoft-entra-id"
import Notion from "../../lib/providers/notion"
import OIDC from "../../lib/providers/oidc"
import Okta from "../../lib/providers/okta"
import Osu from "../../lib/providers/osu"
import Patreon from "../../lib/providers/patreon"
import Reddit from "../../lib/providers/reddit"
import Salesforce from "../../lib/providers/salesforce"
import Slack from "../../lib/providers/slack"
import Spotify from "../../lib/providers/spotify"
import Strava from "../../lib/providers/strava"
import Twitch from "../../lib/providers/twitch"
import Twitter from "../../lib/providers/twitter"
import Yandex from "../../lib/providers/yandex"
import Zitadel from "../../lib/providers/zitadel"
import Zoom from "../../lib/providers/zoom"

type Factory = (options?: any) => OAuthConfig<any>

interface Row {
  factory: Factory
  id: string
  name: string
  type: "oauth" | "oidc"
  /** Default issuer; `null` when it must come from the options. */
  issuer?: string | null
  /** Authorization endpoint URL (oauth providers; oidc ones discover it). */
  authorization?: string
  scope?: string
  token?: string
  userinfo?: string
  sample: Record<string, unknown>
  user: User
}

const idTokenBase = { aud: "client-id", iat: 1_700_000_000, exp: 1_700_003_600 }

const rows: Row[] = [
  {
    factory: GitHub,
    id: "github",
    name: "GitHub",
    type: "oauth",
    issuer: "https://github.com/login/oauth",
    authorization: "https://github.com/login/oauth/authorize",
    scope: "read:user user:email",
    token: "https://github.com/login/oauth/access_token",
    userinfo: "https://api.github.com/user",
    sample: {
      login: "octocat",
      id: 583231,
      node_id: "MDQ6VXNlcjU4MzIzMQ==",
      avatar_url: "https://avatars.githubusercontent.com/u/583231?v=4",
      name: "The Octocat",
      company: "@github",
      email: "octocat@github.com",
      type: "User",
    },
    user: {
      id: "583231",
      name: "The Octocat",
      email: "octocat@github.com",
      image: "https://avatars.githubusercontent.com/u/583231?v=4",
    },
  },
  {
    factory: Google,
    id: "google",
    name: "Google",
    type: "oidc",
    issuer: "https://accounts.google.com",
    sample: {
      ...idTokenBase,
      iss: "https://accounts.google.com",
      azp: "client-id",
      sub: "110169484474386276334",
      email: "jane@example.com",
      email_verified: true,
      name: "Jane Doe",
      given_name: "Jane",
      family_name: "Doe",
      picture: "https://lh3.googleusercontent.com/a/ACg8ocK",
    },
    user: {
      id: "110169484474386276334",
      name: "Jane Doe",
      email: "jane@example.com",
      image: "https://lh3.googleusercontent.com/a/ACg8ocK",
    },
  },
  {
    factory: MicrosoftEntraID,
    id: "microsoft-entra-id",
    name: "Microsoft Entra ID",
    type: "oidc",
    issuer: "https://login.microsoftonline.com/common/v2.0",
    scope: "openid profile email User.Read",
    sample: {
      ...idTokenBase,
      iss: "https://login.microsoftonline.com/9122040d-6c67-4c5b-b112-36a304b66dad/v2.0",
      sub: "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
      oid: "00000000-0000-0000-66f3-3332eca7ea81",
      tid: "9122040d-6c67-4c5b-b112-36a304b66dad",
      name: "Abe Lincoln",
      preferred_username: "abeli@microsoft.com",
      email: "abeli@microsoft.com",
    },
    user: {
      id: "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
      name: "Abe Lincoln",
      email: "abeli@microsoft.com",
      image: null,
    },
  },
  {
    factory: Apple,
    id: "apple",
    name: "Apple",
    type: "oidc",
    issuer: "https://appleid.apple.com",
    scope: "name email",
    sample: {
      ...idTokenBase,
      iss: "https://appleid.apple.com",
      sub: "001234.5f6e7d8c9b0a1234567890abcdef1234.0123",
      email: "x7k2m9q4@privaterelay.appleid.com",
      email_verified: "true",
      is_private_email: "true",
      auth_time: 1_700_000_000,
      nonce_supported: true,
    },
    user: {
      id: "001234.5f6e7d8c9b0a1234567890abcdef1234.0123",
      // No `user` field (not a first sign-in): the name is the email, as Auth.js maps it.
      name: "x7k2m9q4@privaterelay.appleid.com",
      email: "x7k2m9q4@privaterelay.appleid.com",
      image: null,
    },
  },
  {
    factory: GitLab,
    id: "gitlab",
    name: "GitLab",
    type: "oauth",
    authorization: "https://gitlab.com/oauth/authorize",
    scope: "read_user",
    token: "https://gitlab.com/oauth/token",
    userinfo: "https://gitlab.com/api/v4/user",
    sample: {
      id: 1,
      username: "john_smith",
      email: "john@example.com",
      name: "John Smith",
      state: "active",
      avatar_url: "https://gitlab.com/uploads/-/system/user/avatar/1/cd8.jpeg",
      web_url: "https://gitlab.com/john_smith",
      public_email: "",
    },
    user: {
      id: "1",
      name: "John Smith",
      email: "john@example.com",
      image: "https://gitlab.com/uploads/-/system/user/avatar/1/cd8.jpeg",
    },
  },
  {
    factory: Discord,
    id: "discord",
    name: "Discord",
    type: "oauth",
    authorization: "https://discord.com/oauth2/authorize",
    scope: "identify email",
    token: "https://discord.com/api/oauth2/token",
    userinfo: "https://discord.com/api/users/@me",
    sample: {
      id: "80351110224678912",
      username: "nelly",
      discriminator: "0",
      global_name: "Nelly",
      avatar: "8342729096ea3675442027381ff50dfe",
      verified: true,
      email: "nelly@discord.com",
      mfa_enabled: false,
      locale: "en-US",
    },
    user: {
      id: "80351110224678912",
      name: "Nelly",
      email: "nelly@discord.com",
      image: "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
    },
  },
  {
    factory: Slack,
    id: "slack",
    name: "Slack",
    type: "oidc",
    issuer: "https://slack.com",
    scope: "openid profile email",
    sample: {
      ...idTokenBase,
      iss: "https://slack.com",
      sub: "U0R7JM",
      "https://slack.com/user_id": "U0R7JM",
      "https://slack.com/team_id": "T0R7GR",
      email: "krane@slack-corp.com",
      email_verified: true,
      name: "krane",
      picture: "https://secure.gravatar.com/avatar/cb0c2b.jpg",
      given_name: "Bront",
      family_name: "Labradoodle",
      locale: "en-US",
    },
    user: {
      id: "U0R7JM",
      name: "krane",
      email: "krane@slack-corp.com",
      image: "https://secure.gravatar.com/avatar/cb0c2b.jpg",
    },
  },
  {
    factory: Twitch,
    id: "twitch",
    name: "Twitch",
    type: "oidc",
    issuer: "https://id.twitch.tv/oauth2",
    scope: "openid user:read:email",
    sample: {
      ...idTokenBase,
      iss: "https://id.twitch.tv/oauth2",
      azp: "client-id",
      sub: "713936733",
      preferred_username: "gatehouse_dev",
      email: "dev@example.com",
      email_verified: true,
      picture: "https://static-cdn.jtvnw.net/user-default-pictures-uv/13e5fa74-profile_image-300x300.png",
    },
    user: {
      id: "713936733",
      name: "gatehouse_dev",
      email: "dev@example.com",
      image: "https://static-cdn.jtvnw.net/user-default-pictures-uv/13e5fa74-profile_image-300x300.png",
    },
  },
  {
    factory: LinkedIn,
    id: "linkedin",
    name: "LinkedIn",
    type: "oidc",
    issuer: "https://www.linkedin.com/oauth",
    scope: "openid profile email",
    sample: {
      ...idTokenBase,
      iss: "https://www.linkedin.com/oauth",
      sub: "782bbtaQ",
      name: "John Doe",
      given_name: "John",
      family_name: "Doe",
      picture: "https://media.licdn.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/",
      locale: "en-US",
      email: "doe@email.com",
      email_verified: true,
    },
    user: {
      id: "782bbtaQ",
      name: "John Doe",
      email: "doe@email.com",
      image: "https://media.licdn.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/",
    },
  },
  {
    factory: Facebook,
    id: "facebook",
    name: "Facebook",
    type: "oauth",
    authorization: "https://www.facebook.com/v21.0/dialog/oauth",
    scope: "email",
    token: "https://graph.facebook.com/v21.0/oauth/access_token",
    userinfo: "https://graph.facebook.com/v21.0/me",
    sample: {
      id: "10224312345678901",
      name: "Mark Example",
      email: "mark@example.com",
      picture: {
        data: {
          height: 50,
          is_silhouette: false,
          url: "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10224312345678901",
          width: 50,
        },
      },
    },
    user: {
      id: "10224312345678901",
      name: "Mark Example",
      email: "mark@example.com",
      image: "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10224312345678901",
    },
  },
  {
    factory: Twitter,
    id: "twitter",
    name: "Twitter",
    type: "oauth",
    authorization: "https://x.com/i/oauth2/authorize",
    scope: "users.read tweet.read offline.access",
    token: "https://api.x.com/2/oauth2/token",
    userinfo: "https://api.x.com/2/users/me",
    sample: {
      data: {
        id: "2244994945",
        name: "X Dev",
        username: "XDevelopers",
        profile_image_url: "https://pbs.twimg.com/profile_images/1445764922474827784/W2zEPN7U_normal.jpg",
      },
    },
    user: {
      id: "2244994945",
      name: "X Dev",
      email: null,
      image: "https://pbs.twimg.com/profile_images/1445764922474827784/W2zEPN7U_normal.jpg",
    },
  },
  {
    factory: Okta,
    id: "okta",
    name: "Okta",
    type: "oidc",
    issuer: null,
    scope: "openid profile email",
    sample: {
      ...idTokenBase,
      iss: "https://dev-123456.okta.com/oauth2/default",
      sub: "00uid4BxXw6I6TV4m0g3",
      name: "John Doe",
      preferred_username: "john.doe@example.com",
      email: "john.doe@example.com",
      email_verified: true,
    },
    user: { id: "00uid4BxXw6I6TV4m0g3", name: "John Doe", email: "john.doe@example.com", image: null },
  },
  {
    factory: Auth0,
    id: "auth0",
    name: "Auth0",
    type: "oidc",
    issuer: null,
    scope: "openid profile email",
    sample: {
      ...idTokenBase,
      iss: "https://example.eu.auth0.com/",
      sub: "auth0|5f7c8ec7c33c6c004bbafe82",
      nickname: "jdoe",
      name: "jdoe@example.com",
      picture: "https://s.gravatar.com/avatar/0d1e2.png",
      updated_at: "2024-01-01T00:00:00.000Z",
      email: "jdoe@example.com",
      email_verified: false,
    },
    user: {
      id: "auth0|5f7c8ec7c33c6c004bbafe82",
      name: "jdoe@example.com",
      email: "jdoe@example.com",
      image: "https://s.gravatar.com/avatar/0d1e2.png",
    },
  },
  {
    factory: Keycloak,
    id: "keycloak",
    name: "Keycloak",
    type: "oidc",
    issuer: null,
    scope: "openid profile email",
    sample: {
      ...idTokenBase,
      iss: "https://keycloak.example.com/realms/myrealm",
      sub: "f3c9d5e2-6b1a-4f0e-9a7d-1c2b3d4e5f60",
      azp: "client-id",
      preferred_username: "alice",
      email: "alice@example.com",
      email_verified: true,
    },
    user: { id: "f3c9d5e2-6b1a-4f0e-9a7d-1c2b3d4e5f60", name: "alice", email: "alice@example.com", image: null },
  },
  {
    factory: Cognito,
    id: "cognito",
    name: "Amazon Cognito",
    type: "oidc",
    issuer: null,
    scope: "openid profile email",
    sample: {
      ...idTokenBase,
      iss: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI",
      sub: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
      "cognito:username": "janedoe",
      "cognito:groups": ["admins"],
      token_use: "id",
      email: "janedoe@example.com",
      email_verified: true,
    },
    user: { id: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", name: null, email: "janedoe@example.com", image: null },
  },
  {
    factory: Spotify,
    id: "spotify",
    name: "Spotify",
    type: "oauth",
    authorization: "https://accounts.spotify.com/authorize",
    scope: "user-read-email",
    token: "https://accounts.spotify.com/api/token",
    userinfo: "https://api.spotify.com/v1/me",
    sample: {
      country: "SE",
      display_name: "JM Wizzler",
      email: "email@example.com",
      id: "wizzler",
      images: [{ height: 300, url: "https://i.scdn.co/image/ab6775700000ee85", width: 300 }],
      product: "premium",
      uri: "spotify:user:wizzler",
    },
    user: {
      id: "wizzler",
      name: "JM Wizzler",
      email: "email@example.com",
      image: "https://i.scdn.co/image/ab6775700000ee85",
    },
  },
  {
    factory: Zoom,
    id: "zoom",
    name: "Zoom",
    type: "oauth",
    authorization: "https://zoom.us/oauth/authorize",
    scope: "user:read:user",
    token: "https://zoom.us/oauth/token",
    userinfo: "https://api.zoom.us/v2/users/me",
    sample: {
      id: "KDcuGIm1QgePTO8WbOqwIQ",
      first_name: "Jill",
      last_name: "Chill",
      display_name: "Jill Chill",
      email: "jchill@example.com",
      type: 1,
      pic_url: "https://example.zoom.us/p/KDcuGIm1QgePTO8WbOqwIQ/photo.jpg",
      account_id: "q6gBJVO5TzexKYTb_I2rpg",
      status: "active",
    },
    user: {
      id: "KDcuGIm1QgePTO8WbOqwIQ",
      name: "Jill Chill",
      email: "jchill@example.com",
      image: "https://example.zoom.us/p/KDcuGIm1QgePTO8WbOqwIQ/photo.jpg",
    },
  },
  {
    factory: Bitbucket,
    id: "bitbucket",
    name: "Bitbucket",
    type: "oauth",
    authorization: "https://bitbucket.org/site/oauth2/authorize",
    scope: "account email",
    token: "https://bitbucket.org/site/oauth2/access_token",
    userinfo: "https://api.bitbucket.org/2.0/user",
    sample: {
      uuid: "{d301aafa-d676-4ee0-88be-962be7417567}",
      account_id: "557058:c0b72ad0-1cb5-4018-9cdc-0cde8492c443",
      display_name: "Erik van Zijst",
      nickname: "evzijst",
      type: "user",
      links: { avatar: { href: "https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/evz.png" } },
      email: "erik@example.com",
    },
    user: {
      // Auth.js's account id; the uuid Gatehouse 0.1 used is re-keyed (bitbucket-rekey.test.ts).
      id: "557058:c0b72ad0-1cb5-4018-9cdc-0cde8492c443",
      name: "Erik van Zijst",
      email: "erik@example.com",
      image: "https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/evz.png",
    },
  },
  {
    factory: Atlassian,
    id: "atlassian",
    name: "Atlassian",
    type: "oauth",
    authorization: "https://auth.atlassian.com/authorize",
    scope: "read:me",
    token: "https://auth.atlassian.com/oauth/token",
    userinfo: "https://api.atlassian.com/me",
    sample: {
      account_type: "atlassian",
      account_id: "112233:aabbcc-1122-3344-5566-778899aabbcc",
      email: "mia@example.com",
      name: "Mia Krystof",
      picture: "https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/mk.png",
      account_status: "active",
      nickname: "mia",
      zoneinfo: "Australia/Sydney",
      locale: "en-US",
    },
    user: {
      id: "112233:aabbcc-1122-3344-5566-778899aabbcc",
      name: "Mia Krystof",
      email: "mia@example.com",
      image: "https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/mk.png",
    },
  },
  {
    factory: Dropbox,
    id: "dropbox",
    name: "Dropbox",
    type: "oauth",
    authorization: "https://www.dropbox.com/oauth2/authorize",
    scope: "account_info.read",
    token: "https://api.dropboxapi.com/oauth2/token",
    userinfo: "https://api.dropboxapi.com/2/users/get_current_account",
    sample: {
      account_id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
      name: {
        abbreviated_name: "FD",
        display_name: "Franz Ferdinand (Personal)",
        familiar_name: "Franz",
        given_name: "Franz",
        surname: "Ferdinand",
      },
      email: "franz@dropbox.com",
      email_verified: true,
      disabled: false,
      profile_photo_url: "https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA",
    },
    user: {
      id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
      name: "Franz Ferdinand (Personal)",
      email: "franz@dropbox.com",
      image: "https://dl-web.dropbox.com/account_photo/get/dbaphid%3AAAHWGmIXV3sUuOmBfTz0wPsiqHUpBWvv3ZA",
    },
  },
  {
    factory: Notion,
    id: "notion",
    name: "Notion",
    type: "oauth",
    authorization: "https://api.notion.com/v1/oauth/authorize",
    token: "https://api.notion.com/v1/oauth/token",
    sample: {
      object: "user",
      id: "e79a0b74-3aba-4149-9f74-0bb5791a6ee6",
      name: "Avocado Lovelace",
      avatar_url: "https://secure.notion-static.com/e6a352a8-8381-44d0-a1dc-9ed80e62b53d.jpg",
      type: "person",
      person: { email: "avo@example.org" },
    },
    user: {
      id: "e79a0b74-3aba-4149-9f74-0bb5791a6ee6",
      name: "Avocado Lovelace",
      email: "avo@example.org",
      image: "https://secure.notion-static.com/e6a352a8-8381-44d0-a1dc-9ed80e62b53d.jpg",
    },
  },
  {
    factory: Reddit,
    id: "reddit",
    name: "Reddit",
    type: "oauth",
    authorization: "https://www.reddit.com/api/v1/authorize",
    scope: "identity",
    token: "https://www.reddit.com/api/v1/access_token",
    userinfo: "https://oauth.reddit.com/api/v1/me",
    sample: {
      id: "1w72",
      name: "spez",
      icon_img:
        "https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png?width=256&amp;height=256&amp;s=abc",
      snoovatar_img: "",
      verified: true,
      has_verified_email: true,
      created_utc: 1118030400,
    },
    user: {
      id: "1w72",
      name: "spez",
      email: null,
      image: "https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png?width=256&height=256&s=abc",
    },
  },
  {
    factory: Salesforce,
    id: "salesforce",
    name: "Salesforce",
    type: "oidc",
    issuer: "https://login.salesforce.com",
    scope: "openid profile email",
    sample: {
      ...idTokenBase,
      iss: "https://login.salesforce.com",
      sub: "https://login.salesforce.com/id/00Dx0000000BV7z/005x00000012Q9P",
      name: "Admin User",
      preferred_username: "admin@example.com",
      email: "admin@example.com",
      email_verified: true,
      picture: "https://example.my.salesforce.com/profilephoto/005/F",
    },
    user: {
      id: "https://login.salesforce.com/id/00Dx0000000BV7z/005x00000012Q9P",
      name: "Admin User",
      email: "admin@example.com",
      image: "https://example.my.salesforce.com/profilephoto/005/F",
    },
  },
  {
    factory: Authentik,
    id: "authentik",
    name: "authentik",
    type: "oidc",
    issuer: null,
    scope: "openid profile email",
    sample: {
      ...idTokenBase,
      iss: "https://auth.example.com/application/o/my-app/",
      sub: "d5a1d8ac3b9c1a0f6b1e9e8f7d6c5b4a3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b",
      email: "akadmin@example.com",
      email_verified: true,
      name: "authentik Default Admin",
      given_name: "authentik Default Admin",
      preferred_username: "akadmin",
      nickname: "akadmin",
      groups: ["authentik Admins"],
    },
    user: {
      id: "d5a1d8ac3b9c1a0f6b1e9e8f7d6c5b4a3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b",
      name: "authentik Default Admin",
      email: "akadmin@example.com",
      image: null,
    },
  },
  {
    factory: Zitadel,
    id: "zitadel",
    name: "ZITADEL",
    type: "oidc",
    issuer: null,
    scope: "openid profile email",
    sample: {
      ...idTokenBase,
      iss: "https://my-instance.zitadel.cloud",
      sub: "77776025198584418",
      name: "Road Runner",
      given_name: "Road",
      family_name: "Runner",
      preferred_username: "road.runner@acme.zitadel.cloud",
      locale: "en",
      email: "road.runner@acme.ch",
      email_verified: true,
    },
    user: { id: "77776025198584418", name: "Road Runner", email: "road.runner@acme.ch", image: null },
  },
  {
    factory: OIDC,
    id: "oidc",
    name: "OpenID Connect",
    type: "oidc",
    issuer: null,
    scope: "openid profile email",
    sample: {
      ...idTokenBase,
      iss: "https://sso.example.com",
      sub: "248289761001",
      preferred_username: "j.doe",
      email: "janedoe@example.com",
      picture: "https://sso.example.com/janedoe/me.jpg",
    },
    user: {
      id: "248289761001",
      name: "j.doe",
      email: "janedoe@example.com",
      image: "https://sso.example.com/janedoe/me.jpg",
    },
  },
  {
    factory: Strava,
    id: "strava",
    name: "Strava",
    type: "oauth",
    authorization: "https://www.strava.com/oauth/authorize",
    scope: "read",
    token: "https://www.strava.com/oauth/token",
    userinfo: "https://www.strava.com/api/v3/athlete",
    sample: {
      id: 134815,
      username: "marianne_t",
      firstname: "Marianne",
      lastname: "Teutenberg",
      city: "San Francisco",
      country: "US",
      profile_medium: "https://xxxxxx.cloudfront.net/pictures/athletes/123456789/123456789/2/medium.jpg",
      profile: "https://xxxxx.cloudfront.net/pictures/athletes/123456789/123456789/2/large.jpg",
    },
    user: {
      id: "134815",
      name: "Marianne Teutenberg",
      email: null,
      image: "https://xxxxx.cloudfront.net/pictures/athletes/123456789/123456789/2/large.jpg",
    },
  },
  {
    factory: Patreon,
    id: "patreon",
    name: "Patreon",
    type: "oauth",
    authorization: "https://www.patreon.com/oauth2/authorize",
    scope: "identity identity[email]",
    token: "https://www.patreon.com/api/oauth2/token",
    userinfo: "https://www.patreon.com/api/oauth2/v2/identity",
    sample: {
      data: {
        id: "12345689",
        type: "user",
        attributes: {
          email: "corgi@example.com",
          full_name: "Corgi The Dev",
          image_url: "https://c8.patreon.com/2/200/12345689",
        },
      },
      links: { self: "https://www.patreon.com/api/oauth2/v2/user/12345689" },
    },
    user: {
      id: "12345689",
      name: "Corgi The Dev",
      email: "corgi@example.com",
      image: "https://c8.patreon.com/2/200/12345689",
    },
  },
  {
    factory: Osu,
    id: "osu",
    name: "osu!",
    type: "oauth",
    authorization: "https://osu.ppy.sh/oauth/authorize",
    scope: "identify",
    token: "https://osu.ppy.sh/oauth/token",
    userinfo: "https://osu.ppy.sh/api/v2/me",
    sample: {
      id: 2,
      username: "peppy",
      avatar_url: "https://a.ppy.sh/2?1519081077.png",
      country_code: "AU",
      is_bot: false,
    },
    user: { id: "2", name: "peppy", email: null, image: "https://a.ppy.sh/2?1519081077.png" },
  },
  {
    factory: Yandex,
    id: "yandex",
    name: "Yandex",
    type: "oauth",
    authorization: "https://oauth.yandex.ru/authorize",
    scope: "login:info login:email login:avatar",
    token: "https://oauth.yandex.ru/token",
    userinfo: "https://login.yandex.ru/info?format=json",
    sample: {
      login: "ivan",
      id: "1000034426",
      client_id: "4760187d81bc4b7799476b42b5103713",
      psuid: "1.AAceCw.tbHgw5DtJ9_zeqPrk-Ba2w.qPWSRC5v2t2IaksPJgnge",
      display_name: "Ivan",
      real_name: "Ivan Ivanov",
      first_name: "Ivan",
      last_name: "Ivanov",
      default_email: "test@yandex.ru",
      emails: ["test@yandex.ru", "other-test@yandex.ru"],
      default_avatar_id: "131652443",
      is_avatar_empty: false,
    },
    user: {
      id: "1000034426",
      name: "Ivan",
      email: "test@yandex.ru",
      image: "https://avatars.yandex.net/get-yapic/131652443/islands-200",
    },
  },
]

/** Splits an endpoint config into its URL and params. */
function endpoint(config: EndpointConfig | undefined): { url?: string; params: Record<string, unknown> } {
  if (typeof config === "string") return { url: config, params: {} }
  return { url: config?.url, params: config?.params ?? {} }
}

const tokens: TokenSet = { access_token: "at", token_type: "bearer" }

describe.each(rows)("$id", (row) => {
  const provider = row.factory()

  it("has its id, name and type", () => {
    expect(provider.id).toBe(row.id)
    expect(provider.name).toBe(row.name)
    expect(provider.type).toBe(row.type)
  })

  it("points at the provider's endpoints with the default scope", () => {
    const authorization = endpoint(provider.authorization)
    expect(authorization.url).toBe(row.authorization)
    expect(authorization.params.scope).toBe(row.scope)
    if (row.token) expect(endpoint(provider.token).url).toBe(row.token)
    if (row.userinfo) {
      const { url, params } = endpoint(provider.userinfo)
      const full = new URL(url!)
      for (const [key, value] of Object.entries(params)) full.searchParams.set(key, String(value))
      expect(full.href.startsWith(row.userinfo)).toBe(true)
    }
    if (row.type === "oidc") expect(provider.issuer).toBe(row.issuer ?? undefined)
    else expect(provider.issuer).toBe(row.issuer)
  })

  it("carries the user's options through untouched", () => {
    const options = {
      clientId: "id-123",
      clientSecret: "secret-456",
      // In Microsoft Entra ID's form (<authority>/<tenant>/v2.0), which its factory requires.
      issuer: "https://idp.example.com/tenant-1/v2.0",
      authorization: { params: { prompt: "login" } },
      allowDangerousEmailAccountLinking: true,
    }
    const configured = row.factory(options)
    expect(configured.options).toBe(options)
    // Defaults are not merged with the options here: the core does that.
    expect(configured.clientId).toBeUndefined()
    expect(configured.id).toBe(row.id)
  })

  it("maps a documented profile to the user", async () => {
    expect(await provider.profile!(row.sample, tokens)).toStrictEqual(row.user)
  })

  it("has a brand colour", () => {
    expect(provider.style?.brandColor).toMatch(/^#[0-9a-f]{6}$/)
  })
})

describe("per-provider details", () => {
  it("github: name falls back to the login, missing email is null", () => {
    const user = GitHub().profile!(
      { id: 1, login: "mona", name: null, email: null, avatar_url: "https://avatars.githubusercontent.com/u/1" },
      tokens,
    )
    expect(user).toStrictEqual({
      id: "1",
      name: "mona",
      email: null,
      image: "https://avatars.githubusercontent.com/u/1",
    })
  })

  it("github: enterprise.baseUrl moves every endpoint to the Enterprise host", () => {
    const provider = GitHub({ enterprise: { baseUrl: "https://github.example.com/" } })
    expect(provider.issuer).toBe("https://github.example.com/login/oauth")
    expect(endpoint(provider.authorization).url).toBe("https://github.example.com/login/oauth/authorize")
    expect(endpoint(provider.token).url).toBe("https://github.example.com/login/oauth/access_token")
    expect(endpoint(provider.userinfo).url).toBe("https://github.example.com/api/v3/user")
  })

  it("gitlab: baseUrl moves every endpoint to a self-managed instance", () => {
    const provider = GitLab({ baseUrl: "https://gitlab.example.com/" })
    expect(endpoint(provider.authorization).url).toBe("https://gitlab.example.com/oauth/authorize")
    expect(endpoint(provider.token).url).toBe("https://gitlab.example.com/oauth/token")
    expect(endpoint(provider.userinfo).url).toBe("https://gitlab.example.com/api/v4/user")
  })

  it("microsoft-entra-id: tenantId picks the tenant's issuer", () => {
    expect(MicrosoftEntraID({ tenantId: "contoso.onmicrosoft.com" }).issuer).toBe(
      "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0",
    )
  })

  it("microsoft-entra-id: no email claim gives a null email, never preferred_username", () => {
    const user = MicrosoftEntraID().profile!(
      { iss: "x", aud: "a", iat: 0, exp: 1, sub: "s", name: "N", preferred_username: "upn@corp.example" },
      tokens,
    )
    expect(user).toStrictEqual({ id: "s", name: "N", email: null, image: null })
  })

  it("apple: the first sign-in's posted name is the user's name", async () => {
    const claims = { iss: "https://appleid.apple.com", aud: "a", iat: 0, exp: 1, sub: "001.abc" }
    const user = { name: { firstName: "Ada", lastName: "Lovelace" }, email: "ada@example.com" }
    expect(await Apple().profile!({ ...claims, email: "ada@example.com", user }, tokens)).toStrictEqual({
      id: "001.abc",
      name: "Ada Lovelace",
      email: "ada@example.com",
      image: null,
    })
  })

  it("apple: asks for a form_post response, posts the client secret, uses state and nonce", () => {
    const apple = Apple()
    expect(endpoint(apple.authorization).params.response_mode).toBe("form_post")
    expect(apple.client?.token_endpoint_auth_method).toBe("client_secret_post")
    expect(apple.checks).toEqual(["pkce", "state", "nonce"])
  })

  it("twitch: requests email and picture in the ID token through the claims parameter", () => {
    expect(endpoint(Twitch().authorization).params.claims).toEqual({
      id_token: { email: null, email_verified: null, picture: null, preferred_username: null },
    })
    expect(Twitch().client?.token_endpoint_auth_method).toBe("client_secret_post")
  })

  it("twitter and reddit: require state on the authorization request", () => {
    expect(Twitter().checks).toEqual(["pkce", "state"])
    expect(Reddit().checks).toEqual(["pkce", "state"])
  })

  it("twitter: asks users/me for the profile image", () => {
    expect(endpoint(Twitter().userinfo).params).toEqual({ "user.fields": "profile_image_url" })
  })

  it("facebook: asks /me for id, name, email and picture", () => {
    expect(endpoint(Facebook().userinfo).params).toEqual({ fields: "id,name,email,picture" })
  })

  it("atlassian: sends the api.atlassian.com audience", () => {
    expect(endpoint(Atlassian().authorization).params).toMatchObject({ audience: "api.atlassian.com" })
  })

  it("notion: asks for a user-owned token and authenticates with HTTP Basic", () => {
    const notion = Notion()
    expect(endpoint(notion.authorization).params).toEqual({ owner: "user" })
    expect(notion.client?.token_endpoint_auth_method).toBe("client_secret_basic")
  })

  it("discord: users without an avatar get their default avatar", () => {
    const base = { username: "u", global_name: null, email: null }
    const migrated = Discord().profile!({ ...base, id: "80351110224678912", discriminator: "0", avatar: null }, tokens)
    // (80351110224678912 >> 22) % 6
    expect(migrated).toMatchObject({
      name: "u",
      email: null,
      image: `https://cdn.discordapp.com/embed/avatars/${Number((80351110224678912n >> 22n) % 6n)}.png`,
    })
    const legacy = Discord().profile!({ ...base, id: "1", discriminator: "1337", avatar: null }, tokens)
    expect((legacy as User).image).toBe("https://cdn.discordapp.com/embed/avatars/2.png")
    const animated = Discord().profile!({ ...base, id: "1", discriminator: "0", avatar: "a_abc" }, tokens)
    expect((animated as User).image).toBe("https://cdn.discordapp.com/avatars/1/a_abc.gif")
  })

  it("zoom: builds the name from first and last name when display_name is absent", () => {
    const user = Zoom().profile!({ id: "z", first_name: "Jill", last_name: "Chill" }, tokens)
    expect(user).toStrictEqual({ id: "z", name: "Jill Chill", email: null, image: null })
  })

  it("yandex: an empty avatar gives no image", () => {
    const user = Yandex().profile!(
      { id: "1", login: "ivan", default_avatar_id: "0/0-0", is_avatar_empty: true },
      tokens,
    )
    expect(user).toStrictEqual({ id: "1", name: "ivan", email: null, image: null })
  })

  it("oidc: id and name come from the options when given", () => {
    const provider = OIDC({ id: "corp", name: "Corp SSO", issuer: "https://sso.example.com" })
    expect(provider.id).toBe("corp")
    expect(provider.name).toBe("Corp SSO")
    expect(provider.options?.issuer).toBe("https://sso.example.com")
  })

  it("oidc: a profile without sub is rejected", () => {
    expect(() => OIDC().profile!({ email: "a@example.com" }, tokens)).toThrow(TypeError)
  })
})

describe("the catalogue directory", () => {
  const dir = join(__dirname, "../../lib/providers")
  const notCatalogue = new Set(["types", "credentials", "email", "nodemailer", "webauthn", "passkey", "password"])
  const files = readdirSync(dir)
    .filter((file) => file.endsWith(".ts"))
    .map((file) => basename(file, ".ts"))
    .filter((name) => !notCatalogue.has(name))

  it("holds at least 60 providers, each in the table above or with a test file of its own", () => {
    expect(files.length).toBeGreaterThanOrEqual(60)
    const tested = new Set([
      ...rows.map((row) => row.id),
      ...readdirSync(__dirname)
        .filter((file) => file.endsWith(".test.ts"))
        .map((file) => basename(file, ".test.ts")),
    ])
    expect(files.filter((name) => !tested.has(name))).toEqual([])
  })

  it.each(files)(
    "%s.ts: default export is a factory whose id is the file name, also exported by name",
    async (name) => {
      const mod = (await import(join(dir, `${name}.ts`))) as Record<string, unknown>
      const factory = mod.default as Factory
      expect(typeof factory).toBe("function")
      expect(Object.entries(mod).some(([key, value]) => key !== "default" && value === factory)).toBe(true)
      const provider = factory()
      expect(provider.id).toBe(name)
      expect(provider.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      expect(["oauth", "oidc"]).toContain(provider.type)
      expect(typeof provider.profile).toBe("function")
      if (provider.type === "oauth") {
        // Absolute, or a path on the issuer of an instance-specific provider (Mastodon).
        expect(endpoint(provider.authorization).url).toMatch(/^(https:\/\/|\/)/)
        expect(endpoint(provider.token).url).toMatch(/^(https:\/\/|\/)/)
      }
    },
  )
})
