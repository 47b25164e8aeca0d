/**
 * Every built-in rule: a stable id (never renamed: organisations store overrides by id), a label
 * shown to users, a default severity, a category and how much more specific it is than a rule
 * it may overlap (see overlap.ts). README.md in this folder documents the same table.
 */
import type { BuiltInRuleInfo, FindingSeverity, RuleCategory } from './types.js';

export interface BuiltInRuleDefinition<RuleId extends string = string> extends BuiltInRuleInfo {
  readonly rule_id: RuleId;
  /**
   * Tie-breaker between overlapping findings of equal severity: the higher number wins.
   * Provider-specific formats beat generic context rules, which beat broad shapes like URLs.
   */
  readonly specificity: number;
}

function rule<RuleId extends string>(
  rule_id: RuleId,
  label: string,
  severity: FindingSeverity,
  category: RuleCategory,
  specificity: number,
): BuiltInRuleDefinition<RuleId> {
  return { rule_id, label, severity, category, specificity };
}

/** Specificity levels, named so the ordering reads as a policy rather than magic numbers. */
const SPECIFICITY = {
  /** Whole PEM/PGP blocks: nothing else inside them matters. */
  keyBlock: 100,
  /** A vendor's own token format (prefix, length, alphabet). */
  providerFormat: 90,
  /** A URL whose host and path identify a webhook that accepts posts with no other secret. */
  webhook: 85,
  /** Credentials in a URL's userinfo. */
  urlCredentials: 80,
  /** Values identified by a vendor's variable name and exact length (AWS secret key). */
  namedFormat: 75,
  /** Self-describing structures: JWT header, crypt(3) hash prefix. */
  structure: 70,
  /**
   * National ids validated by a country's checksum and date rules: above cards, as an 18-digit
   * Chinese resident id may also pass Luhn, and the id is what the number is.
   */
  nationalId: 66,
  /** Numbers with a checksum (cards, IBAN, national ids). */
  checksummed: 65,
  /** Email addresses: a fixed shape with a domain. */
  email: 55,
  /** Authorization headers. */
  header: 50,
  /** IP addresses. */
  address: 45,
  /** Generic name = value assignments gated by entropy and placeholder lists. */
  assignment: 40,
  /** Phone numbers: validated, but the least distinctive digit shape. */
  phone: 35,
  /** Plain URLs. */
  url: 20,
} as const;

/**
 * Listed as a tuple so that its ids form the type BuiltInRuleId, which the detectors' declared
 * rule ids and everything they emit are checked against (detector.ts).
 */
export const BUILT_IN_RULE_DEFINITIONS = [
  // Personal data
  rule('pii.email', 'Email address', 'warn', 'personal_data', SPECIFICITY.email),
  rule('pii.phone', 'Phone number', 'warn', 'personal_data', SPECIFICITY.phone),
  rule('pii.payment_card', 'Payment card number', 'block', 'personal_data', SPECIFICITY.checksummed),
  rule('pii.iban', 'IBAN (bank account)', 'block', 'personal_data', SPECIFICITY.checksummed),
  rule('pii.us_ssn', 'US Social Security number', 'block', 'personal_data', SPECIFICITY.checksummed),
  rule('pii.ca_sin', 'Canadian Social Insurance number', 'block', 'personal_data', SPECIFICITY.checksummed),
  rule('pii.es_dni', 'Spanish DNI/NIE', 'block', 'personal_data', SPECIFICITY.checksummed),
  rule('pii.br_cpf', 'Brazilian CPF', 'block', 'personal_data', SPECIFICITY.checksummed),
  rule('pii.it_fiscal_code', 'Italian codice fiscale', 'block', 'personal_data', SPECIFICITY.checksummed),
  rule('pii.in_aadhaar', 'Indian Aadhaar number', 'block', 'personal_data', SPECIFICITY.checksummed),
  rule('pii.uk_nino', 'UK National Insurance number', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.de_tax_id', 'German tax identification number (IdNr)', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.fr_nir', 'French social security number (NIR)', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.pl_pesel', 'Polish PESEL', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.se_personnummer', 'Swedish personnummer', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.cn_resident_id', 'Chinese resident identity card number', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.sg_nric', 'Singapore NRIC/FIN', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.tr_tc_kimlik', 'Turkish T.C. Kimlik number', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.za_id', 'South African identity number', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.be_national_number', 'Belgian national register number', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.ch_ahv', 'Swiss AHV/AVS number', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.fi_hetu', 'Finnish personal identity code (HETU)', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.no_fodselsnummer', 'Norwegian fødselsnummer', 'block', 'personal_data', SPECIFICITY.nationalId),
  rule('pii.national_id', 'National or tax identification number (by column)', 'block', 'personal_data', SPECIFICITY.checksummed),
  rule('pii.ip_address', 'IP address', 'info', 'personal_data', SPECIFICITY.address),
  rule('pii.url', 'URL', 'info', 'personal_data', SPECIFICITY.url),
  // Secrets with a structure of their own
  rule('secret.private_key', 'Private key block', 'block', 'secret', SPECIFICITY.keyBlock),
  rule('secret.jwt', 'JSON Web Token', 'block', 'secret', SPECIFICITY.structure),
  rule('secret.url_credentials', 'Credentials in URL', 'block', 'secret', SPECIFICITY.urlCredentials),
  rule('secret.webhook_url', 'Incoming webhook URL', 'block', 'secret', SPECIFICITY.webhook),
  rule('secret.password_hash', 'Password hash', 'warn', 'secret', SPECIFICITY.structure),
  // Provider keys and tokens
  rule('secret.aws_access_key_id', 'AWS access key ID', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.aws_secret_access_key', 'AWS secret access key', 'block', 'secret', SPECIFICITY.namedFormat),
  rule('secret.github_token', 'GitHub token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.gitlab_token', 'GitLab token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.slack_token', 'Slack token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.stripe_secret_key', 'Stripe secret key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.openai_api_key', 'OpenAI API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.anthropic_api_key', 'Anthropic API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.google_api_key', 'Google API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.google_oauth', 'Google OAuth client secret or token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.azure_storage_key', 'Azure storage or shared access key', 'block', 'secret', SPECIFICITY.namedFormat),
  rule('secret.azure_client_secret', 'Azure AD client secret', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.azure_devops_pat', 'Azure DevOps personal access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.azure_identifier', 'Azure tenant or client ID', 'info', 'secret', SPECIFICITY.namedFormat),
  rule('secret.twilio_api_key', 'Twilio API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.sendgrid_api_key', 'SendGrid API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.npm_token', 'npm access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.pypi_token', 'PyPI API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.huggingface_token', 'Hugging Face token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.databricks_token', 'Databricks token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.docker_token', 'Docker Hub personal access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.figma_token', 'Figma personal access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.grafana_token', 'Grafana token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.groq_api_key', 'Groq API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.hashicorp_vault_token', 'HashiCorp Vault token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.linear_api_key', 'Linear API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.notion_token', 'Notion integration token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.onepassword_token', '1Password service account token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.shopify_token', 'Shopify token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.tailscale_key', 'Tailscale key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.vercel_token', 'Vercel token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.cloudflare_token', 'Cloudflare API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.digitalocean_token', 'DigitalOcean token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.telegram_bot_token', 'Telegram bot token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.mailgun_api_key', 'Mailgun API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.mailchimp_api_key', 'Mailchimp API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.square_token', 'Square token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.postman_api_key', 'Postman API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.new_relic_key', 'New Relic key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.sentry_token', 'Sentry token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.age_secret_key', 'age secret key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.rubygems_api_key', 'RubyGems API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.dropbox_token', 'Dropbox access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.mapbox_secret_token', 'Mapbox secret token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.sourcegraph_token', 'Sourcegraph access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.sonarqube_token', 'SonarQube token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.mapbox_public_token', 'Mapbox public access token', 'warn', 'secret', SPECIFICITY.providerFormat),
  rule('secret.salesforce_access_token', 'Salesforce access token or session id', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.truenas_api_key', 'TrueNAS API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.doppler_token', 'Doppler token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.dynatrace_token', 'Dynatrace token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.replicate_token', 'Replicate API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.nvidia_api_key', 'NVIDIA API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.posthog_api_key', 'PostHog personal API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.readme_api_key', 'ReadMe API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.jina_api_key', 'Jina AI API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.stackhawk_api_key', 'StackHawk API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.atlassian_api_token', 'Atlassian API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.dependency_track_key', 'Dependency-Track API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.alibaba_access_key', 'Alibaba Cloud access key ID', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.easypost_api_key', 'EasyPost API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.circleci_token', 'CircleCI token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.brevo_api_key', 'Brevo (Sendinblue) API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.planetscale_token', 'PlanetScale token or password', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.bitbucket_app_password', 'Bitbucket app password', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.nuget_api_key', 'NuGet API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.pulumi_token', 'Pulumi access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.typeform_token', 'Typeform personal token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.flutterwave_key', 'Flutterwave secret key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.segment_token', 'Segment public API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.xai_api_key', 'xAI API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.hubspot_token', 'HubSpot private app token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.prefect_api_key', 'Prefect API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.flexport_token', 'Flexport API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.mongodb_atlas_key', 'MongoDB Atlas service account secret', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.teamwork_token', 'Teamwork API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.terraform_token', 'Terraform Cloud / Vagrant Cloud token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.clickup_token', 'ClickUp personal token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.ionic_token', 'Ionic personal access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.pagarme_api_key', 'Pagar.me API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.frameio_token', 'Frame.io developer token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.maxmind_license_key', 'MaxMind license key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.zoho_token', 'Zoho OAuth token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.shippo_token', 'Shippo API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.tavily_api_key', 'Tavily API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.buildkite_token', 'Buildkite API access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.supabase_token', 'Supabase personal access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.contentful_token', 'Contentful personal access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.twitch_stream_key', 'Twitch stream key', 'block', 'secret', SPECIFICITY.providerFormat),
  // Publish and subscribe keys ship in client apps (PubNub's keyset docs), like Mapbox public
  // tokens: worth a warning, not a block; the keyset's secret key is what must stay server-side.
  rule('secret.pubnub_key', 'PubNub publish or subscribe key', 'warn', 'secret', SPECIFICITY.providerFormat),
  rule('secret.ubidots_token', 'Ubidots token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.nightfall_api_key', 'Nightfall API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.voiceflow_api_key', 'Voiceflow API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.elevenlabs_api_key', 'ElevenLabs API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.cratesio_api_token', 'crates.io API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.django_secret_key', 'Django secret key', 'block', 'secret', SPECIFICITY.providerFormat),
  // Added for parity with gitleaks' default rules (bench/gitleaks-parity.md)
  rule('secret.onepassword_secret_key', '1Password account Secret Key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.adobe_client_secret', 'Adobe client secret', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.jfrog_token', 'JFrog Artifactory API key or reference token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.authress_access_key', 'Authress service client access key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.clickhouse_api_secret', 'ClickHouse Cloud API secret key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.clojars_token', 'Clojars deploy token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.cloudflare_origin_ca_key', 'Cloudflare Origin CA key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.defined_networking_token', 'Defined Networking API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.duffel_token', 'Duffel API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.facebook_access_token', 'Facebook page access token', 'block', 'secret', SPECIFICITY.providerFormat),
  // Public keys go into checkout pages (Flutterwave's docs), like Mapbox public tokens: a warning.
  rule('secret.flutterwave_public_key', 'Flutterwave public key', 'warn', 'secret', SPECIFICITY.providerFormat),
  rule('secret.flyio_token', 'Fly.io access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.gitlab_session_cookie', 'GitLab session cookie', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.harness_token', 'Harness access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.heroku_api_key', 'Heroku API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.infracost_token', 'Infracost API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.intra42_client_secret', '42 Intra client secret', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.octopus_deploy_api_key', 'Octopus Deploy API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.openshift_token', 'OpenShift user token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.perplexity_api_key', 'Perplexity API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.plaid_access_token', 'Plaid access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.scalingo_token', 'Scalingo API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.settlemint_token', 'SettleMint access token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.sidekiq_secret', 'Sidekiq Pro/Enterprise credentials', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.yandex_api_key', 'Yandex Cloud API key', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.yandex_iam_token', 'Yandex Cloud IAM token', 'block', 'secret', SPECIFICITY.providerFormat),
  // The public validation key was meant for browser code but spends the account's quota: a warning.
  rule('secret.mailgun_public_key', 'Mailgun public validation key', 'warn', 'secret', SPECIFICITY.providerFormat),
  rule('secret.okta_api_token', 'Okta API token', 'block', 'secret', SPECIFICITY.providerFormat),
  rule('secret.hashicorp_vault_unseal_key', 'HashiCorp Vault unseal key', 'block', 'secret', SPECIFICITY.namedFormat),
  rule('secret.npmrc_auth', 'npm registry credential (.npmrc)', 'block', 'secret', SPECIFICITY.namedFormat),
  rule('secret.hex_private_key', 'Hex-encoded private key', 'block', 'secret', SPECIFICITY.namedFormat),
  // Context rules
  rule('secret.bearer_token', 'Bearer or Basic authorization credential', 'block', 'secret', SPECIFICITY.header),
  rule('secret.docker_auth', 'Container registry credential (docker auth)', 'block', 'secret', SPECIFICITY.namedFormat),
  rule('secret.password_assignment', 'Password in assignment', 'block', 'secret', SPECIFICITY.assignment),
  rule('secret.generic_secret', 'Secret, token or API key in assignment', 'block', 'secret', SPECIFICITY.assignment),
] as const;

/** The id of a built-in rule: only these may be declared or emitted by a detector. */
export type BuiltInRuleId = (typeof BUILT_IN_RULE_DEFINITIONS)[number]['rule_id'];

export const BUILT_IN_RULES: readonly BuiltInRuleInfo[] = BUILT_IN_RULE_DEFINITIONS.map(({ rule_id, label, severity, category }) => ({
  rule_id,
  label,
  severity,
  category,
}));

const DEFINITIONS_BY_ID = new Map<string, BuiltInRuleDefinition<BuiltInRuleId>>(
  BUILT_IN_RULE_DEFINITIONS.map((definition) => [definition.rule_id, definition]),
);

export function builtInRuleDefinition(ruleId: string): BuiltInRuleDefinition<BuiltInRuleId> | undefined {
  return DEFINITIONS_BY_ID.get(ruleId);
}

export function isBuiltInRuleId(ruleId: string): ruleId is BuiltInRuleId {
  return DEFINITIONS_BY_ID.has(ruleId);
}
