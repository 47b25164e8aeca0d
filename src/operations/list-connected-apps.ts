import { requireAccountHolder } from '../core/access/caller.js';
import { pageOfOrdered } from '../core/pages.js';
import { toIsoTimestamp } from '../core/views.js';
import { defineKeyedOperation } from './operation.js';
import { listOf, pageQuery } from './schemas.js';
import { ACCOUNT_HOLDER_ONLY, connectedAppSchema, keyScopes } from './self-service-schemas.js';

export const listConnectedApps = defineKeyedOperation({
  name: 'list_connected_apps',
  title: 'List connected apps',
  description:
    'Lists the apps (MCP hosts) connected to the account with OAuth and not revoked, oldest first: name, client id, granted scopes, when connected and last used (minute precision). Their tokens act like an API key of the account with these scopes; they never appear in list_keys. Page with limit and cursor.',
  method: 'GET',
  path: '/connected-apps',
  tag: 'Keys',
  effect: 'read',
  successStatus: 200,
  scopes: keyScopes,
  refuses: ACCOUNT_HOLDER_ONLY,
  query: pageQuery,
  output: listOf(connectedAppSchema, 'connected apps', 'oldest first'),
  run: async (query, { core, caller }) => {
    requireAccountHolder(caller, "list an account's connected apps");
    const apps = await core.oauth.listConnectedApps(caller.account.id);
    const items = apps.map((app) => ({
      id: app.keyId,
      client_id: app.clientId,
      name: app.clientName,
      scopes: app.scopes,
      connected_at: toIsoTimestamp(app.connectedAt),
      last_used_at: app.lastUsedAt === null ? null : toIsoTimestamp(app.lastUsedAt),
    }));
    return pageOfOrdered(items, query);
  },
});
