/**
 * `porch webhook ...`: an operator manages an account's webhook endpoints (the same core calls
 * as the webhook operations, so the same SSRF rules and `webhooks.allow_hosts` apply).
 */
import type { Command } from 'commander';
import { MAX_SECRET_GRACE_SECONDS } from '../core/webhooks/webhooks.js';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type WebhookDeliveryStatus, type WebhookEventType } from '../db/store.js';
import { CliUsageError, parseList, parseNumber, parseText, READS_ONLY, withApplication, type CliContext } from './context.js';
import { MAX_PAGE_LIMIT } from '../operations/schemas.js';
import { thresholdSchema } from '../operations/set-credits-low-threshold.js';
import { webhookWriteFields } from '../operations/webhook-schemas.js';
import { print, printShownOnce, rows, table } from './output.js';

const SHOWN_ONCE = 'Store this secret now: it is shown once, and the receiver verifies every delivery with it.';

function parseEvents(value: string): WebhookEventType[] {
  const events = parseList(value);
  const unknown = events.filter((event) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event));
  if (events.length === 0 || unknown.length > 0) {
    throw new CliUsageError(
      `--events must list events among ${WEBHOOK_EVENT_TYPES.join(', ')}${unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''}.`,
    );
  }
  return events as WebhookEventType[];
}

function parseOnOff(value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new CliUsageError(`--enabled must be on or off, got "${value}".`);
}

function parseStatus(value: string): WebhookDeliveryStatus {
  if (!(WEBHOOK_DELIVERY_STATUSES as readonly string[]).includes(value)) {
    throw new CliUsageError(`--status must be one of ${WEBHOOK_DELIVERY_STATUSES.join(', ')}, got "${value}".`);
  }
  return value as WebhookDeliveryStatus;
}

/** An endpoint's URL and description as the webhook operations read them (regression: the CLI stored a description of 5,000 characters, the API 500). */
const parseUrl = parseText('--url', webhookWriteFields.url);
const parseDescription = parseText('--description', webhookWriteFields.description);

export function registerWebhookCommands(program: Command, context: CliContext): void {
  const webhook = program.command('webhook').description("Manage an account's webhook endpoints (signed with Standard Webhooks)");

  webhook
    .command('add')
    .description('Register an endpoint; prints its signing secret once')
    .requiredOption('--account <account-id>', 'account id')
    .requiredOption('--url <url>', 'https URL (http only for hosts in webhooks.allow_hosts)', parseUrl)
    .requiredOption('--events <list>', `comma-separated events: ${WEBHOOK_EVENT_TYPES.join(', ')}`, parseEvents)
    .option('--description <text>', 'what the endpoint is for (at most 500 characters)', parseDescription)
    .option('--disabled', 'create it disabled (no deliveries until enabled)')
    .option('--json', 'print JSON')
    .action(async (options: { account: string; url: string; events: WebhookEventType[]; description?: string; disabled?: boolean; json?: boolean }) => {
      const created = await withApplication(context, ({ core }) =>
        core.webhooks.create(options.account, {
          url: options.url,
          events: options.events,
          description: options.description ?? null,
          enabled: !options.disabled,
        }),
      );
      await printShownOnce(
        context.stdout,
        created,
        options,
        () => `${rows(Object.entries(created.endpoint))}\n\nsecret  ${created.secret}\n${SHOWN_ONCE}`,
        `the webhook endpoint ${created.endpoint.id} was added, but its signing secret could not be shown. Make a new one with porch webhook rotate ${created.endpoint.id} --account ${options.account} --grace 0.`,
      );
    });

  webhook
    .command('list')
    .description("List an account's endpoints (never their secrets)")
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (options: { account: string; json?: boolean }) => {
      const endpoints = await withApplication(
        context,
        async ({ core }) => {
          // A mistyped id is refused, not shown as an account without endpoints.
          await core.accounts.showAccount(options.account);
          return core.webhooks.list(options.account);
        },
        READS_ONLY,
      );
      print(context.stdout, endpoints, options, () =>
        endpoints.length === 0
          ? 'No webhook endpoints.'
          : table(
              ['ID', 'URL', 'EVENTS', 'ENABLED'],
              endpoints.map((endpoint) => [endpoint.id, endpoint.url, endpoint.events.join(','), endpoint.enabled ? 'yes' : 'no']),
            ),
      );
    });

  webhook
    .command('update')
    .description('Change an endpoint: URL, events, description, enabled')
    .argument('<endpoint-id>', 'endpoint id')
    .requiredOption('--account <account-id>', 'account id')
    .option('--url <url>', 'new URL (checked as at creation)', parseUrl)
    .option('--events <list>', 'comma-separated events', parseEvents)
    .option('--description <text>', 'what the endpoint is for (at most 500 characters)', parseDescription)
    .option('--enabled <on|off>', 'deliver events or not', parseOnOff)
    .option('--json', 'print JSON')
    .action(
      async (
        endpointId: string,
        options: { account: string; url?: string; events?: WebhookEventType[]; description?: string; enabled?: boolean; json?: boolean },
      ) => {
        const { account, json: _json, ...changes } = options;
        if (Object.values(changes).every((value) => value === undefined))
          throw new CliUsageError('Give at least one of --url, --events, --description, --enabled.');
        const updated = await withApplication(context, ({ core }) => core.webhooks.update(account, endpointId, changes));
        print(context.stdout, updated, options, () => rows(Object.entries(updated)));
      },
    );

  webhook
    .command('remove')
    .description('Delete an endpoint with its pending deliveries and delivery log')
    .argument('<endpoint-id>', 'endpoint id')
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (endpointId: string, options: { account: string; json?: boolean }) => {
      await withApplication(context, ({ core }) => core.webhooks.remove(options.account, endpointId));
      print(context.stdout, { id: endpointId, account_id: options.account, deleted: true }, options, () => `Webhook endpoint ${endpointId} is deleted.`);
    });

  webhook
    .command('rotate')
    .description('Make a new signing secret; the old one keeps signing beside it for --grace seconds')
    .argument('<endpoint-id>', 'endpoint id')
    .requiredOption('--account <account-id>', 'account id')
    .option(
      '--grace <seconds>',
      `seconds the old secret keeps signing (0-${MAX_SECRET_GRACE_SECONDS}, default 86400)`,
      parseNumber('--grace', { whole: true, min: 0, max: MAX_SECRET_GRACE_SECONDS }),
    )
    .option('--json', 'print JSON')
    .action(async (endpointId: string, options: { account: string; grace?: number; json?: boolean }) => {
      const rotated = await withApplication(context, ({ core }) => core.webhooks.rotateSecret(options.account, endpointId, options.grace ?? 86_400));
      const previous =
        rotated.endpoint.previous_secret_expires_at === null
          ? 'The old secret no longer signs.'
          : `The old secret also signs until ${rotated.endpoint.previous_secret_expires_at}.`;
      await printShownOnce(
        context.stdout,
        rotated,
        options,
        () => `secret  ${rotated.secret}\n${SHOWN_ONCE}\n${previous}`,
        `the signing secret of webhook endpoint ${endpointId} was rotated, but the new one could not be shown (${previous}) Rotate it again.`,
      );
    });

  webhook
    .command('deliveries')
    .description("An endpoint's delivery log, newest first, with each attempt's status code and duration")
    .argument('<endpoint-id>', 'endpoint id')
    .requiredOption('--account <account-id>', 'account id')
    .option('--status <status>', `only ${WEBHOOK_DELIVERY_STATUSES.join(', ')}`, parseStatus)
    // As the operation's `limit` (regression: 99999999999999999999 reached SQLite, 0 listed nothing).
    .option('--limit <n>', `at most this many (1-${MAX_PAGE_LIMIT})`, parseNumber('--limit', { whole: true, min: 1, max: MAX_PAGE_LIMIT }))
    .option('--json', 'print JSON')
    .action(async (endpointId: string, options: { account: string; status?: WebhookDeliveryStatus; limit?: number; json?: boolean }) => {
      const page = await withApplication(
        context,
        ({ core }) =>
          core.webhooks.deliveries(options.account, endpointId, { status: options.status, ...(options.limit === undefined ? {} : { limit: options.limit }) }),
        READS_ONLY,
      );
      print(context.stdout, page.items, options, () =>
        page.items.length === 0
          ? 'No deliveries.'
          : table(
              ['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST STATUS', 'LAST ERROR', 'NEXT ATTEMPT'],
              page.items.map((delivery) => [
                delivery.id,
                delivery.event_type,
                delivery.status,
                delivery.attempts,
                delivery.last_status_code ?? '-',
                delivery.last_error ?? '-',
                delivery.next_attempt_at ?? '-',
              ]),
            ),
      );
    });

  webhook
    .command('redeliver')
    .description('Send a succeeded or failed delivery again (same webhook-id, a fresh retry schedule)')
    .argument('<endpoint-id>', 'endpoint id')
    .argument('<delivery-id>', 'delivery id (the webhook-id)')
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (endpointId: string, deliveryId: string, options: { account: string; json?: boolean }) => {
      const delivery = await withApplication(context, ({ core }) => core.webhooks.redeliver(options.account, endpointId, deliveryId));
      print(context.stdout, delivery, options, () => `Delivery ${delivery.id} is queued again; a running server sends it within a second.`);
    });

  webhook
    .command('threshold')
    .description("Set the balance (credits) below which the account's endpoints get credits.low; off turns it off")
    .requiredOption('--account <account-id>', 'account id')
    .requiredOption('--credits <n|off>', 'credits, or off')
    .option('--json', 'print JSON')
    .action(async (options: { account: string; credits: string; json?: boolean }) => {
      const credits = options.credits === 'off' ? null : parseThreshold(parseNumber('--credits', THRESHOLD_CREDITS)(options.credits));
      const set = await withApplication(context, ({ core }) => core.webhooks.setLowBalanceThreshold(options.account, credits));
      print(context.stdout, set, options, () =>
        set.threshold_credits === null ? 'credits.low is off.' : `credits.low fires when the balance falls below ${set.threshold_credits} credits.`,
      );
    });
}

/** What `threshold --credits` reads as a number (besides off); the operation's schema then bounds it (parseThreshold). */
const THRESHOLD_CREDITS = { whole: false, min: 0, orElse: 'off' } as const;

/** The bounds the operation holds a threshold to (at most a billion credits, three decimals). */
function parseThreshold(credits: number): number {
  const parsed = thresholdSchema.shape.threshold_credits.safeParse(credits);
  if (!parsed.success) throw new CliUsageError(`--credits ${parsed.error.issues[0]?.message ?? 'is not a valid threshold'}, got ${credits}.`);
  return credits;
}
