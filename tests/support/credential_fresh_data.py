"""Fresh credential shapes, by family, with bodies drawn at random (a fixed seed) in the shape each kind has, and the
lookalikes next to them that must stay as written.

The shapes (prefix, alphabet, length) were read from the current gitleaks rules and trufflehog detectors and are
written here independently of the redaction's own table (omb_tui/core/redaction/vendors.py), with each kind's
exact length, so a test checks the redaction against the kinds as they are, not against itself. Every body is
random, so no string here is a real key, nor the same string twice. tests/support/credential_corpus_data.py adds them
to its corpus, so every test that runs the corpus through a write path runs these too.
"""

from __future__ import annotations

import base64
import random
import secrets
import string
from collections.abc import Callable
from typing import NamedTuple


class Credential(NamedTuple):
    """As credential_corpus_data.Credential (which is made from these): the secret is what must go, whole."""

    kind: str
    before: str
    secret: str
    after: str

    @property
    def note(self) -> str:
        return self.before + self.secret + self.after


ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
URL = ALNUM + "_-"
B64 = ALNUM + "+/"


class Draw:
    """Random bodies of a given alphabet and length, each with a letter and a digit (a generated key has both)."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def body(self, alphabet: str, length: int) -> str:
        while True:
            drawn = "".join(self.random.choice(alphabet) for _ in range(length))
            if any(c.isdigit() for c in drawn) and any(c.isalpha() for c in drawn) and drawn[-1] in ALNUM:
                return drawn

    def uuid(self) -> str:
        return "-".join(self.body(HEX, n) for n in (8, 4, 4, 4, 12))

    def word(self, length: int) -> str:
        return "".join(self.random.choice(string.ascii_lowercase) for _ in range(length))

    def choice(self, options: list[str]) -> str:
        return self.random.choice(options)


# Ways a person pastes a key into a note: (before, after).
SURROUNDINGS = [
    ("the key is ", ", keep it safe"),
    ("rotated it, new one: ", ""),
    ("in .env: KEYVAL=", "\n"),
    ('{"value": "', '"}'),
    ("use ", " for staging"),
]

# (vendor, how the shape is made): prefix + random body, exact lengths as the rule sets give them.
VENDOR_SHAPES: dict[str, Callable[[Draw], str]] = {
    "adobe": lambda d: "p8e-" + d.body(LOWER, 32),
    "artifactory": lambda d: "AKCp" + d.body(ALNUM, 69),
    "artifactory-reference": lambda d: "cmVmdGtu" + d.body(ALNUM, 56),
    "atlassian-cloud-admin": lambda d: "ATCTT3xFfG" + d.body(URL, 180) + "=" + d.body(ALNUM, 8),
    "aws-bedrock": lambda d: "ABSK" + d.body(B64, 132),
    "bitbucket-dc": lambda d: "BBDC-" + d.body(ALNUM, 44),
    "bitbucket": lambda d: d.choice(["bb_pr_", "bb_ma_"]) + d.body(HEX, 30),
    "buildkite": lambda d: "bkua_" + d.body(LOWER, 40),
    "circleci": lambda d: "CCIPAT_" + d.body(ALNUM, 22) + "_" + d.body(HEX, 40),
    "clickhouse": lambda d: "4b1d" + d.body(ALNUM, 38),
    "clojars": lambda d: "CLOJARS_" + d.body(LOWER, 60),
    "contentful": lambda d: "CFPAT-" + d.body(URL, 43),
    "crates-io": lambda d: "cio" + d.body(ALNUM, 32),
    "docker-org": lambda d: "dckr_oat_" + d.body(URL, 32),
    "duffel": lambda d: d.choice(["duffel_test_", "duffel_live_"]) + d.body(URL, 43),
    "figma": lambda d: "figp_" + d.body(URL, 40),
    "flutterwave": lambda d: "FLWSECK_TEST-" + d.body(HEX, 32) + "-X",
    "frameio": lambda d: "fio-u-" + d.body(URL, 64),
    "gitlab-routable": lambda d: "glpat-" + d.body(URL, 27) + ".01." + d.body(LOWER, 9),
    "gitlab-feature-flag": lambda d: "glffct-" + d.body(URL, 20),
    "grafana-legacy": lambda d: "eyJrIjoi" + d.body(ALNUM, 72),
    "harness": lambda d: (
        d.choice(["pat.", "sat."]) + d.body(URL, 22) + "." + d.body(ALNUM, 24) + "." + d.body(ALNUM, 20)
    ),
    "hubspot": lambda d: d.choice(["pat-na1-", "pat-eu1-"]) + d.uuid(),
    "intra42": lambda d: d.choice(["s-s4t2ud-", "s-s4t2af-"]) + d.body(HEX, 64),
    "langsmith": lambda d: d.choice(["lsv2_pt_", "lsv2_sk_"]) + d.body(HEX, 32) + "_" + d.body(HEX, 10),
    "mailgun": lambda d: "key-" + d.body(LOWER, 32),
    "maxmind": lambda d: d.body(ALNUM, 6) + "_" + d.body(ALNUM, 29) + "_mmk",
    "new-relic": lambda d: d.choice(["NRBR-", "NRJS-"]) + d.body(HEX, 19),
    "notion-legacy": lambda d: "secret_" + d.body(ALNUM, 43),
    "nuget": lambda d: "oy2" + d.body(LOWER, 43),
    "nvidia": lambda d: "nvapi-" + d.body(URL, 64),
    "octopus": lambda d: "API-" + d.body(UPPER, 26),
    "openshift": lambda d: "sha256~" + d.body(URL, 43),
    "pinecone": lambda d: "pcsk_" + d.body(ALNUM, 5) + "_" + d.body(ALNUM, 63),
    "posthog": lambda d: "phx_" + d.body(ALNUM, 45),
    "ramp": lambda d: "ramp_sec_" + d.body(ALNUM, 48),
    "rootly": lambda d: "rootly_" + d.body(HEX, 64),
    "settlemint": lambda d: d.choice(["sm_pat_", "sm_aat_", "sm_sat_"]) + d.body(ALNUM, 16),
    "stripe-client-secret": lambda d: "pi_" + d.body(ALNUM, 24) + "_secret_" + d.body(ALNUM, 25),
    "typeform": lambda d: "tfp_" + d.body(LOWER, 59),
    "brevo": lambda d: "xkeysib-" + d.body(URL, 81),
    "yandex": lambda d: "AQVN" + d.body(URL, 36),
    "zoho": lambda d: "1000." + d.body(HEX, 32) + "." + d.body(HEX, 32),
    "adafruit": lambda d: "aio_" + d.body(ALNUM, 28),
    "apify": lambda d: "apify_api_" + d.body(ALNUM, 36),
}


def _vendor_family() -> list[Credential]:
    draw = Draw(101)
    out = []
    for n, (kind, shape) in enumerate(VENDOR_SHAPES.items()):
        for k in range(2):
            before, after = SURROUNDINGS[(n + k) % len(SURROUNDINGS)]
            out.append(Credential(f"vendor-{kind}", before, shape(draw), after))
    return out


def _basic(draw: Draw) -> str:
    return base64.b64encode(f"{draw.word(6)}:{draw.body(ALNUM, 14)}".encode()).decode()


def _authorization_family() -> list[Credential]:
    d = Draw(202)
    return [
        Credential("auth-ssws", "Authorization: SSWS ", "00" + d.body(URL, 40), ""),
        Credential("auth-custom", "curl -H 'Authorization: ApiKey ", d.body(ALNUM, 32), "' https://api.example.com/v2"),
        Credential(
            "auth-bot", "Authorization: Bot ", d.body(URL, 24) + "." + d.body(URL, 6) + "." + d.body(URL, 38), "\n"
        ),
        Credential("auth-basic-letters", "Proxy-Authorization: Basic ", _basic(d), ""),
        Credential("auth-basic", "the header was Authorization: Basic ", _basic(d), " and it worked"),
        Credential(
            "auth-digest",
            "Authorization: Digest ",
            f'username="{d.word(5)}", realm="api", nonce="{d.body(HEX, 32)}", uri="/", response="{d.body(HEX, 32)}"',
            "\n",
        ),
        Credential(
            "auth-aws4",
            "Authorization: AWS4-HMAC-SHA256 ",
            f"Credential=AKID{d.body(UPPER, 16)}/20260101/eu-west-1/s3/aws4_request, SignedHeaders=host;x-amz-date, "
            f"Signature={d.body(HEX, 64)}",
            "",
        ),
        Credential("auth-raw", "Authorization: ", d.body(ALNUM, 40), ""),
        Credential("auth-json-token", '{"headers": {"Authorization": "Token ', d.body(ALNUM, 40), '"}}'),
        Credential("auth-custom-scheme", "authorization: Klaviyo-API-Key ", d.body(ALNUM, 36), ""),
    ]


def _key_name_family() -> list[Credential]:
    d = Draw(303)
    vendor = d.choice(["ACME", "WEATHERLY", "MAPSY", "PAYZO"])
    return [
        Credential("key-env", f"{vendor}_KEY=", d.body(ALNUM, 32), "\n"),
        Credential("key-env-export", f"export {vendor}_LICENSE_KEY=", d.body(HEX, 40), ""),
        Credential("key-lower", "maps_key: ", d.body(ALNUM, 39), ""),
        Credential("key-dash", "geo-key = ", d.body(LOWER, 32), ""),
        Credential("key-dot", "app.key=", d.body(ALNUM, 44), "\n"),
        Credential("key-camel-json", '{"weatherKey": "', d.body(LOWER, 32), '"}'),
        Credential("key-yaml", "services:\n  payments:\n    merchant_key: ", d.body(ALNUM, 28), "\n"),
        Credential("key-toml", 'signing_key = "', d.body(B64, 43) + "=", '"'),
        Credential("key-secret", f"{vendor}_SECRET=", d.body(ALNUM, 40), ""),
        Credential("key-password-dot", "spring.datasource.password=", d.body(ALNUM, 12), ""),
    ]


def _package_manager_family() -> list[Credential]:
    d = Draw(404)
    return [
        Credential("npmrc-auth", "always-auth=true\n_auth=", _basic(d), "\n"),
        Credential("npmrc-config-set", "npm config set //registry.npmjs.org/:_authToken ", d.body(ALNUM, 36), ""),
        Credential("yarnrc-ident", 'npmAuthIdent: "', f"{d.word(5)}:{d.body(ALNUM, 12)}", '"'),
        Credential("cargo-login", "cargo login ", "cio" + d.body(ALNUM, 32), ""),
        Credential("composer-github", '{"github-oauth": {"github.com": "', d.body(HEX, 40), '"}}'),
        Credential("composer-bearer", '{"bearer": {"repo.example.org": "', d.body(ALNUM, 40), '"}}'),
        Credential("nuget-config", '<add key="ClearTextPassword" value="', d.body(ALNUM, 14), '" />'),
        Credential(
            "maven-settings", "<server><id>corp</id><username>ci</username><password>", d.body(ALNUM, 14), "</password>"
        ),
        Credential("docker-login", "docker login -u ci -p ", d.body(ALNUM, 16), " registry.example.com"),
        Credential(
            "flag-password",
            "helm repo add corp https://charts.example.com --username ci --password ",
            d.body(ALNUM, 14),
            "",
        ),
        Credential("flag-token", "gh-cli-thing deploy --token ", d.body(ALNUM, 40), " --yes"),
        Credential("pip-index", "index-url = https://ci:", d.body(ALNUM, 20), "@pypi.example.com/simple"),
    ]


def _connection_family() -> list[Credential]:
    d = Draw(505)
    return [
        Credential("jdbc-oracle", "jdbc:oracle:thin:scott/", d.body(ALNUM, 12), "@db.example.com:1521:orcl"),
        Credential("sqlplus", "sqlplus system/", d.body(ALNUM, 12), "@ORCL"),
        Credential("url-any-scheme", "custom+grpc://svc:", d.body(ALNUM, 14), "@10.1.2.3:7000"),
        Credential("url-amqps", "amqps://worker:", d.body(ALNUM, 18), "@mq.example.com/vhost"),
        Credential(
            "url-mongodb-srv", "mongodb+srv://app:", d.body(ALNUM, 16), "@cluster0.example.net/db?retryWrites=true"
        ),
    ]


def _owner_token_family() -> list[Credential]:
    token = "ombo_" + secrets.token_urlsafe(32)
    return [
        Credential("owner-token", "", token, ""),
        Credential("owner-token", "curl -H 'X-Omb: ", token, "' http://127.0.0.1:8080/"),
    ]


FAMILIES: dict[str, list[Credential]] = {
    "vendor prefixes": _vendor_family(),
    "Authorization with any scheme": _authorization_family(),
    "any *_key, *_secret, *_password name": _key_name_family(),
    "package-manager auth lines": _package_manager_family(),
    "passwords in connection strings": _connection_family(),
    "the owner's serve token": _owner_token_family(),
}

FRESH_CREDENTIALS: list[Credential] = [c for family in FAMILIES.values() for c in family]


FRESH_LOOKALIKES: list[str] = [
    # --- placeholders where a key would go
    "STRIPE_KEY=YOUR_API_KEY",
    "api_key: <token>",
    "Authorization: Bearer ${TOKEN}",
    "Authorization: Bearer <token>",
    "Authorization: Basic xxx",
    "WEATHER_KEY=xxxxxxxxxxxxxxxxxxxxxxxx",
    "maps_key: changeme",
    "app.key = base64:...",
    "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    "_auth=${NPM_AUTH}",
    '<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />',
    "<password>${env.DEPLOY_PASSWORD}</password>",
    "docker login -u ci --password-stdin < token.txt",
    "pass it with --password $DB_PASSWORD or --token $GITHUB_TOKEN",
    "jdbc:oracle:thin:@db.example.com:1521:orcl",
    "postgres://app@localhost/shop",
    # --- key names that are no secret
    "sort_key: created_at, partition_key: tenant_id",
    "cache_key: user:42:profile",
    "idempotency_key: 123e4567-e89b-12d3-a456-426614174000",
    "PUBLIC_KEY=ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeExample0NotReal1PublicKey2abc",
    "publicKey: MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEFakeExample0NotReal1PublicKey2abc",
    "hotkey: Ctrl+Shift+K; monkey: george",
    "foreign_key=user_id and primary_key=id",
    "gpg_key: 3AA5C34371567BD2",
    # --- prose
    "Authorization: required for every route",
    "the Authorization header carries a Bearer token",
    "authorization: the team lead approves it",
    "preauthorization: 0 EUR hold",
    "the secret is out",
    "it's no secret that the key to success is persistence",
    "the --password flag is deprecated; use --password-file",
    "sqlplus / as sysdba",
    "the API- prefix marks Octopus keys; API-first design",
    "sha256~ is OpenShift's token prefix; key-value store; secret_santa list",
    "pi_value is 3.14159; t1.micro instances; 1000.50 EUR",
    "cargo login asks for the token; npm config set registry https://registry.npmjs.org/",
    "pat. pending; Pat. Off.; sat. and sun. are free",
    "ombo_ and ombp_ are omb-tui's token prefixes",
]
