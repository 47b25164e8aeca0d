/**
 * An MCP host's side of OAuth for tests: the state a host keeps per connection (its registration,
 * tokens and PKCE verifier) in memory, as the SDK's OAuthClientProvider asks for it. The
 * authorization URL the SDK would open in a browser is kept, for the test to open.
 */
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';

/** Where a test host's authorization ends; tests catch the browser there or read it from a redirect. */
export const HOST_REDIRECT_URI = 'http://127.0.0.1:6274/oauth/callback';

export class MemoryOAuthHost implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  /**
   * What the SDK discovered before it sent the person to authorize, kept with the verifier: on the
   * way back it checks that the code is exchanged with the same authorization server (SEP-2352).
   */
  discovered: OAuthDiscoveryState | undefined;

  constructor(private readonly clientName: string) {}

  get redirectUrl() {
    return HOST_REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [HOST_REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovered = state;
  }
  discoveryState() {
    return this.discovered;
  }
}
