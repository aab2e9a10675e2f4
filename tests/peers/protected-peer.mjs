// An OAuth-protected MCP server for the tests (issue 13), built on the official SDK v1: its server auth
// router (mcpAuthRouter, requireBearerAuth) and its in-memory demo OAuth provider
// (examples/server/demoInMemoryOAuthProvider.js), extended here with refresh tokens, revocation and
// hooks for the tests. One process is both the authorization server and the resource server.
//
//   node protected-peer.mjs [PORT] [--access-ttl SECONDS] [--no-iss]
//
// PORT 0 or none: a random free port. Binds 127.0.0.1 only. When ready it prints exactly one line on
// stdout:  listening http://127.0.0.1:PORT/mcp  and nothing else there (no token, code or secret is ever
// printed). Stop it with SIGTERM/SIGKILL.
//
// Endpoints (BASE = http://127.0.0.1:PORT):
//   BASE/mcp  Streamable HTTP, stateful sessions (Mcp-Session-Id) as the SDK examples do; POST, GET, DELETE.
//             Every request needs "Authorization: Bearer <access token>" issued for the resource BASE/mcp.
//             Without one, or with an unknown, expired, revoked or expired-by-control token: 401,
//             "WWW-Authenticate: Bearer error="invalid_token", error_description="…",
//             resource_metadata="BASE/.well-known/oauth-protected-resource/mcp"", body {error, error_description}.
//             No scope is required (the challenge has no scope parameter).
//   BASE/.well-known/oauth-protected-resource/mcp   RFC 9728: resource "BASE/mcp", authorization_servers
//             ["BASE/"], scopes_supported ["mcp:tools"]. The root BASE/.well-known/oauth-protected-resource is 404.
//   BASE/.well-known/oauth-authorization-server     RFC 8414, issuer "BASE/" (with the slash): authorization,
//             token, registration and revocation endpoints; code_challenge_methods_supported ["S256"];
//             grant_types_supported [authorization_code, refresh_token]; token_endpoint_auth_methods_supported
//             [client_secret_basic, client_secret_post, none]; revocation_endpoint_auth_methods_supported
//             [client_secret_basic, client_secret_post]; authorization_response_iss_parameter_supported true
//             (unless --no-iss).
//             /.well-known/openid-configuration is 404.
//   BASE/register   RFC 7591 dynamic client registration (the SDK's handler): a client with
//             token_endpoint_auth_method "none" gets no secret; any other gets a client_secret (30 days).
//             The answer echoes the metadata sent: without token_endpoint_auth_method there is none in it.
//   BASE/authorize  No login page: redirects (302) at once to the redirect_uri with code, state (when sent)
//             and iss = the issuer (RFC 9207; not with --no-iss). PKCE S256 is required (the SDK's handler
//             refuses anything else). A loopback redirect_uri may use any port (RFC 8252 §7.3).
//             `resource` must be BASE/mcp: the token request fails with invalid_grant otherwise.
//   BASE/token      authorization_code (code_verifier checked; redirect_uri and resource, when sent, must
//             match the authorize request) and refresh_token. Every success answers access_token,
//             token_type "bearer", expires_in (3600, or --access-ttl), scope, refresh_token. Refresh tokens
//             rotate: each refresh answers a new refresh token and the old one is dead (a second use gets
//             invalid_grant; the grant is not revoked). Access tokens issued before a refresh stay valid
//             until they expire. A refresh may narrow the scope, never widen it (invalid_scope). Unknown,
//             used, revoked or another client's refresh token: 400 invalid_grant.
//             Client authentication, here and at BASE/revoke: client_secret_post (client_id and client_secret
//             in the form body, the SDK's handler), client_secret_basic (RFC 6749 §2.3.1, added here), or
//             client_id alone for a public client. A confidential client without its secret, or with a
//             wrong one: 400 invalid_client (the SDK's answer). Basic and a body secret together: 400
//             invalid_request.
//   BASE/revoke     RFC 7009 (the SDK's handler; token_type_hint is ignored): revoking a refresh token also
//             revokes every access token of the same grant; revoking an access token revokes just that one. Always 200 {} for an authenticated client, also for an unknown token
//             or another client's token (which stays valid).
//
// Control endpoints for the tests: no authentication, but only from 127.0.0.1 and only with
// "Host: 127.0.0.1:PORT" (else 403). Bodies are ignored.
//   POST BASE/control/expire-access-tokens   Every access token issued so far now fails with 401
//             invalid_token; refresh tokens still work. Answers {"expiredAccessTokens": n}.
//   POST BASE/control/revoke-refresh-tokens  Every refresh token now gets invalid_grant (access tokens keep
//             working until they expire): for a test of "the user must authorize again".
//             Answers {"revokedRefreshTokens": n}.
//   GET  BASE/control/state   {
//             "executions": n,        times `increment` ran (the counter; get-count does not change it),
//             "grants": {"authorization_code": n, "refresh_token": n},          successful token requests,
//             "grantFailures": {"authorization_code": n, "refresh_token": n},   token requests answered 4xx/5xx,
//             "registrations": n,     clients registered through BASE/register,
//             "authorizations": n,    codes issued by BASE/authorize,
//             "revocations": n,       revocation requests answered 200,
//             "revokedTokens": n,     live tokens those requests invalidated (an already expired one is
//                                     removed too, but not counted),
//             "unauthorized": n,      BASE/mcp requests answered 401,
//             "liveAccessTokens": n, "liveRefreshTokens": n, "liveTokens": n (their sum): tokens accepted now,
//             "sessions": n,          open MCP sessions,
//             "issuedTokens": [..] }  every access and refresh token issued so far, in order (for greps).
//
// Tools: `increment` (annotations readOnlyHint false, idempotentHint false): adds one to the counter and
// answers its new value as text, e.g. "1". `get-count` (readOnlyHint true): answers the counter as text.
import http from 'node:http';
import express from 'express';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
  OAuthError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const args = process.argv.slice(2);
const optionValue = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
};
const accessTtlSeconds = Number(optionValue('--access-ttl', 3600));
const withIss = !args.includes('--no-iss');
const portArg = args.find((arg, i) => /^\d+$/.test(arg) && args[i - 1] !== '--access-ttl');
const requestedPort = Number(portArg ?? 0);
if (!Number.isInteger(accessTtlSeconds) || accessTtlSeconds < 1) {
  console.error('protected-peer: --access-ttl needs a whole number of seconds >= 1');
  process.exit(2);
}

const state = {
  executions: 0,
  grants: { authorization_code: 0, refresh_token: 0 },
  grantFailures: { authorization_code: 0, refresh_token: 0 },
  registrations: 0,
  authorizations: 0,
  revocations: 0,
  revokedTokens: 0,
  unauthorized: 0,
  // Every access and refresh token issued, in order: the tests grep McpScope's output and files for them.
  // A test peer's secrets, shown only on the control endpoint.
  issuedTokens: [],
};

// The resource a URL names, for comparing: without its fragment and without one trailing slash.
const comparable = (value) => String(value).split('#')[0].replace(/\/$/, '');

/// The SDK's demo provider plus what the tests need: refresh tokens with rotation, RFC 7009 revocation,
/// expiry on request, OAuth errors (the demo throws plain Errors, which the SDK answers with 500), the
/// RFC 8252 loopback port rule and the RFC 9207 iss parameter.
class ProtectedPeerProvider extends DemoInMemoryAuthProvider {
  constructor({ issuer, resource }) {
    super((requested) => requested !== undefined && comparable(requested) === comparable(resource));
    this.issuer = issuer;
    this.resource = resource;
    // refresh token -> { clientId, scopes, resource, grantId }
    this.refreshTokens = new Map();
    const store = this.clientsStore;
    const register = store.registerClient.bind(store);
    store.registerClient = async (client) => {
      const registered = await register(client);
      state.registrations++;
      return registered;
    };
  }

  async authorize(client, params, res) {
    // The SDK's handler has already accepted a loopback redirect_uri on another port (RFC 8252 §7.3); the
    // demo compares exactly, so it is shown the redirect_uri it is about to use.
    const lenient = client.redirect_uris.includes(params.redirectUri)
      ? client
      : { ...client, redirect_uris: [...client.redirect_uris, params.redirectUri] };
    if (withIss) {
      const redirect = res.redirect.bind(res);
      // res.redirect(url) or res.redirect(status, url), as express has it.
      res.redirect = (...redirectArgs) => {
        const target = new URL(redirectArgs[redirectArgs.length - 1]);
        target.searchParams.set('iss', this.issuer);
        redirect(redirectArgs.length > 1 ? redirectArgs[0] : 302, target.toString());
      };
    }
    await super.authorize(lenient, params, res);
    state.authorizations++;
  }

  async challengeForAuthorizationCode(client, code) {
    try {
      return await super.challengeForAuthorizationCode(client, code);
    } catch {
      throw new InvalidGrantError('Invalid authorization code');
    }
  }

  async exchangeAuthorizationCode(client, code, codeVerifier, redirectUri, resource) {
    const pending = this.codes.get(code);
    if (pending && redirectUri !== undefined && redirectUri !== pending.params.redirectUri)
      throw new InvalidGrantError('redirect_uri does not match the authorization request');
    if (pending && resource !== undefined && comparable(resource) !== comparable(pending.params.resource ?? ''))
      throw new InvalidGrantError('resource does not match the authorization request');
    let answer;
    try {
      answer = await super.exchangeAuthorizationCode(client, code, codeVerifier);
    } catch (error) {
      throw error instanceof OAuthError ? error : new InvalidGrantError(error.message);
    }
    const grantId = randomUUID();
    const record = this.tokens.get(answer.access_token);
    record.grantId = grantId;
    record.expiresAt = Date.now() + accessTtlSeconds * 1000;
    const refreshToken = randomUUID();
    this.refreshTokens.set(refreshToken, {
      clientId: client.client_id,
      scopes: record.scopes,
      resource: record.resource,
      grantId,
    });
    state.issuedTokens.push(answer.access_token, refreshToken);
    return { ...answer, expires_in: accessTtlSeconds, refresh_token: refreshToken };
  }

  async exchangeRefreshToken(client, refreshToken, scopes, resource) {
    const record = this.refreshTokens.get(refreshToken);
    if (!record) throw new InvalidGrantError('Invalid refresh token');
    if (record.clientId !== client.client_id) throw new InvalidGrantError('Refresh token was not issued to this client');
    const granted = scopes && scopes.length ? scopes : record.scopes;
    if (!granted.every((scope) => record.scopes.includes(scope)))
      throw new InvalidScopeError('A refresh cannot widen the scope');
    if (resource !== undefined && comparable(resource) !== comparable(record.resource ?? ''))
      throw new InvalidTargetError('resource does not match the grant');
    // Rotation: this refresh token is used up.
    this.refreshTokens.delete(refreshToken);
    const accessToken = randomUUID();
    this.tokens.set(accessToken, {
      token: accessToken,
      clientId: client.client_id,
      scopes: granted,
      expiresAt: Date.now() + accessTtlSeconds * 1000,
      resource: record.resource,
      type: 'access',
      grantId: record.grantId,
    });
    const nextRefresh = randomUUID();
    this.refreshTokens.set(nextRefresh, { ...record, scopes: record.scopes });
    state.issuedTokens.push(accessToken, nextRefresh);
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: accessTtlSeconds,
      scope: granted.join(' '),
      refresh_token: nextRefresh,
    };
  }

  async verifyAccessToken(token) {
    try {
      return await super.verifyAccessToken(token);
    } catch {
      // requireBearerAuth answers 401 invalid_token only for this error class.
      throw new InvalidTokenError('Invalid or expired token');
    }
  }

  // Present, so the SDK's router installs /revoke and advertises it.
  async revokeToken(client, { token }) {
    let revoked = 0;
    const refresh = this.refreshTokens.get(token);
    if (refresh && refresh.clientId === client.client_id) {
      this.refreshTokens.delete(token);
      revoked++;
      for (const [accessToken, record] of this.tokens) {
        if (record.grantId === refresh.grantId) {
          if (record.expiresAt >= Date.now()) revoked++;
          this.tokens.delete(accessToken);
        }
      }
    }
    const access = this.tokens.get(token);
    if (access && access.clientId === client.client_id) {
      if (access.expiresAt >= Date.now()) revoked++;
      this.tokens.delete(token);
    }
    state.revocations++;
    state.revokedTokens += revoked;
  }

  expireAccessTokens() {
    let count = 0;
    for (const record of this.tokens.values()) {
      if (record.expiresAt >= Date.now()) count++;
      record.expiresAt = Date.now() - 1000;
    }
    return count;
  }

  revokeRefreshTokens() {
    const count = this.refreshTokens.size;
    this.refreshTokens.clear();
    return count;
  }

  liveAccessTokens() {
    let count = 0;
    for (const record of this.tokens.values()) if (record.expiresAt >= Date.now()) count++;
    return count;
  }
}

function makeMcpServer() {
  const server = new McpServer({ name: 'protected-peer', version: '1.0.0' });
  server.registerTool('increment', {
    description: 'Adds one to the counter and answers its new value',
    inputSchema: {},
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  }, async () => {
    state.executions++;
    return { content: [{ type: 'text', text: String(state.executions) }] };
  });
  server.registerTool('get-count', {
    description: 'Answers the counter',
    inputSchema: {},
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async () => ({ content: [{ type: 'text', text: String(state.executions) }] }));
  return server;
}

function buildApp(port) {
  const base = `http://127.0.0.1:${port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  const issuerUrl = new URL(`${base}/`);
  const provider = new ProtectedPeerProvider({ issuer: issuerUrl.href, resource: mcpUrl });
  const app = createMcpExpressApp({ host: '127.0.0.1' });

  const controlOnly = (req, res, next) => {
    const address = req.socket.remoteAddress;
    if (req.headers.host !== `127.0.0.1:${port}` || (address !== '127.0.0.1' && address !== '::ffff:127.0.0.1')) {
      res.status(403).json({ error: 'control endpoints answer only 127.0.0.1 with Host 127.0.0.1:PORT' });
      return;
    }
    next();
  };
  app.post('/control/expire-access-tokens', controlOnly, (req, res) => {
    res.json({ expiredAccessTokens: provider.expireAccessTokens() });
  });
  app.post('/control/revoke-refresh-tokens', controlOnly, (req, res) => {
    res.json({ revokedRefreshTokens: provider.revokeRefreshTokens() });
  });
  app.get('/control/state', controlOnly, (req, res) => {
    const liveAccessTokens = provider.liveAccessTokens();
    const liveRefreshTokens = provider.refreshTokens.size;
    res.json({
      ...state,
      liveAccessTokens,
      liveRefreshTokens,
      liveTokens: liveAccessTokens + liveRefreshTokens,
      sessions: sessions.size,
    });
  });

  const authOptions = {
    provider,
    issuerUrl,
    resourceServerUrl: mcpUrl,
    scopesSupported: ['mcp:tools'],
    resourceName: 'McpScope protected test peer',
    // A test peer answers every request: no rate limits.
    authorizationOptions: { rateLimit: false },
    tokenOptions: { rateLimit: false },
    clientRegistrationOptions: { rateLimit: false },
    revocationOptions: { rateLimit: false },
  };
  // The SDK's metadata, plus client_secret_basic (below) and the RFC 9207 flag for the iss that authorize()
  // adds. Served before the SDK's router, which would serve the metadata without them.
  const metadata = {
    ...createOAuthMetadata(authOptions),
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  };
  if (withIss) metadata.authorization_response_iss_parameter_supported = true;
  app.get('/.well-known/oauth-authorization-server', (req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json(metadata);
  });
  // Token requests are counted by how they were answered, PKCE and client failures included.
  app.use('/token', (req, res, next) => {
    res.on('finish', () => {
      const type = req.body?.grant_type;
      if (Object.hasOwn(state.grants, type)) (res.statusCode === 200 ? state.grants : state.grantFailures)[type]++;
    });
    next();
  });
  app.use('/token', basicClientAuthentication);
  app.use('/revoke', basicClientAuthentication);
  app.use(mcpAuthRouter(authOptions));

  const countUnauthorized = (req, res, next) => {
    res.on('finish', () => {
      if (res.statusCode === 401) state.unauthorized++;
    });
    next();
  };
  const bearer = requireBearerAuth({
    verifier: provider,
    requiredScopes: [],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    expectedResource: mcpUrl,
  });
  app.post('/mcp', countUnauthorized, bearer, mcpPost);
  app.get('/mcp', countUnauthorized, bearer, mcpSession);
  app.delete('/mcp', countUnauthorized, bearer, mcpSession);
  return app;
}

// RFC 6749 §2.3.1 client_secret_basic, which the SDK's token and revocation handlers lack (they read
// client_id and client_secret from the form body only): the Basic credentials are moved into the parsed
// body, which the SDK's own parser then leaves alone. Both methods in one request: 400 invalid_request.
const formParser = express.urlencoded({ extended: false });
function basicClientAuthentication(req, res, next) {
  formParser(req, res, (error) => {
    if (error) {
      next(error);
      return;
    }
    const header = req.headers.authorization;
    if (!header || !/^basic /i.test(header)) {
      next();
      return;
    }
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const formDecode = (text) => decodeURIComponent(text.replace(/\+/g, ' '));
    if (colon < 0) {
      res.status(401).set('WWW-Authenticate', 'Basic').json({
        error: 'invalid_client',
        error_description: 'Malformed Basic credentials',
      });
      return;
    }
    const clientId = formDecode(decoded.slice(0, colon));
    const clientSecret = formDecode(decoded.slice(colon + 1));
    const body = req.body ?? {};
    if (body.client_secret !== undefined || (body.client_id !== undefined && body.client_id !== clientId)) {
      res.status(400).json({
        error: 'invalid_request',
        error_description: 'Use one client authentication method: Basic or the form body',
      });
      return;
    }
    req.body = { ...body, client_id: clientId, client_secret: clientSecret };
    next();
  });
}

// Session id -> transport, as in the SDK's simpleStreamableHttp example.
const sessions = new Map();

async function mcpPost(req, res) {
  try {
    const sessionId = req.headers['mcp-session-id'];
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) {
      await existing.handleRequest(req, res, req.body);
      return;
    }
    if (sessionId) {
      res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
      return;
    }
    if (!isInitializeRequest(req.body)) {
      res.status(400).json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
        id: null,
      });
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await makeMcpServer().connect(transport);
    await transport.handleRequest(req, res, req.body);
  } catch (error) {
    console.error(`protected-peer: ${error?.message ?? error}`);
    if (!res.headersSent)
      res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
  }
}

async function mcpSession(req, res) {
  const sessionId = req.headers['mcp-session-id'];
  if (!sessionId) {
    res.status(400).send('Missing session ID');
    return;
  }
  const transport = sessions.get(sessionId);
  if (!transport) {
    res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    return;
  }
  await transport.handleRequest(req, res);
}

const httpServer = http.createServer();
httpServer.listen(requestedPort, '127.0.0.1', () => {
  const { port } = httpServer.address();
  httpServer.on('request', buildApp(port));
  console.log(`listening http://127.0.0.1:${port}/mcp`);
});
httpServer.on('error', (error) => {
  console.error(`protected-peer: ${error.message}`);
  process.exit(1);
});
