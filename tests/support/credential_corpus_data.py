"""A corpus for the credential detector (docs/redaction.md): fake secrets and harmless lookalikes.

Imported by tests/core/redaction/test_credential_corpus.py and benchmarks/credential_corpus.py (tests/ is on
sys.path under pytest; the benchmark puts it there itself).

Every credential is a note as a person would type it to a bot, with the secret part named, so a
test can check that exactly that part is gone. The secrets have the right shape for their kind
but are plainly fake (they spell FAKE, EXAMPLE or count 0123...), and each is put together from
pieces at run time so this file does not itself look like a leaked key to secret scanners.

Every lookalike is a note that holds no secret and must come back unchanged: hashes, ids,
numbers, model names, paths, and prose about passwords rather than a password.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass

from support.credential_fresh_data import FRESH_CREDENTIALS, FRESH_LOOKALIKES


@dataclass(frozen=True)
class Credential:
    kind: str
    before: str
    secret: str
    after: str

    @property
    def note(self) -> str:
        return self.before + self.secret + self.after


def fill(seed: str, length: int) -> str:
    """``seed`` repeated and cut to ``length`` characters."""
    return (seed * (length // len(seed) + 1))[:length]


ALNUM = "FAKE0example1NOT2real3token4"  # letters of both cases and digits, plainly fake
HEX = "0123456789abcdef"
BECH32 = "FAKEQPZRY9X8GF2TVDW0S3JN54KHCE6MU7L"  # age's alphabet (no 1, B, I, O), upper case


def _b64url(data: dict) -> str:
    raw = json.dumps(data, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


JWT = ".".join(
    [
        _b64url({"alg": "HS256", "typ": "JWT"}),
        _b64url({"sub": "fake-user-0000", "name": "Example Only", "iat": 1516239022}),
        fill("FakeSignature0Example1", 43),
    ]
)


def _key_block(label: str, lines: list[str]) -> str:
    return "\n".join(["-----BEGIN " + label + "-----", *lines, "-----END " + label + "-----"])


_B64_LINE = fill("MIIEFAKEexample0NOTreal1KEY2", 64)

# fmt: off
CREDENTIALS: list[Credential] = [
    # --- cloud providers
    Credential("aws-access-key-id", "Deploy with key ", "AK" + "IA" + "FAKEEXAMPLE01234", " please"),
    Credential("aws-session-key-id", "temp creds: ", "AS" + "IA" + "FAKEEXAMPLE56789", " (expires 1h)"),
    Credential("aws-secret-key", "AWS_SECRET_ACCESS_KEY=", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "FAKEKEY123", "\n"),
    Credential("aws-secret-key", 'aws_secret_access_key = "', "FAKEkey0example1NOT2real3wJalrXUtn/K7MD", '"'),
    Credential("aws-secret-key", "the aws secret key is ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "FAKEKEY456", ", rotate it"),
    Credential("google-api-key", "maps key ", "AI" + "za" + fill("SyFAKE0example1", 35), " for the demo"),
    Credential("google-oauth-secret", "client secret ", "GOC" + "SPX-" + fill("FAKE0example1NOT", 28), " from the console"),
    Credential("google-access-token", "a ya29 token: ", "ya" + "29." + fill("a0FAKEexample1NOTreal2", 60), " (1 hour)"),
    Credential("azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey=",
               fill("FAKE0example1NOT2real+/", 86) + "==", ";EndpointSuffix=core.windows.net"),
    Credential("digitalocean-pat", "DO token for terraform: ", "dop" + "_v1_" + fill(HEX, 64), ""),
    Credential("digitalocean-oauth", "the droplet script uses ", "doo" + "_v1_" + fill("fedcba9876543210", 64), " today"),
    Credential("digitalocean-refresh", "refresh with ", "dor" + "_v1_" + fill("00ff11ee22dd33cc", 64), "."),
    # --- source hosting and CI
    Credential("github-classic", "push with ", "gh" + "p_" + fill(ALNUM, 36), " please"),
    Credential("github-oauth", "(oauth ", "gh" + "o_" + fill("Zy9XFAKE", 36), ")"),
    Credential("github-app", "the app token ", "gh" + "s_" + fill("Example0Fake1", 36), " expires hourly"),
    Credential("github-fine-grained", "GH_TOKEN=", "github" + "_pat_" + "11FAKE0000" + fill(ALNUM, 12) + "_" + fill(ALNUM, 59), ""),
    Credential("gitlab-pat", "gitlab token ", "gl" + "pat-" + fill("xY7zFAKE", 20), " for CI"),
    Credential("gitlab-runner", "runner registered with ", "gl" + "rt-" + fill("FAKE0runner1", 20), ""),
    Credential("npm-token", "npm publish works with ", "np" + "m_" + fill(ALNUM, 36), " now"),
    Credential("npm-token", "//registry.npmjs.org/:_authToken=", "np" + "m_" + fill("Fake1Npm2Token3", 36), "\n"),
    Credential("pypi-token", "twine password ", "pypi-AgEIcHlwaS5vcmc" + fill("CJFAKE0example1", 80), " (scoped)"),
    Credential("docker-hub-pat", "docker login -u bob -p ", "dckr" + "_pat_" + fill("FAKE0docker1", 27), ""),
    Credential("docker-hub-pat", "My Docker Hub PAT: ", "dckr" + "_pat_" + fill("Ex4mpleFAKE_-", 27), " (read-only)"),
    # --- chat and messaging
    Credential("slack-bot", "slack: ", "xo" + "xb-" + "123456789012-1234567890123-" + fill("FAKE0slack1", 24), " (bot)"),
    Credential("slack-user", "user token ", "xo" + "xp-" + "123456789012-123456789012-123456789012-" + fill(HEX, 32), ""),
    Credential("slack-webhook", "post to ", "https://hooks." + "slack.com/services/T" + "0FAKE123/B0FAKE456/" + fill("Fake1Hook", 24), " daily"),
    Credential("slack-app", "socket mode uses ", "xa" + "pp-1-A0FAKE123-1234567890-" + fill(HEX, 64), ""),
    Credential("telegram-bot", "the bot token is ", "123456789:" + "AA" + fill("FAKE0telegram1_-", 33), ""),
    Credential("discord-bot", "the bot's token is ", "MTE" + fill("2FAKE0example1NOTreal", 23) + "." + "GFake2" + "." + fill("Fake0Discord1Example2NOT", 38), ", reset it if it leaks"),
    Credential("telegram-bot", "notify via https://api.telegram.org/bot", "987654321:" + "AA" + fill("FAKE1telegram0_-", 33), "/sendMessage?chat_id=42"),
    Credential("discord-bot", "discord bot ", "M" + fill("TAFAKE0example1", 23) + "." + "GFake1" + "." + fill("Fake0Discord1Example", 27), " in .env"),
    Credential("twilio-key", "twilio api key ", "S" + "K" + fill("0123456789abcdef", 32), ""),
    Credential("sendgrid", "sendgrid ", "S" + "G." + fill("FAKE0sendgrid1", 22) + "." + fill("Example0Fake1Key2", 43), " key"),
    Credential("mailchimp", "mailchimp api ", fill("0fake1example2", 32) + "-us12", " for the newsletter"),
    # --- payments and commerce
    Credential("stripe-live", "stripe ", "sk" + "_live_" + fill("FAKE0stripe1", 99), "."),
    Credential("stripe-restricted", "use the restricted key ", "rk" + "_live_" + fill("FAKE0stripe1", 24), ""),
    Credential("stripe-test", "stripe test ", "sk" + "_test_" + fill("FAKE0stripe1", 24), "."),
    Credential("stripe-webhook", "webhook signing: ", "wh" + "sec_" + fill("FAKE0webhook1", 32), ""),
    Credential("square", "square app secret ", "sq0" + "csp-" + fill("FAKE0square1", 43), ""),
    Credential("shopify-admin", "Shopify admin API: ", "shp" + "at_" + fill(HEX, 32), " (custom app)"),
    Credential("shopify-shared", "shared secret ", "shp" + "ss_" + fill("fedcba9876543210", 32), ""),
    Credential("shopify-custom", "the custom app token ", "shp" + "ca_" + fill("0a1b2c3d4e5f6789", 32), " works"),
    Credential("shopify-private", "old private app: ", "shp" + "pa_" + fill("abcdef0123456789", 32), ""),
    # --- AI providers
    Credential("openai-legacy", "the key is ", "sk-" + "FAKE0example1NOT2xy" + "T3Blbk" + "FJ" + "FAKE0example1NOT2xy", ", keep it safe"),
    Credential("openai-project", "OPENAI_API_KEY=", "sk-" + "proj-" + fill(ALNUM, 48) + "-" + fill("Lk5jFAKE", 20), "\n"),
    Credential("openai-service", "the service account key ", "sk-" + "svcacct-" + fill(ALNUM, 64), " for the bot"),
    Credential("anthropic", 'ANTHROPIC_API_KEY="', "sk-" + "ant-" + "api03-" + fill(ALNUM, 93) + "AA", '"'),
    Credential("anthropic", "- 2026-09-10 · user shared ", "sk-" + "ant-" + "api03-" + fill("Zx9Qw8FAKE", 95), " in chat"),
    Credential("hugging-face", "HF token ", "h" + "f_" + fill("FAKEexample0NOT", 34), " for downloads"),
    Credential("groq", "groq: ", "gs" + "k_" + fill(ALNUM, 52), ""),
    Credential("xai", "grok key ", "xa" + "i-" + fill(ALNUM, 80), ""),
    # --- secrets stores and encryption
    Credential("vault-service", "VAULT_TOKEN=", "hv" + "s." + fill("CAESIFAKE0example1NOT2real", 90), "\n"),
    Credential("vault-batch", "a batch token ", "hv" + "b." + fill("AAAAAQFAKE0example1", 138), " for the job"),
    Credential("vault-recovery", "recovery token: ", "hv" + "r." + fill("FAKE0recovery1NOT2", 24), ""),
    Credential("vault-legacy", "vault login ", "s" + "." + "FAKE0example1NOT2real3Xy", ""),
    Credential("vault-legacy", "the old root token was ", "s" + "." + "Ga5FAKEq6kNfRMVQk2LY1j9u", ", revoked now"),
    Credential("age-secret-key", "backup key ", "AGE-SECRET-KEY-1" + fill(BECH32, 58), " is in the safe"),
    Credential("private-key-rsa", "the key:\n", _key_block("RSA " + "PRIVATE KEY", [_B64_LINE, _B64_LINE, "FAKE=="]), "\nend of note"),
    Credential("private-key-openssh", "```\n", _key_block("OPENSSH " + "PRIVATE KEY", ["b3BlbnNzaC1rZXktdjEAAAAA" + "FAKE" * 10, "Example=="]), "\n```"),
    Credential("private-key-ec", "ec key for the signer\n", _key_block("EC " + "PRIVATE KEY", [_B64_LINE, "FAKE"]), "\n"),
    Credential("private-key-pkcs8-encrypted", "", _key_block("ENCRYPTED " + "PRIVATE KEY", [_B64_LINE]), "\n(pass in 1Password)"),
    Credential("private-key-pgp", "gpg export:\n", _key_block("PGP " + "PRIVATE KEY BLOCK", ["", "lQOYBFAKE" + _B64_LINE[:50], "=FAKE"]), ""),
    Credential("putty-key", "", "\n".join(["PuTTY-User-Key-File-" + "3: ssh-ed25519", "Encryption: none",
                                            "Private-Lines: 1", "AAAAIFAKE" + "x" * 30, "Private-MAC: " + fill(HEX, 64)]), "\n\nlater"),
    # --- headers and tokens in general
    Credential("jwt", "cookie session=", JWT, "; path=/"),
    Credential("jwt", "a token like ", JWT, " was logged"),
    Credential("bearer", "curl -H 'Authorization: Bearer ", fill("FAKE0bearer1Example", 40), "' https://api.example.com"),
    Credential("basic-auth-header", "Authorization: Basic ", "ZmFrZTpub3QtcmVhbC1wYXNzd29yZA==", "\n"),
    Credential("token", "token=", "abc123def456ghi", "&user=bob"),
    Credential("token", '{"access_token": "', fill("FAKE0access1", 32), '", "expires_in": 3600}'),
    Credential("api-key", "api_key: ", "Zx81kQp0Lm3Nv7Rt", "\n"),
    Credential("api-key", "X-API-Key: ", "0123fake4567example", "\r\n"),
    Credential("api-key", "the API key is ", fill("FAKE0example1NOT", 32), ", use it for staging"),
    Credential("api-key", "Our OpenRouter API key was ", fill("Fake1Router2", 40), "."),
    Credential("access-key", "the access key is: ", "fake0ACCESS1example2key", ""),
    Credential("token", "the token is ", fill("FAKE0token1Example", 40), " (read scope)"),
    Credential("secret-key", "Django secret key is ", "django-insecure-" + fill("FAKE0dj1ngo", 34), ""),
    # --- passwords and pass phrases
    Credential("password", "password: ", "hunter2", ""),
    Credential("password", "- 2026-11-30 · guest wifi password: ", "Tulip77!", " · until 2026-12-05"),
    Credential("password", "- **Password:** ", "Tr0ub4dor&3", "\n"),
    Credential("password", "DB_PASSWORD=", "s3cr3t!pw", " # prod"),
    Credential("password", '{"user": "bob", "password": "', "pa ss:w0rd", '"}'),
    Credential("password", "  passwd: '", "letmein", "'\n"),
    Credential("passphrase", "passphrase: ", "correct horse battery staple", ""),
    Credential("passphrase", "Your new wifi passphrase: ", "orbit lantern meadow fig", ", keep it safe."),
    Credential("passphrase", "my passphrase is ", "purple monkey dishwasher lamp", ""),
    Credential("passphrase", "The pass phrase is: ", "tangerine rocket velvet harbor", ". Anything else?"),
    Credential("passphrase", "pass phrase: ", "correct horse battery staple", " (from the vault)"),
    Credential("passphrase", "GPG_PASSPHRASE = ", "seven quiet owls dancing", "\n"),
    Credential("passphrase", '{"text": "passphrase: ', "correct horse battery staple", '", "failed": false}'),
    Credential("password", "My password is ", "hunter2", ""),
    Credential("password", "the admin password is now ", "Tulip77", " for guests"),
    Credential("password", "the password for the router is ", "Kx9-fake-77", ""),
    Credential("password", "our wifi pass is ", "Tulip77", ", ask if it changes"),
    Credential("password", "the pass is ", "sw0rd#fish", "."),
    Credential("password", "wifi pass: ", "Tulip77!", ""),
    Credential("password", '"our wifi pass is ', "Tulip77", '", he said'),
    Credential("password", 'she wrote "password: ', "Kx9-fake-77", '", then left'),
    Credential("secret", "secret=", "q9Xz7Lm2Np4", "\n"),
    Credential("client-secret", "client_secret: ", fill(HEX, 32), "\n"),
    Credential("secret", "- the vault secret: ", "hunter2", " · until 2026-12-05"),
    # --- URLs with a password
    Credential("url-password", "https://bob:", "s3cret", "@example.com/x"),
    Credential("url-password", "DATABASE_URL=postgres://app:", "Xq7Lw9pA", "@db.internal:5432/app"),
    Credential("url-password", "connect to mysql://root:", "Fake#Pass9", "@localhost:3306/shop"),
    Credential("url-password", "redis://default:", "#fake0pw", "@cache.internal:6379"),
    Credential("url-password", "amqp://guest:", "p@ss#w0rd", "@rabbit:5672/"),
    Credential("url-password", "redis://:", "s3cr3tpw", "@cache:6379/0"),
    Credential("url-password", "https://admin:", "S3cret!", "@example.com"),
    Credential("url-password", "the feed is https://reader:", "Fake/Pass?9x", "@rss.example.com/private.xml"),
    # --- more providers (gitleaks' default rules as the reference for their shapes)
    Credential("perplexity", "perplexity key ", "pplx-" + fill(ALNUM, 48), " for the search tool"),
    Credential("replicate", "replicate token ", "r8" + "_" + fill(ALNUM, 37), " (billing on)"),
    Credential("atlassian", "jira API token ", "ATATT3" + "xFfGF0" + fill("FAKE0example1_-", 170) + "=" + "0A1B2C3D", " expires in a year"),
    Credential("databricks", "databricks PAT ", "dapi" + fill(HEX, 32), " for the notebook"),
    Credential("linear", "linear: ", "lin_api_" + fill(ALNUM, 40), ""),
    Credential("notion", "the notion integration secret ", "ntn" + "_" + "12345678901" + fill(ALNUM, 35), " works"),
    Credential("doppler", "doppler service token ", "dp.st." + "prd." + fill(ALNUM, 40), ", read-only"),
    Credential("doppler", "doppler personal token ", "dp.pt." + fill(ALNUM, 43), ""),
    Credential("pulumi", "pulumi login with ", "pul-" + fill(HEX, 40), ""),
    Credential("terraform-cloud", "TFC token ", fill("FAKE0example1N", 14) + ".atlasv1." + fill("FAKE0example1NOT2real3-_", 67), " in credentials.tfrc.json"),
    Credential("mapbox-secret", "mapbox secret token ", "sk.eyJ1IjoiZmFrZS11c2VyIiwiYSI6ImZha2UwZXhhbXBsZSJ9" + "." + fill("FAKE0mapbox1Example", 22), " (downloads)"),
    Credential("sentry", "sentry auth token ", "sntrys" + "_" + "eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoiRkFLRSJ9" + "_" + fill(ALNUM, 43), ""),
    Credential("sentry", "sentry user token ", "sntryu" + "_" + fill(HEX, 64), " for the CLI"),
    Credential("grafana-service-account", "grafana SA token ", "glsa" + "_" + fill(ALNUM, 32) + "_" + fill(HEX, 8), ""),
    Credential("grafana-cloud", "grafana cloud ", "glc" + "_" + fill("FAKE0example1NOT2real3+/", 56) + "==", " (stack admin)"),
    Credential("new-relic", "new relic user key ", "NRAK-" + fill("FAKE0EXAMPLE1NOT2REAL3", 27), ""),
    Credential("tailscale", "tailscale auth key ", "tskey-auth-" + "kFAKE0CNTRL" + "-" + fill(ALNUM, 33), " for the CI runner"),
    Credential("supabase", "supabase access token ", "sbp" + "_" + fill(HEX, 40), ""),
    Credential("figma", "figma PAT ", "figd" + "_" + fill("Fake0Figma1_-", 40), " (file read)"),
    Credential("postman", "postman api key ", "PMAK-" + fill(HEX, 24) + "-" + fill(HEX, 34), ""),
    Credential("planetscale", "planetscale password ", "pscale_pw_" + fill(ALNUM, 43), " for main"),
    Credential("flyio", "fly deploy token ", "fo1" + "_" + fill("FAKE0example1NOT2real3-_", 43), ""),
    Credential("heroku", "heroku api key ", "HRKU-AA" + fill("FAKE0example1NOT2real3-_", 58), ""),
    Credential("alibaba", "aliyun access key id ", "LTAI" + fill("5tFAKE0example1", 20), " (ram user)"),
    Credential("1password-service", "op service account ", "ops_eyJ" + fill("FAKE0example1NOT2real3+/", 260) + "=", ""),
    Credential("1password-secret-key", "emergency kit: ", "A3-" + "FAKE01-" + "EXAMPLE0123" + "-ABCDE-FGHIJ-KLMNO", " (keep offline)"),
    Credential("cloudflare-origin-ca", "origin CA key ", "v1.0-" + fill(HEX, 24) + "-" + fill(HEX, 146), ""),
    Credential("dynatrace", "dynatrace ", "dt0c01." + fill("FAKE0EXAMPLE1NOT2REAL3", 24) + "." + fill("FAKE0example1NOT2real3", 64), ""),
    Credential("easypost", "easypost live key ", "EZAK" + fill(HEX, 54), ""),
    Credential("prefect", "prefect ", "pnu" + "_" + fill(ALNUM, 36), " for the flows"),
    Credential("readme", "readme.com key ", "rdme" + "_" + fill("fake0example1not2", 70), ""),
    Credential("rubygems", "gem push with ", "rubygems" + "_" + fill(HEX, 48), ""),
    Credential("brevo", "brevo (sendinblue) key ", "xkeysib-" + fill(HEX, 64) + "-" + fill("FAKE0example1", 16), ""),
    Credential("shippo", "shippo ", "shippo" + "_live_" + fill(HEX, 40), ""),
    Credential("sourcegraph", "sourcegraph token ", "sgp" + "_" + fill(HEX, 16) + "_" + fill(HEX, 40), ""),
    Credential("huggingface-org", "hf org token ", "api_org" + "_" + fill("FAKEexampleNOTreal", 34), ""),
    Credential("infracost", "infracost ", "ico-" + fill(ALNUM, 32), " in CI"),
    Credential("scalingo", "scalingo ", "tk-us-" + fill("FAKE0example1NOT2real3-_", 48), ""),
    Credential("azure-ad-secret", "app registration secret ", "Fk7" + "8Q~" + fill("FAKE0example1NOT2real3_.", 34), " (expires 2027)"),
    Credential("stripe-prod", "stripe ", "sk" + "_prod_" + fill("FAKE0stripe1", 32), "."),
    Credential("square-access", "square access token ", "EAAA" + fill("lFAKE0example1NOT2real3", 60), ""),
    Credential("facebook-page", "page token ", "EAAC" + fill("FAKE0example1NOT2real3", 120), ""),
    # --- secrets inside URLs
    Credential("s3-presigned", "the file: https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261201T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=", fill(HEX, 64), " (1 hour)"),
    Credential("s3-presigned", "https://bucket.s3.amazonaws.com/a.txt?X-Amz-Security-Token=", fill("FAKE0example1NOT2real3%2B", 120), "&X-Amz-Date=20261201T000000Z"),
    Credential("azure-sas", "share link https://fake.blob.core.windows.net/c/file.zip?sv=2022-11-02&se=2026-12-31&sr=b&sp=r&sig=", fill("FAKE0example1NOT2real3%2F", 44) + "%3D", " (read only)"),
    Credential("discord-webhook", "post alerts to https://discord.com/api/webhooks/123456789012345678/", fill("FAKE0example1NOT2real3-_", 68), ""),
    Credential("teams-webhook", "teams channel: https://fake.webhook.office.com/webhookb2/", "0123abcd-0000-4fa1-8b2c-0123456789ab@fedc0987-1111-4b3a-9c8d-ba9876543210/IncomingWebhook/" + fill(HEX, 32) + "/0a1b2c3d-2222-4e5f-a6b7-c8d9e0f1a2b3", " for the nightly report"),
    # --- pasted files and command lines
    Credential("netrc", "my .netrc:\nmachine api.example.com login bob password ", "Fake0Pass9", "\n"),
    Credential("netrc", "machine git.example.com\n  login deploy\n  password ", "s3cr3t-FAKE", "\n"),
    Credential("pgpass", "~/.pgpass has\ndb.internal:5432:shop:app:", "Xq7Lw9pA!fake", "\n"),
    Credential("docker-auth", '{"auths": {"ghcr.io": {"auth": "', "ZmFrZTpub3QtcmVhbC1wYXNzd29yZA==", '"}}}'),
    Credential("kubeconfig", "users:\n- name: admin\n  user:\n    client-key-data: ", fill("LS0tLS1CRUdJTiBGQUtFIEtFWS0tLS0t", 88), "\n"),
    Credential("sshpass", "deploy with sshpass -p ", "Fake0Pass9", " ssh bob@host"),
    Credential("sshpass", "sshpass -p '", "two words9", "' rsync -a . host:"),
    Credential("mysql", "mysql -u root -p", "Fake0Pass9", " shop < dump.sql"),
    Credential("curl-user", "curl -u bob:", "Fake0Pass9", " https://api.example.com/v1/me"),
    Credential("cookie", "Cookie: theme=dark; sessionid=", "fake0example1not2real3abc", "; lang=en"),
    Credential("cookie", "the request had Cookie: JSESSIONID=", "FAKE0123456789ABCDEF0123456789AB", ""),
    Credential("ethereum-private-key", "wallet private key ", "0x" + fill(HEX, 64), ", the address is 0x71C7"),
    Credential("ethereum-private-key", "metamask export, private key: ", fill("fedcba9876543210", 64), ""),
    # --- password phrases in other languages
    Credential("password-fr", "le mot de passe du wifi est ", "Soleil2024!", ""),
    Credential("password-fr", "Mot de passe : ", "Fake0Pass9", "\n"),
    Credential("password-de", "das WLAN-Passwort ist ", "Sonne2024", ", bitte nicht weitergeben"),
    Credential("password-de", "Kennwort lautet ", "Tulpe77!", ""),
    Credential("password-es", "la contraseña del router es ", "Casa2024!", ""),
    Credential("password-cs", "heslo je ", "Slunce77", "."),
    Credential("password-it", "la password è ", "Sole2024!", ""),
    Credential("password-pt", "a senha é ", "Casa2024", ""),
    Credential("password-nl", "het wachtwoord is ", "Zon2024!", ""),
    Credential("password-pl", "hasło to ", "Slonce77", ""),
    # --- keys cut by a line break or a zero-width character as they were pasted
    Credential("split-key", "push with this\n", "gh" + "p_" + fill(ALNUM, 20) + "\n" + fill("Zy9XFAKE", 16), "\nthanks!"),
    Credential("split-key", "Deploy with key ", "AK" + "IA" + "FAKE\u200bEXAMPLE01234", " please"),
]
# fmt: on

# Fresh shapes by family, bodies drawn at random in each kind's shape (tests/support/credential_fresh_data.py).
CREDENTIALS += [Credential(*fresh) for fresh in FRESH_CREDENTIALS]


LOOKALIKES: list[str] = [
    # --- hashes and ids
    "fixed in commit 3f9a2b1c4d5e6f708192a3b4c5d6e7f809a1b2c3, see the PR",
    "short sha 3f9a2b1 was the culprit",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "md5 of the file is 9e107d9d372bb6826bd81d3542a419d6",
    "image digest sha256:6f1e2b3c4d5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed twice",
    "the user's id is 01J9Z3K8Q5X7W2M4N6P8R0T2V4 (a ULID)",
    "SSH key fingerprint SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
    "the git tag is v2.14.0-rc.1+build.20260910",
    "order #A1B2C3D4E5 shipped; tracking 1Z999AA10123456784",
    "serial number SN-7F3K-99QX-2M4L-8P0D",
    # --- numbers people write down
    "ISBN 978-0-306-40615-7 is the book she recommended",
    "ISBN-10: 0306406152",
    "call her on +44 20 7946 0958 after 6pm",
    "office phone (555) 010-4477, ext. 12",
    "pay to IBAN GB82 WEST 1234 5698 7654 32, reference ROOF-2026",
    "account DE89370400440532013000 is the joint one",
    "flight LH2034 lands at 14:30 on 2026-09-10",
    "meeting at 2026-09-10T14:30:00Z, dial-in 0800 123 4567",
    "IP 203.0.113.7 and IPv6 2001:db8::1, MAC 00:1A:2B:3C:4D:5E",
    "card ends in 4242; the PIN stays with her",
    # --- model names, versions, packages
    "switch the helper to gpt-4o-mini, the main bot to claude-haiku-4-5",
    "runs qwen3-8b locally; tried deepseek-r1:14b and mistral-large-2411",
    "model meta-llama/Llama-3.1-8B-Instruct with text-embedding-3-large",
    "claude-3-5-sonnet-20241022 and gpt-4o-2024-08-06 compared",
    "she uses scikit-learn (sk-learn) and the model madatnlp/sk-kogptv2-kormath-causal",
    "npm install left-pad; npm_config_cache=/tmp/npm-cache",
    "hf_hub_download works; the npm_package_version is 1.4.2",
    "docker pull docker.io/library/python:3.12-slim",
    "version 1.2.3-beta4, build 20260910.1",
    # --- paths, URLs, code
    "the key lives at ~/.ssh/id_ed25519 and ~/.aws/credentials",
    "logs under /var/log/omb/2026-09-10.log and C:\\Users\\Bob\\AppData",
    "docs at https://example.com/docs/page?id=42#section (no login needed)",
    "runs on http://localhost:8080/api and ssh://git@github.com:22/org/repo",
    "clone git@github.com:org/repo.git, mail bob@example.com",
    "open https://bob@example.com/profile#settings",
    "python: secrets.token_hex(32) and hashlib.sha256(password.encode())",
    "max_tokens: 4096, temperature: 0.7, api_version: 2024-06-01",
    "token budget: 200000 per day; tokens used: 12,345",
    "the colours are #1e90ff and #ff6600, background rgb(12, 34, 56)",
    "base64 of hello is aGVsbG8= and SGVsbG8gd29ybGQ= is hello world",
    # --- prefixes mentioned, not keys
    "AWS access key ids start with AKIA; ghp_ marks GitHub tokens",
    "DigitalOcean tokens start with dop_v1_ and Shopify ones with shpat_",
    "vault tokens look like hvs. followed by a long string; age keys start with AGE-SECRET-KEY-1",
    "s.t. the sum holds; U.S. routes 66 and 101; e.g. s.v. entry",
    # --- prose about passwords, tokens and keys
    "password: 12 characters minimum, rotated yearly",
    "wifi password: ask reception",
    "passphrase: four random words",
    "secret: 42 is the answer",
    "the token is in the vault",
    "my password is long",
    "the password is on the sticky note under the keyboard",
    "password: see 1Password, vault Family",
    "password: 8+ characters, one digit, one symbol",
    "password policy: at least 14 characters",
    "the password reset flow was discussed; they want magic links",
    "the API key is still pending approval",
    "the API key is 32 characters long",
    "the access key is AKIA-prefixed",
    "api key: ask DevOps",
    "the secret is out: she is moving to Lisbon",
    "secret: she hates cilantro",
    "the token economy of their game is unbalanced",
    "token: regenerated monthly by the CI job",
    "the pass is closed in winter",
    "the boarding pass is on my phone",
    "boarding pass is BA0117, seat 14C",
    "bus pass: expired",
    "secretary: Jane Doe; key insight: they hoard gold",
    "passwords are kept in 1Password; the bypass: none",
    "the wifi password changes every monday",
    "pwd: /Users/maciej",
    "the password for the wifi is on the fridge",
    "the token for staging is in Doppler",
    "the private key is id_ed25519, the public one id_ed25519.pub",
    "the API key is $OPENAI_API_KEY",
    "the secret to a good life is 42",
    "the key to success is persistence",
    "the guest pass is free on Sundays",
    "his pass is 50 yards long",
    "password: changed monthly",
    "password: unchanged since 2024",
    "password: 2FA enabled",
    "password: N/A",
    "password: (none)",
    "Password: Required (min 8 chars)",
    "passphrase: seven random words",
    "passphrase: ask reception",
    "passphrase rules: at least 4 words",
    "pass phrase: at least four words, no names",
    "the passphrase is long enough",
    "the pass phrase is case sensitive",
    "passphrase: see the team vault, entry Wi-Fi",
    "Passphrase: required for the SSH key",
    "the passphrase is changed every month",
    "my passphrase is the one on the sticky note",
    "passphrase: $GPG_PASSPHRASE",
    "secret: 007 fan club",
    'the password hint is "first pet"',
    "the secret ingredient is cardamom",
    "password: Google account",
    # --- public things that look like keys
    "stripe publishable key " + "pk" + "_live_51FAKEexample0NOTreal1KEY2xyzABCDEF is public",
    "send ETH to 0x71C7656EC7ab88b098defB751B7401B5f6d8976F",
    "btc: bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeExample0NotReal1PublicKey2abcdEFGH bob@laptop",
    "-----BEGIN CERTIFICATE----- is the start of the cert she sent",
    "the sheet is https://docs.google.com/spreadsheets/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
    "video https://youtu.be/dQw4w9WgXcQ?t=42",
    "role arn:aws:iam::123456789012:role/Deploy in account 123456789012",
    "password_hash: $2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
    # --- the newer shapes mentioned, and their public or harmless cousins
    "the dapi endpoint is slow; dapi is the Databricks prefix and DAPI a Windows API",
    "LTAI is the Alibaba prefix; LTAI5 and LTAIwords are not keys",
    "mapbox public token pk.eyJ1IjoiZmFrZS11c2VyIiwiYSI6ImZha2UwZXhhbXBsZSJ9.FAKE0mapbox1Examplexy is fine in the page",
    "Perplexity keys start with pplx- and Replicate ones with r8_; Atlassian with ATATT3",
    "ntn_ and lin_api_ and dp.st. and pul- and sbp_ and figd_ and fo1_ are prefixes, HRKU-AA too",
    "tskey-auth- keys expire; NRAK- is New Relic's user key prefix; PMAK- is Postman's",
    "tx hash 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 confirmed",
    "sha256 digest 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 matches",
    "the sig= parameter of a SAS URL and X-Amz-Signature are secrets; sig=1 is a flag",
    "https://discord.com/api/webhooks is where webhooks live; see https://discord.com/channels/123456789012345678/987654321098765432",
    "meeting 14:30:00:00:01 and ratio 1:2:3:4:5; IPv6 fe80::1:2:3:4",
    "mysql -u root -p shop prompts for the password; mysql -p is interactive",
    "curl -u bob https://api.example.com asks for the password; sshpass -p is in the runbook",
    "Cookie: theme=dark; lang=en; tz=Europe/Prague",
    "machine learning login page: password reset link sent",
    "le mot de passe est trop court; das Passwort ist falsch; la contraseña es segura; heslo je tajné",
    "the kubeconfig has client-key-data and token fields; docker's config.json has auth entries",
    "Sentry DSN sntrys_ prefix; glsa_ service accounts; .atlasv1. in Terraform tokens; sk.eyJ is Mapbox",
    "the tailscale node fd7a:115c:a1e0::1 and host tskey-example.internal",
]
LOOKALIKES += FRESH_LOOKALIKES

# Lookalikes the detector still takes for a secret, and why each remains. The corpus
# test fails when one of these passes unchanged (drop it from here) or when any other
# lookalike is changed (a new false hit).
KNOWN_FALSE_HITS: dict[str, str] = {
    "password: Google account": (
        "two ordinary nouns after a password key read the same as a two-word pass phrase "
        '("correct horse"); telling them apart needs a meaning, not a pattern'
    ),
}


def escaped_forms(credential: Credential) -> dict[str, str]:
    """The note as a JSON or YAML string literal would hold it, each escape a way to hide the secret from a
    detector that reads the encoded text: quotes as \\", slashes as \\/, letters as \\u00XX (the first one
    only, as in \\u0041KIA…, or every fifth), YAML's \\x41, and JSON inside JSON (escaped twice)."""
    quoted = json.dumps(credential.note)[1:-1]  # \" for a quote, \n for a line break
    secret = credential.secret

    def letters(every: int, form: str) -> str:
        hidden = "".join(form % ord(c) if i % every == 0 and c.isascii() else c for i, c in enumerate(secret))
        return json.dumps(credential.before)[1:-1] + hidden + json.dumps(credential.after)[1:-1]

    return {
        "quotes": quoted,
        "slashes": quoted.replace("/", "\\/"),
        "first-letter": letters(len(secret) + 1, "\\u%04x"),
        "every-fifth-letter": letters(5, "\\u%04X"),
        "yaml-hex": letters(4, "\\x%02x"),
        "twice": json.dumps(quoted)[1:-1],
    }


@dataclass(frozen=True)
class Score:
    leaked: list[Credential]  # a secret (or part of one) still in the text after redaction
    false_hits: list[str]  # lookalikes that redaction changed

    def summary(self) -> str:
        kinds = len({c.kind for c in CREDENTIALS})
        named = "; ".join(repr(line) for line in self.false_hits) or "none"
        return (
            f"{len(CREDENTIALS)} credentials of {kinds} kinds, {len(self.leaked)} leaked; "
            f"{len(LOOKALIKES)} lookalikes, {len(self.false_hits)} false hits: {named}"
        )


def score(redact_text: Callable[[str], str]) -> Score:
    """Run ``redact_text`` over the corpus. A credential leaks when its secret, or any
    8-character piece of it, is still in the output (outside the note's own text)."""
    leaked = [c for c in CREDENTIALS if _leaks(c, redact_text(c.note))]
    false_hits = [line for line in LOOKALIKES if redact_text(line) != line]
    return Score(leaked, false_hits)


def _leaks(credential: Credential, out: str) -> bool:
    secret = credential.secret
    if secret in out:
        return True
    if out.startswith(credential.before) and out.endswith(credential.after):
        out = out[len(credential.before) : len(out) - len(credential.after)]
    return any(secret[i : i + 8] in out for i in range(len(secret) - 7))
