import { requireAccountHolder } from '../core/access/caller.js';
import { toIsoTimestamp } from '../core/views.js';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';
import { ACCOUNT_HOLDER_ONLY, connectedAppSchema, keyScopes } from './self-service-schemas.js';

export const revokeConnectedApp = defineKeyedOperation({
  name: 'revoke_connected_app',
  title: 'Disconnect an app',
  description:
    "Disconnects an app connected with OAuth: its grant, every access and refresh token and the credential behind them are revoked at once, so the app's next request is refused (401). Answers the app as it was; 404 RESOURCE_NOT_FOUND for an unknown, already revoked or another account's connection.",
  method: 'POST',
  path: '/connected-apps/{id}/revoke',
  tag: 'Keys',
  effect: 'destructive',
  successStatus: 200,
  scopes: keyScopes,
  refuses: ACCOUNT_HOLDER_ONLY,
  params: idParams,
  output: connectedAppSchema,
  run: async ({ id }, { core, caller }) => {
    requireAccountHolder(caller, "disconnect an account's apps");
    const app = await core.oauth.revokeConnectedApp(caller.account.id, id);
    return {
      id: app.keyId,
      client_id: app.clientId,
      name: app.clientName,
      scopes: app.scopes,
      connected_at: toIsoTimestamp(app.connectedAt),
      last_used_at: app.lastUsedAt === null ? null : toIsoTimestamp(app.lastUsedAt),
    };
  },
});
