/**
 * Vendor keys and tokens recognised by their own format: a literal prefix (the prefilter's
 * keyword), then a fixed alphabet and length. The format is specific enough that no entropy gate
 * applies: a string in that exact format cannot be told apart from a live key at scan time.
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import type { BuiltInRuleId } from '../rule-catalog.js';
import { hasIdenticalRun, isPlaceholderValue, looksGenerated } from '../validators.js';
import { codeAt, isAsciiAlphanumeric, isAsciiDigit, isAsciiLetter } from './text-boundaries.js';

/** What may not precede a token: a letter (`xsk_live_...` is not a Stripe key) or any alphanumeric. */
type LeftBoundary = 'letter' | 'alphanumeric';

interface TokenFormat<RuleId extends BuiltInRuleId = BuiltInRuleId> {
  readonly ruleId: RuleId;
  /** Case-sensitive keywords; the match starts at the keyword unless `lookback` says otherwise. */
  readonly prefixes: readonly string[];
  /** Sticky pattern for the whole token, ending with a lookahead that stops glued characters. */
  readonly pattern: RegExp;
  readonly leftBoundary: LeftBoundary;
  /**
   * For formats whose distinctive part is in the middle (Azure AD secrets contain `Q~` after four
   * characters): how far before the keyword the token starts and which characters it may span.
   */
  readonly lookback?: { readonly maxCharacters: number; readonly characters: RegExp };
  readonly validate?: (token: string) => boolean;
  /**
   * False for prefixes other formats also start with (`live_` of Twitch stream keys is also
   * GoCardless's, `EAAA` also starts some Facebook tokens): such a prefix does not take a value
   * away from the generic assignment rules (see OWNING_PREFIXES).
   */
  readonly ownsPrefix?: boolean;
  /**
   * For formats found by a variable name (`BUNDLE_GEMS__CONTRIBSYS__COM=...`) or a cookie name:
   * the pattern has the `d` flag and the finding (and `validate`) covers capture group 1, the
   * value, not the name before it.
   */
  readonly valueGroup?: boolean;
  /**
   * The prefixes are lower-case words the assignment rules already give the prefilter ("access",
   * "auth"), matched in any case: they add nothing to its RE2 pass, whose speed falls off a cliff
   * when its alternation grows by a few dozen keywords (measured: bench/sanitiser-bench-notes.md).
   */
  readonly sharedKeyword?: boolean;
}

function format<RuleId extends BuiltInRuleId>(
  ruleId: RuleId,
  prefixes: readonly string[],
  pattern: RegExp,
  leftBoundary: LeftBoundary = 'alphanumeric',
  extra: Pick<TokenFormat, 'lookback' | 'validate' | 'ownsPrefix' | 'valueGroup' | 'sharedKeyword'> = {},
): TokenFormat<RuleId> {
  return { ruleId, prefixes, pattern, leftBoundary, ...extra };
}

const hasDigit = (token: string): boolean => /\d/.test(token);

/**
 * Gate for the formats added from scanners' published rules (validators.ts, looksGenerated).
 * `bodyStart` skips the literal prefix, whose letters say nothing about the random part.
 */
function generatedBody(bodyStart: number): (token: string) => boolean {
  return (token) => looksGenerated(token.slice(bodyStart));
}

/**
 * Stripe keys (prefix `sk_live_` and the like, 8 characters). A body shorter than a key is a
 * cut-off key only when it looks generated: base62 with upper case, lower case and a digit (a
 * random 10-character one has all three 80 % of the time), and no placeholder word
 * (`sk_test_example123`, `sk_live_YourKey123`).
 */
function stripeBody(token: string): boolean {
  const body = token.slice(8);
  if (body.length >= 24) return true;
  return looksGenerated(body) && /[a-z]/.test(body) && /[A-Z]/.test(body) && !isPlaceholderValue(body);
}

/**
 * Gate for bodies of 16-20 characters, where a generated base62 body lacks a digit too often to
 * require one ((52/62)^16 is 6 %): a letter (all digits has probability below 10^-12) and no long
 * identical run.
 */
function generatedShortBody(bodyStart: number): (token: string) => boolean {
  return (token) => {
    const body = token.slice(bodyStart);
    return /[A-Za-z]/.test(body) && !hasIdenticalRun(body);
  };
}

/**
 * A base64-encoded JWT (Kubernetes service-account tokens in `data:`, CI variables): the decoded
 * text is header.payload... and the header is JSON naming `alg`, `typ` or `enc`, as the JWT rule
 * requires of a plain one.
 */
function isBase64EncodedJwt(token: string): boolean {
  const decoded = Buffer.from(token, 'base64').toString('latin1');
  const shape = /^(eyJ[A-Za-z0-9_-]{10,})\.[A-Za-z0-9_-]{2,}/.exec(decoded);
  if (shape === null) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(shape[1] ?? '', 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && ('alg' in header || 'typ' in header || 'enc' in header);
  } catch {
    return false;
  }
}

/** Random base62 of 38 characters is all hex with probability (22/62)^38 < 10^-17: hex is a digest. */
const hasNonHexLetter = (body: string): boolean => /[g-zG-Z]/.test(body);

export const TOKEN_FORMATS = [
  format('secret.aws_access_key_id', ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'], /(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])/y),
  format('secret.github_token', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], /gh[pousr]_(?:[A-Za-z0-9]{36}(?![A-Za-z0-9])|[0-9]+_[A-Za-z0-9_\-.]{30,})/y),
  // Refresh tokens of GitHub Apps with expiring user tokens: "ghr_" + 76 alphanumerics, as in the
  // token response GitHub documents ("Generating a user access token for a GitHub App").
  format('secret.github_token', ['ghr_'], /ghr_[A-Za-z0-9]{76}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(4) }),
  format('secret.github_token', ['github_pat_'], /github_pat_[A-Za-z0-9_]{22,}(?![A-Za-z0-9_])/y),
  format(
    'secret.gitlab_token',
    ['glpat-', 'gldt-', 'glrt-', 'glcbt-', 'glptt-', 'glsoat-', 'glffct-', 'glft-', 'gloas-', 'glimt-', 'glagent-', 'GR1348941'],
    /(?:(?:glpat|gldt|glrt|glcbt|glptt|glsoat|glffct|glft|gloas|glimt|glagent)-|GR1348941)[A-Za-z0-9_\-.]{20,}(?![A-Za-z0-9_-])/y,
    'letter',
  ),
  format(
    'secret.slack_token',
    ['xoxa-', 'xoxb-', 'xoxo-', 'xoxp-', 'xoxr-', 'xoxs-', 'xoxe-', 'xoxe.'],
    /xox[abeoprs](?:\.xox[a-z])?-[0-9A-Za-z-]{10,}(?![0-9A-Za-z-])/y,
    'alphanumeric',
    { validate: hasDigit },
  ),
  format('secret.slack_token', ['xapp-'], /xapp-\d-[A-Za-z0-9-]{10,}(?![A-Za-z0-9-])/y),
  // Stripe publishes no minimum length; keys are 24 characters or (newer) about 100 after the
  // prefix. 10 is gitleaks' stripe-access-token minimum: a cut-off live key is still a leak, but
  // a body shorter than a key must look generated (stripeBody).
  format('secret.stripe_secret_key', ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'], /[sr]k_(?:live|test)_[A-Za-z0-9]{10,}(?![A-Za-z0-9])/y, 'alphanumeric', {
    validate: stripeBody,
  }),
  // "sk_prod_" / "rk_prod_" as in gitleaks' stripe-access-token; "sk_prod_" is found through the
  // "sk_" keyword ElevenLabs keys already need (see sharedKeyword on the prefilter's budget).
  format('secret.stripe_secret_key', ['sk_', 'rk_prod_'], /[sr]k_prod_[A-Za-z0-9]{10,}(?![A-Za-z0-9])/y, 'alphanumeric', {
    validate: stripeBody,
    ownsPrefix: false,
  }),
  format('secret.stripe_secret_key', ['whsec_'], /whsec_[A-Za-z0-9+/=]{32,}(?![A-Za-z0-9+/=])/y),
  // OpenAI keys embed "T3BlbkFJ" (base64 of "OpenAI"); a sk- string without it is not one.
  // The run before the T3BlbkFJ marker is bounded (keys have it well within 200 characters):
  // unbounded, a failed attempt scanned to the end of the run, and a text of "sk-" repeated
  // cost quadratic time (regression; figures in bench/sanitiser-bench-notes.md).
  format('secret.openai_api_key', ['sk-'], /sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{10,200}T3BlbkFJ[A-Za-z0-9_-]{10,}(?![A-Za-z0-9_-])/y),
  format('secret.anthropic_api_key', ['sk-ant-'], /sk-ant-(?:api|admin|oat|sid)\d\d-[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/y),
  format('secret.google_api_key', ['AIza'], /AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/y),
  format('secret.google_oauth', ['GOCSPX-'], /GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/y),
  format('secret.google_oauth', ['ya29.'], /ya29\.[0-9A-Za-z_-]{30,}/y),
  format('secret.azure_client_secret', ['Q~'], /[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/y, 'alphanumeric', {
    lookback: { maxCharacters: 4, characters: /[A-Za-z0-9_~.-]/ },
  }),
  format('secret.azure_devops_pat', ['AZDO'], /[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}(?![A-Za-z0-9])/y, 'alphanumeric', {
    lookback: { maxCharacters: 76, characters: /[A-Za-z0-9]/ },
  }),
  format('secret.twilio_api_key', ['SK'], /SK[0-9a-fA-F]{32}(?![0-9A-Za-z])/y, 'alphanumeric', {
    validate: (token) => /\d/.test(token) && /[a-f]/i.test(token.slice(2)),
  }),
  format('secret.sendgrid_api_key', ['SG.'], /SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y),
  format('secret.npm_token', ['npm_'], /npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/y),
  format('secret.pypi_token', ['pypi-AgE'], /pypi-AgE[A-Za-z0-9_-]{50,}/y),
  format('secret.huggingface_token', ['hf_', 'api_org_'], /(?:hf_|api_org_)[A-Za-z]{34}(?![A-Za-z0-9_])/y, 'letter'),
  format('secret.databricks_token', ['dapi'], /dapi[0-9a-fA-F]{32}(?:-\d)?(?![0-9A-Za-z])/y, 'letter'),
  format('secret.docker_token', ['dckr_pat_', 'dckr_oat_'], /dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}/y),
  format('secret.figma_token', ['figd_', 'figo_', 'figr_'], /fig[dor]_[A-Za-z0-9_-]{40,}/y),
  format('secret.grafana_token', ['glc_'], /glc_[A-Za-z0-9+/]{32,}={0,2}/y),
  format('secret.grafana_token', ['glsa_'], /glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![A-Za-z0-9])/y),
  // Grafana API keys are base64 of {"k":"...","n":"...","id":N}.
  format('secret.grafana_token', ['eyJrIjoi'], /eyJrIjoi[A-Za-z0-9+/]{40,}={0,2}/y),
  format('secret.groq_api_key', ['gsk_'], /gsk_[A-Za-z0-9]{52}(?![A-Za-z0-9])/y, 'letter'),
  // Vault 1.10+ tokens: hvs./hvb./hvr. and at least 90 characters (shorter ones are truncated examples).
  format('secret.hashicorp_vault_token', ['hvs.', 'hvb.', 'hvr.'], /hv[sbr]\.[A-Za-z0-9_-]{80,}/y, 'letter'),
  format('secret.linear_api_key', ['lin_api_', 'lin_oauth_'], /lin_(?:api|oauth)_[A-Za-z0-9]{40,}(?![A-Za-z0-9])/y),
  format('secret.notion_token', ['ntn_'], /ntn_\d{11}[A-Za-z0-9]{35}(?![A-Za-z0-9])/y, 'letter'),
  // Notion's older integration tokens: "secret_" and 43 alphanumerics.
  format('secret.notion_token', ['secret_'], /secret_[A-Za-z0-9]{43}(?![A-Za-z0-9_])/y, 'letter', { validate: hasDigit }),
  format('secret.onepassword_token', ['ops_eyJ'], /ops_eyJ[A-Za-z0-9+/=_-]{100,}/y),
  format('secret.shopify_token', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], /shp(?:at|ca|pa|ss)_[A-Za-z0-9]{32,}(?![A-Za-z0-9])/y),
  format('secret.tailscale_key', ['tskey-'], /tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{10,}(?![A-Za-z0-9])/y, 'letter'),
  format('secret.vercel_token', ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'], /vc[pciark]_[A-Za-z0-9]{24,}(?![A-Za-z0-9])/y),
  format('secret.cloudflare_token', ['cfat_', 'cfut_', 'cfk_'], /cf(?:at|ut|k)_[A-Za-z0-9]{48}(?![A-Za-z0-9])/y),
  format('secret.digitalocean_token', ['dop_v1_', 'doo_v1_', 'dor_v1_'], /do[opr]_v1_[a-f0-9]{64}(?![a-f0-9])/y),
  format('secret.telegram_bot_token', [':AA'], /\d{8,10}:AA[A-Za-z0-9_-]{32,34}(?![A-Za-z0-9_-])/y, 'alphanumeric', {
    lookback: { maxCharacters: 10, characters: /\d/ },
  }),
  format('secret.mailgun_api_key', ['key-'], /key-[0-9a-f]{32}(?![0-9A-Za-z])/y),
  format('secret.mailchimp_api_key', ['-us'], /[0-9a-f]{32}-us\d{1,2}(?![0-9A-Za-z])/y, 'alphanumeric', {
    lookback: { maxCharacters: 32, characters: /[0-9a-f]/ },
  }),
  format('secret.square_token', ['sq0atp-', 'sq0csp-', 'sq0idp-'], /sq0(?:atp|csp|idp)-[0-9A-Za-z_-]{22,43}(?![0-9A-Za-z_-])/y),
  // Square access tokens since 2020: "EAAA" and 64 characters in all (Square's ObtainToken
  // reference: "OAuth access tokens are 64 bytes long"; alphabet as in gitleaks' square-access-token
  // and trufflehog's square detector). Facebook tokens may also begin EAAA but run past 100
  // characters, so the exact length and right boundary keep them out.
  format('secret.square_token', ['EAAA'], /EAAA[A-Za-z0-9_+=-]{60}(?![A-Za-z0-9_+=-])/y, 'alphanumeric', { validate: generatedBody(4), ownsPrefix: false }),
  format('secret.postman_api_key', ['PMAK-'], /PMAK-[a-f0-9]{24}-[a-f0-9]{34}/y),
  format('secret.new_relic_key', ['NRAK-', 'NRJS-', 'NRII-'], /NR(?:AK|JS|II)-[A-Za-z0-9-]{19,40}/y),
  // New Relic's other key types (docs.newrelic.com, "New Relic API keys"; lengths and alphabets as
  // in Nosey Parker's newrelic.yml): admin keys NRAA- + 27 hex, REST API keys NRRA- + 42 hex,
  // Insights insert and query keys NRII-/NRIQ- + 32 of [A-Za-z0-9_-] (insert keys contain '_').
  format('secret.new_relic_key', ['NRAA-'], /NRAA-[a-f0-9]{27}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(5) }),
  format('secret.new_relic_key', ['NRRA-'], /NRRA-[a-f0-9]{42}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(5) }),
  format('secret.new_relic_key', ['NRII-', 'NRIQ-'], /NRI[IQ]-[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])/y, 'alphanumeric', { validate: generatedBody(5) }),
  // License (ingest) keys: 40 characters ending in "NRAL"; the first six may carry a region
  // ("eu01xx"), the rest is hex.
  format('secret.new_relic_key', ['NRAL'], /[a-z0-9]{6}[a-f0-9]{30}NRAL(?![A-Za-z0-9])/y, 'alphanumeric', {
    lookback: { maxCharacters: 36, characters: /[a-z0-9]/ },
    validate: generatedBody(0),
  }),
  format('secret.sentry_token', ['sntrys_', 'sntryu_'], /sntry[su]_[A-Za-z0-9+/=_-]{40,}/y),
  format('secret.age_secret_key', ['AGE-SECRET-KEY-1'], /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/y),
  format('secret.rubygems_api_key', ['rubygems_'], /rubygems_[a-f0-9]{48}(?![a-f0-9])/y),
  format('secret.dropbox_token', ['sl.'], /sl\.[A-Za-z0-9_-]{60,}/y),
  format('secret.mapbox_secret_token', ['sk.eyJ', 'tk.eyJ'], /[st]k\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{20,}/y),
  // Mapbox public tokens: "pk." and a JWT-like body whose payload starts {"u":" (the account name).
  format('secret.mapbox_public_token', ['pk.eyJ1Ijoi'], /pk\.eyJ1Ijoi[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/y),
  // Salesforce access tokens and session ids: the 15-character org id (always "00D"...), "!", a secret.
  format('secret.salesforce_access_token', ['00D'], /00D[A-Za-z0-9]{12}![A-Za-z0-9._]{80,120}(?![A-Za-z0-9._])/y, 'alphanumeric', {
    validate: (token) => !/EXAMPLE/i.test(token),
  }),
  format('secret.sourcegraph_token', ['sgp_'], /sgp_(?:[A-Fa-f0-9]{16}_|local_)?[A-Fa-f0-9]{40,64}(?![A-Za-z0-9])/y),
  format('secret.segment_token', ['sgp_'], /sgp_[A-Za-z0-9]{64}(?![A-Za-z0-9])/y),
  format('secret.sonarqube_token', ['squ_', 'sqp_', 'sqa_'], /sq[upa]_[a-f0-9]{40}(?![a-f0-9])/y),
  // Service tokens may carry their config's name: "dp.st.prd.<secret>" (Doppler's "Service Tokens"
  // page); config names are lower-case letters, digits, "_" and "-".
  format(
    'secret.doppler_token',
    ['dp.pt.', 'dp.st.', 'dp.sa.', 'dp.ct.', 'dp.scim.', 'dp.audit.'],
    /dp\.(?:pt|st(?:\.[a-z0-9_-]{1,64})?|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}/y,
  ),
  format('secret.dynatrace_token', ['dt0c01.'], /dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}/y),
  format('secret.replicate_token', ['r8_'], /r8_[A-Za-z0-9]{30,45}(?![A-Za-z0-9])/y),
  format('secret.nvidia_api_key', ['nvapi-'], /nvapi-[A-Za-z0-9_-]{60,70}(?![A-Za-z0-9_-])/y),
  format('secret.posthog_api_key', ['phx_'], /phx_[A-Za-z0-9_]{40,}/y),
  format('secret.readme_api_key', ['rdme_'], /rdme_[a-z0-9]{70}(?![a-z0-9])/y),
  format('secret.jina_api_key', ['jina_'], /jina_[A-Za-z0-9]{60}(?![A-Za-z0-9])/y),
  format('secret.stackhawk_api_key', ['hawk.'], /hawk\.[0-9A-Za-z_-]{20}\.[0-9A-Za-z_-]{20}/y),
  format('secret.atlassian_api_token', ['ATATT3', 'ATCTT3'], /AT[AC]TT3[A-Za-z0-9_=-]{150,}/y),
  format('secret.dependency_track_key', ['odt_'], /odt_[A-Za-z0-9]{32,}(?![A-Za-z0-9])/y),
  format('secret.alibaba_access_key', ['LTAI'], /LTAI[A-Za-z0-9]{12,20}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: hasDigit }),
  format('secret.easypost_api_key', ['EZAK', 'EZTK'], /EZ[AT]K[A-Za-z0-9]{54}(?![A-Za-z0-9])/y),
  format('secret.circleci_token', ['CCIPAT_', 'CCIPRJ_'], /CCIP(?:AT|RJ)_[A-Za-z0-9_]{30,}/y),
  format('secret.brevo_api_key', ['xkeysib-', 'xsmtpsib-'], /x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}/y),
  format('secret.planetscale_token', ['pscale_tkn_', 'pscale_pw_', 'pscale_oauth_'], /pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}/y),
  format('secret.bitbucket_app_password', ['ATBB'], /ATBB[A-Za-z0-9_=.-]{32}(?![A-Za-z0-9])/y),
  format('secret.nuget_api_key', ['oy2'], /oy2[a-z0-9]{43}(?![a-z0-9])/y),
  format('secret.pulumi_token', ['pul-'], /pul-[a-f0-9]{40}(?![a-f0-9])/y),
  format('secret.typeform_token', ['tfp_'], /tfp_[A-Za-z0-9_.=-]{40,59}(?![A-Za-z0-9])/y),
  format('secret.flutterwave_key', ['FLWSECK-', 'FLWSECK_TEST-'], /FLWSECK(?:_TEST)?-[a-h0-9]{12,32}-X/y),
  // Encryption keys: "FLWSECK_TEST-" + 12 characters, no "-X" (gitleaks flutterwave-encryption-key).
  format('secret.flutterwave_key', ['FLWSECK_TEST-'], /FLWSECK_TEST-[a-h0-9]{12}(?![A-Za-z0-9-])/y, 'alphanumeric', { validate: generatedShortBody(13) }),
  format('secret.xai_api_key', ['xai-'], /xai-[A-Za-z0-9_]{70,90}(?![A-Za-z0-9_])/y),
  format('secret.hubspot_token', ['pat-na1-', 'pat-eu1-'], /pat-(?:na|eu)1-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/y),
  format('secret.prefect_api_key', ['pnu_'], /pnu_[A-Za-z0-9]{36}(?![A-Za-z0-9])/y),
  format('secret.flexport_token', ['shltm_'], /shltm_[A-Za-z0-9_-]{40}(?![A-Za-z0-9_-])/y),
  format('secret.mongodb_atlas_key', ['mdb_sa_sk_'], /mdb_sa_sk_[A-Za-z0-9_-]{40}(?![A-Za-z0-9_-])/y),
  format('secret.teamwork_token', ['tkn.v1_'], /tkn\.v1_[A-Za-z0-9+/_-]{40,}={0,2}/y),
  format('secret.terraform_token', ['.atlasv1.'], /[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])/y, 'alphanumeric', {
    lookback: { maxCharacters: 14, characters: /[A-Za-z0-9]/ },
  }),
  format('secret.clickup_token', ['pk_'], /pk_\d{5,10}_[A-Z0-9]{32}(?![A-Za-z0-9])/y),
  format('secret.ionic_token', ['ion_'], /ion_[A-Za-z0-9]{42}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: hasDigit }),
  format('secret.pagarme_api_key', ['ak_live_', 'ak_test_'], /ak_(?:live|test)_[A-Za-z0-9]{30}(?![A-Za-z0-9])/y),
  format('secret.sourcegraph_token', ['slk_'], /slk_[a-f0-9]{64}(?![a-f0-9])/y),
  format('secret.frameio_token', ['fio-u-'], /fio-u-[A-Za-z0-9_-]{64}(?![A-Za-z0-9_-])/y),
  format('secret.maxmind_license_key', ['_mmk'], /[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk(?![A-Za-z0-9])/y, 'alphanumeric', {
    lookback: { maxCharacters: 36, characters: /[A-Za-z0-9_]/ },
  }),
  format('secret.shippo_token', ['shippo_live_', 'shippo_test_'], /shippo_(?:live|test)_[a-fA-F0-9]{40}(?![A-Za-z0-9])/y),
  // Formats below come from scanners' published rules (trufflehog's detectors, Nosey Parker's and
  // Kingfisher's rule files, gitleaks' config) and the vendors' own documentation, as named.
  // Tavily: "tvly-", an optional environment tier, 32 alphanumerics (docs.tavily.com;
  // trufflehog tavily.go, Nosey Parker tavily.yml).
  format('secret.tavily_api_key', ['tvly-'], /tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}(?![A-Za-z0-9])/y, 'alphanumeric', {
    validate: (token) => generatedBody(token.length - 32)(token),
  }),
  // Buildkite API access tokens: "bkua_" + 40 lower-case alphanumerics (trufflehog buildkite v2).
  format('secret.buildkite_token', ['bkua_'], /bkua_[a-z0-9]{40}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(5) }),
  // Supabase personal access tokens: "sbp_" + 40 lower-case alphanumerics (trufflehog supabasetoken).
  format('secret.supabase_token', ['sbp_'], /sbp_[a-z0-9]{40}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(4) }),
  // Contentful personal access tokens (Content Management API): "CFPAT-" + 43 base64url
  // characters (Contentful's CMA docs; Kingfisher contentful.yml).
  format('secret.contentful_token', ['CFPAT-'], /CFPAT-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y, 'alphanumeric', { validate: generatedBody(6) }),
  // Twitch stream keys: "live_", the channel's numeric id, "_", 30-36 alphanumerics (Twitch's
  // stream key FAQ; Nosey Parker twitch.yml). GoCardless live tokens also start "live_".
  format('secret.twitch_stream_key', ['live_'], /live_\d{8,12}_[A-Za-z0-9]{30,36}(?![A-Za-z0-9])/y, 'alphanumeric', {
    validate: (token) => generatedBody(token.lastIndexOf('_') + 1)(token),
    ownsPrefix: false,
  }),
  // PubNub publish and subscribe keys: "pub-c-" / "sub-c-" and a UUID (PubNub's keyset docs;
  // trufflehog pubnubpublishkey). UUIDs are hex (RFC 4122).
  format('secret.pubnub_key', ['pub-c-', 'sub-c-'], /[ps]ub-c-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![A-Za-z0-9-])/y, 'alphanumeric', {
    validate: generatedBody(6),
  }),
  // Ubidots tokens: "BBFF-" + 30 alphanumerics (trufflehog ubidots).
  format('secret.ubidots_token', ['BBFF-'], /BBFF-[A-Za-z0-9]{30}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(5) }),
  // Nightfall API keys: "NF-" + 32 alphanumerics (trufflehog nightfall).
  format('secret.nightfall_api_key', ['NF-'], /NF-[A-Za-z0-9]{32}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(3) }),
  // Voiceflow API keys: "VF.", an optional "DM." / "WS." scope, a 24-hex object id, ".", 16
  // alphanumerics (Voiceflow's API key docs; Kingfisher voiceflow.yml).
  format('secret.voiceflow_api_key', ['VF.'], /VF\.(?:(?:DM|WS)\.)?[a-fA-F0-9]{24}\.[A-Za-z0-9]{16}(?![A-Za-z0-9])/y, 'alphanumeric', {
    // The object id is the random-looking part to gate; the 16-character tail may lack a digit.
    validate: (token) => generatedBody(0)(token.slice(token.length - 41, token.length - 17)) && !hasIdenticalRun(token),
  }),
  // ElevenLabs API keys: "sk_" + 48 hex digits (trufflehog elevenlabs v2, Kingfisher elevenlabs.yml).
  // Stripe's "sk_live_" / "sk_test_" cannot match: "l" and "t" are not hex.
  format('secret.elevenlabs_api_key', ['sk_'], /sk_[a-f0-9]{48}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(3) }),
  // crates.io API tokens: "cio" + 32 alphanumerics (crates.io src/util/token.rs; Nosey Parker
  // crates.io.yml).
  format('secret.cratesio_api_token', ['cio'], /cio[A-Za-z0-9]{32}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(3) }),
  // Keys written by `django-admin startproject`: "django-insecure-" + get_random_secret_key(),
  // 50 characters of a-z, 0-9 and !@#$%^&*(-_=+) (django/core/management/utils.py).
  format('secret.django_secret_key', ['django-insecure-'], /django-insecure-[a-z0-9!@#$%^&*(\-_=+)]{50}(?![a-z0-9!@#$%^&*(\-_=+)])/y, 'alphanumeric', {
    validate: (token) => !hasIdenticalRun(token),
  }),
  // Formats below close the gap with gitleaks' default rules (config/gitleaks.toml; the rule id is
  // named in each comment; bench/gitleaks-parity.md lists every gitleaks rule and how Porch treats
  // it). Prefixes that are short or could start other data own nothing (ownsPrefix: false).
  // 1password-secret-key: the account Secret Key, "A3-" and five or six groups of upper-case
  // alphanumerics (1Password's "About your Secret Key": 34 characters starting A3).
  format(
    'secret.onepassword_secret_key',
    ['A3-'],
    /A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}(?![A-Za-z0-9-])/y,
    'alphanumeric',
    {
      validate: generatedBody(3),
    },
  ),
  // adobe-client-secret: "p8e-" + 32 characters. gitleaks takes alphanumerics only; Nosey Parker's
  // adobe.yml also takes "-" inside the 32, so both are accepted.
  format('secret.adobe_client_secret', ['p8e-'], /p8e-[A-Za-z0-9-]{32}(?![A-Za-z0-9-])/y, 'alphanumeric', { validate: generatedBody(4) }),
  // artifactory-api-key ("AKCp" + 69) and artifactory-reference-token ("cmVmd", base64 of "reft",
  // the start of "reftkn:", + 59).
  format('secret.jfrog_token', ['AKCp'], /AKCp[A-Za-z0-9]{69}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(4), ownsPrefix: false }),
  format('secret.jfrog_token', ['cmVmd'], /cmVmd[A-Za-z0-9]{59}(?![A-Za-z0-9+/=])/y, 'alphanumeric', { validate: generatedBody(5), ownsPrefix: false }),
  // authress-service-client-access-key: "sc_"/"ext_"/"scauth_"/"authress_", client id, ".", key id,
  // ".acc_" or ".acc-" + account, ".", private key.
  format(
    'secret.authress_access_key',
    ['sc_', 'ext_'],
    /(?:sc|ext)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}(?![A-Za-z0-9+/_=-])/y,
    'alphanumeric',
    { validate: (token) => !hasIdenticalRun(token), ownsPrefix: false },
  ),
  // "scauth_" and "authress_" are found through the word "auth", with "sc" looked back for.
  format(
    'secret.authress_access_key',
    ['auth'],
    /(?:scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}(?![A-Za-z0-9+/_=-])/y,
    'alphanumeric',
    { lookback: { maxCharacters: 2, characters: /[cs]/ }, validate: (token) => !hasIdenticalRun(token), sharedKeyword: true },
  ),
  // clickhouse-cloud-api-secret-key: "4b1d" + 38 alphanumerics. Hex strings can start "4b1d" too.
  // The keyword is "b1d" and the "4" is looked back for: a keyword starting with a digit made the
  // prefilter's RE2 pass several times slower on code (bench/sanitiser-bench-notes.md).
  format('secret.clickhouse_api_secret', ['b1d'], /4b1d[A-Za-z0-9]{38}(?![A-Za-z0-9])/y, 'alphanumeric', {
    lookback: { maxCharacters: 1, characters: /4/ },
    validate: (token) => generatedBody(4)(token) && hasNonHexLetter(token.slice(4)),
  }),
  // clojars-api-token: "CLOJARS_" + 60 alphanumerics (Clojars' deploy tokens).
  format('secret.clojars_token', ['CLOJARS_'], /CLOJARS_[A-Za-z0-9]{60}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(8) }),
  // cloudflare-origin-ca-key: "v1.0-" + 24 hex + "-" + 146 hex.
  format('secret.cloudflare_origin_ca_key', ['v1.0-'], /v1\.0-[a-f0-9]{24}-[a-f0-9]{146}(?![A-Za-z0-9])/y, 'alphanumeric', {
    validate: generatedBody(5),
    ownsPrefix: false,
  }),
  // defined-networking-api-token: "dnkey-" + 26 + "-" + 52.
  format('secret.defined_networking_token', ['dnkey-'], /dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}(?![A-Za-z0-9=_-])/y, 'alphanumeric', {
    validate: generatedBody(6),
  }),
  // duffel-api-token: "duffel_test_" / "duffel_live_" + 43.
  format('secret.duffel_token', ['duffel_'], /duffel_(?:test|live)_[A-Za-z0-9_=-]{43}(?![A-Za-z0-9_=-])/y, 'alphanumeric', { validate: generatedBody(12) }),
  // facebook-page-access-token: "EAAM" / "EAAC" + at least 100 alphanumerics.
  format('secret.facebook_access_token', ['EAA'], /EAA[MC][A-Za-z0-9]{100,}(?![A-Za-z0-9])/y, 'alphanumeric', {
    validate: generatedBody(4),
    ownsPrefix: false,
  }),
  // flutterwave-public-key: "FLWPUBK_TEST-" + 32 + "-X" (and live keys without "_TEST", as for
  // secret keys). Public keys go into checkout pages; a warning, like Mapbox public tokens.
  format('secret.flutterwave_public_key', ['FLWPUBK'], /FLWPUBK(?:_TEST)?-[a-h0-9]{32}-X(?![A-Za-z0-9])/y, 'alphanumeric', {
    validate: (token) => generatedBody(token.indexOf('-') + 1)(token.slice(0, -2)),
  }),
  // flyio-access-token: "fo1_" + 43, or macaroon tokens "fm1a_" / "fm1r_" / "fm2_" + 100+ base64.
  format('secret.flyio_token', ['fo1_'], /fo1_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y, 'alphanumeric', { validate: generatedBody(4) }),
  format('secret.flyio_token', ['fm1', 'fm2_'], /fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,}={0,3}/y, 'alphanumeric', {
    validate: (token) => generatedBody(token.indexOf('_') + 1)(token),
  }),
  // gitlab-session-cookie: the value of "_gitlab_session=", 32 lower-case alphanumerics.
  format('secret.gitlab_session_cookie', ['_gitlab_session='], /_gitlab_session=([0-9a-z]{32})(?![A-Za-z0-9])/dy, 'alphanumeric', {
    validate: generatedBody(0),
    valueGroup: true,
  }),
  // harness-api-key: "pat." / "sat.", account id (22), ".", token id (24), ".", secret (20).
  format('secret.harness_token', ['pat.', 'sat.'], /[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}(?![A-Za-z0-9])/y, 'alphanumeric', {
    validate: generatedBody(4),
    ownsPrefix: false,
  }),
  // heroku-api-key-v2: "HRKU-AA" + 58 (Heroku's new API key format).
  format('secret.heroku_api_key', ['HRKU-AA'], /HRKU-AA[A-Za-z0-9_-]{58}(?![A-Za-z0-9_-])/y, 'alphanumeric', { validate: generatedBody(7) }),
  // infracost-api-token: "ico-" + 32 alphanumerics.
  format('secret.infracost_token', ['ico-'], /ico-[A-Za-z0-9]{32}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(4), ownsPrefix: false }),
  // intra42-client-secret: "s-s4t2ud-" / "s-s4t2af-" + 64 hex.
  format('secret.intra42_client_secret', ['s-s4t2'], /s-s4t2(?:ud|af)-[a-fA-F0-9]{64}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(9) }),
  // octopus-deploy-api-key: "API-" + 26 upper-case alphanumerics.
  format('secret.octopus_deploy_api_key', ['API-'], /API-[A-Z0-9]{26}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(4), ownsPrefix: false }),
  // openshift-user-token: "sha256~" + 43 base64url characters.
  format('secret.openshift_token', ['sha256~'], /sha256~[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y, 'alphanumeric', { validate: generatedBody(7) }),
  // perplexity-api-key: "pplx-" + 48 alphanumerics.
  format('secret.perplexity_api_key', ['pplx-'], /pplx-[A-Za-z0-9]{48}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(5) }),
  // plaid-api-token: "access-<environment>-" + a UUID (Plaid's /item/public_token/exchange
  // reference). gitleaks also wants the word "plaid"; the prefix and the UUID are exact enough.
  format(
    'secret.plaid_access_token',
    ['access'],
    /access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![A-Za-z0-9-])/y,
    'alphanumeric',
    { validate: (token) => generatedBody(0)(token.slice(token.length - 36)), sharedKeyword: true },
  ),
  // scalingo-api-token: "tk-us-" + 48.
  format('secret.scalingo_token', ['tk-us-'], /tk-us-[A-Za-z0-9_-]{48}(?![A-Za-z0-9_-])/y, 'alphanumeric', { validate: generatedBody(6) }),
  // settlemint-{application,personal,service}-access-token: "sm_aat_" / "sm_pat_" / "sm_sat_" + 16.
  format('secret.settlemint_token', ['sm_'], /sm_[aps]at_[A-Za-z0-9]{16}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedShortBody(7) }),
  // sidekiq-secret: Sidekiq Pro/Enterprise credentials in Bundler's variables, "xxxxxxxx:xxxxxxxx"
  // in hex (Sidekiq's wiki, "Gem credentials"). The finding is the value only. One keyword for both
  // names, the "BUNDLE_GEMS" / "BUNDLE_ENTERPRISE" before it looked back for.
  format(
    'secret.sidekiq_secret',
    ['__CONTRIBSYS__COM'],
    /BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM["']?[ \t]*(?:=|:)[ \t]*["']?([a-f0-9]{8}:[a-f0-9]{8})(?![A-Za-z0-9])/dy,
    'alphanumeric',
    {
      lookback: { maxCharacters: 17, characters: /[A-Z_]/ },
      validate: (token) => !hasIdenticalRun(token.replace(':', '')),
      valueGroup: true,
    },
  ),
  // yandex-api-key: Yandex Cloud API keys, "AQVN" + 35-38 (gitleaks also wants the word "yandex").
  format('secret.yandex_api_key', ['AQVN'], /AQVN[A-Za-z0-9_-]{35,38}(?![A-Za-z0-9_-])/y, 'alphanumeric', { validate: generatedBody(4), ownsPrefix: false }),
  // yandex-access-token: IAM tokens, "t1." + a segment + "." + 86 (gitleaks also wants "yandex").
  format('secret.yandex_iam_token', ['t1.'], /t1\.[A-Za-z0-9_-]{1,300}={0,2}\.[A-Za-z0-9_-]{86}={0,2}(?![A-Za-z0-9_-])/y, 'alphanumeric', {
    validate: generatedBody(3),
  }),
  // jwt-base64: a JWT stored base64-encoded ("eyJ" encodes to "ZXlK"); reported as a JWT.
  format('secret.jwt', ['ZXlK'], /ZXlK[A-Za-z0-9+/]{40,}={0,2}(?![A-Za-z0-9+/=])/y, 'alphanumeric', { validate: isBase64EncodedJwt, ownsPrefix: false }),
  // mailgun-pub-key: the public validation key, "pubkey-" + 32 hex (a warning: it was meant for
  // browser code, but lets anyone spend the account's validation quota).
  format('secret.mailgun_public_key', ['pubkey-'], /pubkey-[a-f0-9]{32}(?![A-Za-z0-9])/y, 'alphanumeric', { validate: generatedBody(7) }),
] as const;

/** The rule ids of the formats above: the ids the provider-token detector declares and emits. */
type ProviderTokenRuleId = (typeof TOKEN_FORMATS)[number]['ruleId'];

/**
 * Prefixes distinctive enough to own a value: `token = "hvs.short"` is a malformed Vault token,
 * not a generic secret (see assignments/detector.ts). Three-character prefixes such as "sk-" are
 * shared by several vendors and own nothing.
 */
export const OWNING_PREFIXES: readonly string[] = [
  ...new Set(
    TOKEN_FORMATS.filter((tokenFormat) => tokenFormat.lookback === undefined && tokenFormat.ownsPrefix !== false && tokenFormat.sharedKeyword !== true)
      .flatMap((tokenFormat) => tokenFormat.prefixes)
      .filter((prefix) => prefix.length >= 4),
  ),
];

function tokenStart(text: string, keywordIndex: number, tokenFormat: TokenFormat): number {
  const lookback = tokenFormat.lookback;
  if (lookback === undefined) return keywordIndex;
  let start = keywordIndex;
  while (start > keywordIndex - lookback.maxCharacters && start > 0 && lookback.characters.test(text[start - 1] ?? '')) {
    start -= 1;
  }
  return start;
}

function leftBoundaryHolds(text: string, start: number, boundary: LeftBoundary): boolean {
  const previous = codeAt(text, start - 1);
  return boundary === 'letter' ? !isAsciiLetter(previous) : !isAsciiAlphanumeric(previous);
}

function detectTokens(context: DetectorContext<ProviderTokenRuleId>): void {
  const { text, scan } = context;
  for (const tokenFormat of TOKEN_FORMATS) {
    if (!scan.isEnabled(tokenFormat.ruleId)) continue;
    for (const prefix of tokenFormat.prefixes) {
      let coveredUntil = -1;
      for (const keywordIndex of context.positions(prefix)) {
        const start = tokenStart(text, keywordIndex, tokenFormat);
        if (start < coveredUntil || !leftBoundaryHolds(text, start, tokenFormat.leftBoundary)) continue;
        tokenFormat.pattern.lastIndex = start;
        const match = tokenFormat.pattern.exec(text);
        if (match === null) continue;
        // One examination covers the later occurrences inside this match, valid or not: starting
        // again there would rescan the same run, so a text of one prefix repeated cost quadratic
        // time (regression: "xoxa-" repeated; figures in bench/sanitiser-bench-notes.md).
        coveredUntil = start + match[0].length;
        const valueSpan = tokenFormat.valueGroup === true ? match.indices?.[1] : undefined;
        if (tokenFormat.valueGroup === true && valueSpan === undefined) continue;
        const valueStart = valueSpan?.[0] ?? start;
        let token = valueSpan === undefined ? match[0] : text.slice(valueSpan[0], valueSpan[1]);
        // A sentence may end right after a token whose alphabet includes '.'.
        while (token.endsWith('.')) token = token.slice(0, -1);
        if (tokenFormat.validate !== undefined && !tokenFormat.validate(token)) continue;
        scan.emit(tokenFormat.ruleId, valueStart, valueStart + token.length);
      }
    }
  }
}

export const providerTokenDetector = defineDetector({
  name: 'provider-tokens',
  ruleIds: [...new Set(TOKEN_FORMATS.map((tokenFormat) => tokenFormat.ruleId))],
  keywords: [...new Set(TOKEN_FORMATS.filter((tokenFormat) => tokenFormat.sharedKeyword === true).flatMap((tokenFormat) => tokenFormat.prefixes))],
  caseSensitiveKeywords: [...new Set(TOKEN_FORMATS.filter((tokenFormat) => tokenFormat.sharedKeyword !== true).flatMap((tokenFormat) => tokenFormat.prefixes))],
  keywordsAfterWordCharacters: TOKEN_FORMATS.filter((tokenFormat) => tokenFormat.lookback !== undefined && tokenFormat.sharedKeyword !== true).flatMap(
    (tokenFormat) => tokenFormat.prefixes,
  ),
  detect: detectTokens,
});

/** A letter and, after the bot id's colon (if any), a digit: random secrets have both. */
const hasLetterAndSecretDigit = (token: string): boolean => /[A-Za-z]/.test(token) && /\d/.test(token.slice(token.indexOf(':') + 1));
/** Lower-case, upper-case and digits: TrueNAS generates 64 base62 characters. */
const hasAllClasses = (token: string): boolean => /[a-z]/.test(token) && /[A-Z]/.test(token) && /\d/.test(token.slice(token.indexOf('-') + 1));

/**
 * Token formats without a literal prefix, found by their whole shape through prefilter
 * patterns: Telegram bot tokens (bot id, colon, 35-character secret), Zoho OAuth tokens and
 * TrueNAS API keys.
 *
 * A trigger only says "run this detector", which then searches the whole text, so it may be a
 * necessary part of the shape rather than all of it. TrueNAS's is: a counted repetition such as
 * `[A-Za-z0-9]{64}` multiplies the states of the prefilter's RE2 automaton by its count, and with
 * the provider formats' keywords added for gitleaks parity the automaton outgrew RE2's cache and
 * code scanned several times slower (bench:sanitiser, code with secrets; see
 * bench/sanitiser-bench-notes.md).
 */
const TRUENAS_TRIGGER_LENGTH = 16;
/** TrueNAS API keys: the key's numeric id (1-6 digits), "-", 64 base62 characters. */
const TRUENAS_ID_DIGITS = 6;
const TRUENAS_SECRET_LENGTH = 64;

/** Where a shaped token starts and ends. */
type ShapeFinder = (text: string) => Iterable<readonly [start: number, end: number]>;

function* regexFinder(pattern: RegExp, text: string): Iterable<readonly [number, number]> {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) yield [match.index, match.index + match[0].length];
}

/**
 * `(?<![A-Za-z0-9._-])\d{1,6}-[A-Za-z0-9]{64}(?![A-Za-z0-9_-])`, searched from each "-": the
 * trigger fires on any Slack token or long slug, and a regex that starts with a digit class was
 * a noticeable share of a mixed-text scan (bench/sanitiser-bench-notes.md); the dashes are found
 * by indexOf and most fail at once.
 */
function* findTrueNasKeys(text: string): Iterable<readonly [number, number]> {
  for (let dash = text.indexOf('-'); dash !== -1; dash = text.indexOf('-', dash + 1)) {
    if (!isAsciiDigit(codeAt(text, dash - 1))) continue;
    let end = dash + 1;
    while (end - dash <= TRUENAS_SECRET_LENGTH && isAsciiAlphanumeric(codeAt(text, end))) end += 1;
    const after = codeAt(text, end);
    if (end - dash - 1 !== TRUENAS_SECRET_LENGTH || isAsciiAlphanumeric(after) || after === 95 || after === 45) continue;
    let start = dash - 1;
    while (dash - start < TRUENAS_ID_DIGITS && isAsciiDigit(codeAt(text, start - 1))) start -= 1;
    const before = codeAt(text, start - 1);
    if (isAsciiAlphanumeric(before) || before === 46 || before === 95 || before === 45) continue;
    yield [start, end];
  }
}

const TELEGRAM_BOT_TOKEN = /(?<![A-Za-z0-9:])\d{8,10}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g;
const ZOHO_TOKEN = /(?<![A-Za-z0-9.])1000\.[a-f0-9]{32}\.[a-f0-9]{32}(?![A-Za-z0-9])/g;

const SHAPED_FORMATS = [
  {
    ruleId: 'secret.telegram_bot_token',
    trigger: '\\d{8,10}:[A-Za-z0-9_-]{35}',
    find: (text) => regexFinder(TELEGRAM_BOT_TOKEN, text),
    validate: hasLetterAndSecretDigit,
  },
  {
    ruleId: 'secret.zoho_token',
    trigger: '1000\\.[a-f0-9]{32}\\.[a-f0-9]{32}',
    find: (text) => regexFinder(ZOHO_TOKEN, text),
    validate: hasLetterAndSecretDigit,
  },
  { ruleId: 'secret.truenas_api_key', trigger: `\\d-[A-Za-z0-9]{${TRUENAS_TRIGGER_LENGTH}}`, find: findTrueNasKeys, validate: hasAllClasses },
] as const satisfies readonly { ruleId: BuiltInRuleId; trigger: string; find: ShapeFinder; validate: (token: string) => boolean }[];

/** The rule ids of the shapes above: the ids the shaped-token detector declares and emits. */
type ShapedTokenRuleId = (typeof SHAPED_FORMATS)[number]['ruleId'];

function detectShapedTokens(context: DetectorContext<ShapedTokenRuleId>): void {
  const { text, scan } = context;
  for (const shaped of SHAPED_FORMATS) {
    if (!context.patternPresent(shaped.trigger) || !scan.isEnabled(shaped.ruleId)) continue;
    for (const [start, end] of shaped.find(text)) {
      if (shaped.validate(text.slice(start, end))) scan.emit(shaped.ruleId, start, end);
    }
  }
}

export const shapedTokenDetector = defineDetector({
  name: 'shaped-tokens',
  ruleIds: SHAPED_FORMATS.map((shaped) => shaped.ruleId),
  patternTriggers: SHAPED_FORMATS.map((shaped) => shaped.trigger),
  detect: detectShapedTokens,
});
