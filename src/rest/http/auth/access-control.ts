/**
 * Access control as Express middleware, before the body parsers (a refused client's body is
 * never read, so nothing of it is written): `identify` works out who the request is from (the
 * static API_TOKEN, or a verified JWT), `enforce` refuses what that principal may not do, with
 * the RFC 6750 answers — 401 with `WWW-Authenticate: Bearer realm="records"` (and
 * `error="invalid_token"` with a description when a token was sent), 403 with
 * `error="insufficient_scope"` and the scope needed — as errors in the negotiated format. The
 * rate limiter runs between the two, so it can count a client by its `sub`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { sendError } from '../response/respond';
import {
  ALL_READ,
  ALL_WRITE,
  AccessRules,
  WEBHOOKS_ADMIN,
  ProtectedCollection,
  Requirement,
  grants,
} from './access-rules';
import { credentialsOf } from './credentials';
import { InvalidToken, JwtSettings, JwtVerifier } from './jwt-verifier';
import { API_TOKEN_ACTOR, Principal, setPrincipal } from './principal';

export interface AccessSettings {
  /** API_TOKEN: its bearer may do everything. */
  apiToken?: string;
  /** OpenID Connect tokens (AUTH_ISSUER / AUTH_JWKS_URL, AUTH_AUDIENCE). */
  jwt?: JwtSettings;
  collections: readonly ProtectedCollection[];
  /** AUTH_READS=required. */
  readsRequired: boolean;
}

/** Seconds a client is told to wait when the issuer's keys cannot be fetched. */
const KEYS_RETRY_AFTER = 5;

/** What `identify` found, for `enforce`. */
type Outcome =
  | { kind: 'none' }
  | { kind: 'principal'; principal: Principal }
  | { kind: 'invalid'; description: string }
  | { kind: 'unavailable'; reason: string };

const NONE: Outcome = { kind: 'none' };
const OUTCOME = Symbol('access outcome');
type Identified = Request & { [OUTCOME]?: [Requirement | undefined, Outcome] };

const API_TOKEN_PRINCIPAL: Principal = {
  actor: API_TOKEN_ACTOR,
  by: 'api-token',
  scopes: new Set([ALL_READ, ALL_WRITE, WEBHOOKS_ADMIN]),
};

export class AccessControl {
  readonly rules: AccessRules;
  readonly verifier?: JwtVerifier;
  private readonly apiToken?: Buffer;

  constructor(
    readonly settings: AccessSettings,
    /** Warnings (the issuer's keys cannot be fetched) go here. */
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.rules = new AccessRules(settings.collections, settings.readsRequired);
    if (settings.jwt) this.verifier = new JwtVerifier(settings.jwt);
    if (settings.apiToken) this.apiToken = digest(settings.apiToken);
  }

  /** Whether anything is protected at all: without, no middleware is installed. */
  static configured(settings: Omit<AccessSettings, 'collections'>): boolean {
    return settings.apiToken !== undefined || settings.jwt !== undefined;
  }

  /**
   * Finds who the request is from. A route that needs nothing verifies a token only when
   * `always` (the rate limiter counts by `sub`); there a bad token is ignored, not refused.
   */
  identify(always: boolean) {
    return (req: Request, res: Response, next: NextFunction): void => {
      const requirement = this.rules.requirementOf(req.method, req.path);
      if (!requirement && !always) return next();
      const credentials = credentialsOf(req);
      if (credentials.kind === 'none') {
        (req as Identified)[OUTCOME] = [requirement, NONE];
        return next();
      }
      if (credentials.kind === 'malformed') {
        (req as Identified)[OUTCOME] = [
          requirement,
          { kind: 'invalid', description: credentials.description },
        ];
        return next();
      }
      const token = credentials.token;
      if (this.apiToken && timingSafeEqual(digest(token), this.apiToken)) {
        setPrincipal(req, API_TOKEN_PRINCIPAL);
        (req as Identified)[OUTCOME] = [
          requirement,
          { kind: 'principal', principal: API_TOKEN_PRINCIPAL },
        ];
        return next();
      }
      if (!this.verifier || !looksLikeJwt(token)) {
        (req as Identified)[OUTCOME] = [
          requirement,
          { kind: 'invalid', description: 'the token is not valid' },
        ];
        return next();
      }
      this.verifier.verify(token).then(
        (verified) => {
          const principal: Principal = {
            actor: verified.subject,
            by: 'token',
            scopes: verified.scopes,
          };
          setPrincipal(req, principal);
          (req as Identified)[OUTCOME] = [requirement, { kind: 'principal', principal }];
          next();
        },
        (error: Error) => {
          const outcome: Outcome =
            error instanceof InvalidToken
              ? { kind: 'invalid', description: error.message }
              : { kind: 'unavailable', reason: error.message };
          if (outcome.kind === 'unavailable' && requirement) {
            this.warn(
              `bearer token not verified: the issuer's keys cannot be had (${error.message})`,
            );
          }
          (req as Identified)[OUTCOME] = [requirement, outcome];
          next();
        },
      );
    };
  }

  /** Refuses what the request's principal may not do; lets everything else through. */
  enforce() {
    return (req: Request, res: Response, next: NextFunction): void => {
      const found = (req as Identified)[OUTCOME];
      if (!found || !found[0]) return next();
      const [requirement, outcome] = found;
      switch (outcome.kind) {
        case 'principal':
          if (requirement.deferred || grants(outcome.principal.scopes, requirement)) return next();
          return sendError(
            res,
            403,
            { message: requirement.forbidden },
            forbiddenHeaders(requirement),
          );
        case 'none':
          return sendError(
            res,
            401,
            { message: requirement.unauthenticated },
            { 'WWW-Authenticate': 'Bearer realm="records"' },
          );
        case 'invalid':
          return sendError(
            res,
            401,
            {
              message: `${requirement.unauthenticated.slice(0, -1)}; this one is refused: ${outcome.description}.`,
            },
            {
              'WWW-Authenticate': `Bearer realm="records", error="invalid_token", error_description="${outcome.description}"`,
            },
          );
        case 'unavailable':
          return sendError(
            res,
            503,
            {
              message:
                "The identity provider's keys cannot be fetched just now, so the token cannot be checked; try again shortly.",
            },
            { 'Retry-After': String(KEYS_RETRY_AFTER) },
          );
      }
    };
  }
}

/** The `WWW-Authenticate` of a 403: the scope the request needs (RFC 6750). */
export function forbiddenHeaders(requirement: Requirement): Record<string, string> {
  return {
    'WWW-Authenticate':
      `Bearer realm="records", error="insufficient_scope", ` +
      `error_description="the token lacks the scope this request needs", ` +
      `scope="${requirement.scopes[0]}"`,
  };
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Three base64url parts: only such a token goes to the verifier. */
function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
}
