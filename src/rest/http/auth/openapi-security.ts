/**
 * Access control and rate limits in the OpenAPI document, added to the document ApiDocs built
 * (one function, so the document's own files need not know of it): the security schemes (a
 * bearer token — a JWT when an issuer's keys are configured — and `openIdConnect` with the
 * discovery URL when AUTH_ISSUER is set), each protected operation's `security` with the scopes
 * that grant it, its 401 and 403 (and 503: the issuer's keys may be out of reach), and 429 on
 * every rate-limited operation.
 */
import type { OpenAPIObject } from '@nestjs/swagger';
import { encodeError } from '../../core/output/render';
import { AccessRules, Requirement } from './access-rules';
import { JwtVerifier } from './jwt-verifier';

export interface SecurityDescription {
  /** The rules of the running service; undefined when nothing is protected. */
  rules?: AccessRules;
  apiToken: boolean;
  /** JWTs are accepted (AUTH_ISSUER or AUTH_JWKS_URL). */
  jwt: boolean;
  issuer?: string;
  /** RATE_LIMIT or RATE_LIMIT_WRITES is set. */
  rateLimited: boolean;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options'];

export function describeAccess(document: OpenAPIObject, settings: SecurityDescription): void {
  const components = document.components as Json;
  const { rules, jwt, issuer } = settings;
  if (rules) {
    components.securitySchemes = {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        ...(jwt ? { bearerFormat: 'JWT' } : {}),
        description: bearerDescription(settings),
      },
      ...(issuer
        ? {
            oidc: {
              type: 'openIdConnect',
              openIdConnectUrl: JwtVerifier.discoveryUrl(issuer),
              description: `Tokens of ${issuer} (client credentials or any flow it offers), with the scopes each operation lists.`,
            },
          }
        : {}),
    };
    components.responses.Forbidden = errorResponse(
      'The token is valid but lacks the scope this operation needs (`WWW-Authenticate` names it).',
      {
        message:
          'This token does not allow writing marbles: it needs the scope marbles:write or records:write.',
      },
      {
        'WWW-Authenticate': {
          description:
            'Bearer realm="records", error="insufficient_scope", scope="<the scope needed>"',
          schema: { type: 'string' },
        },
      },
    );
  }
  if (settings.rateLimited) {
    components.responses.TooManyRequests = errorResponse(
      'Past RATE_LIMIT or RATE_LIMIT_WRITES for this client; `Retry-After` says when to try again.',
      { message: 'Too many requests: this client may send 600 every 60 s; try again in 42 s.' },
      { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
    );
  }
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const method of METHODS) {
      const operation = (item as Json)[method] as Json | undefined;
      if (!operation) continue;
      const requirement = rules?.documentRequirement(method, path);
      if (requirement) protect(operation, requirement, settings);
      if (settings.rateLimited && !path.startsWith('/health')) {
        operation.responses['429'] = { $ref: '#/components/responses/TooManyRequests' };
      }
    }
  }
}

function protect(operation: Json, requirement: Requirement, settings: SecurityDescription): void {
  operation.security = [
    { bearer: [] },
    ...(settings.issuer ? requirement.scopes.map((scope) => ({ oidc: [scope] })) : []),
  ];
  const needs = settings.jwt
    ? `Needs a bearer token${settings.apiToken ? ' (the API token, or a JWT' : ' (a JWT'} with the scope ${requirement.scopes.join(', ')}, any one of them).`
    : 'Needs the API token as a bearer token.';
  operation.description = operation.description ? `${operation.description}\n\n${needs}` : needs;
  const responses = operation.responses as Json;
  responses['401'] = { $ref: '#/components/responses/Unauthorized' };
  if (settings.jwt) {
    responses['403'] = { $ref: '#/components/responses/Forbidden' };
    responses['503'] ??= { $ref: '#/components/responses/ServiceUnavailable' };
  }
}

function bearerDescription({ apiToken, jwt, issuer }: SecurityDescription): string {
  const kinds = [
    ...(apiToken ? ['the API_TOKEN the service is configured with (every scope)'] : []),
    ...(jwt
      ? [
          `a JWT${issuer ? ` of ${issuer}` : ''} (its \`scope\` or \`scp\` claim: \`records:read\`, \`records:write\`, \`<collection>:read\`, \`<collection>:write\`)`,
        ]
      : []),
  ];
  return `\`Authorization: Bearer <token>\`, where the token is ${kinds.join(', or ')}.`;
}

function errorResponse(description: string, body: { message: string }, headers: Json): Json {
  const schema = { $ref: '#/components/schemas/Error' };
  return {
    description,
    headers,
    content: {
      'application/json': { schema, example: body },
      'application/xml': { schema, example: encodeError('xml', { status: 400, body }) },
    },
  };
}
