/**
 * Bearer JWTs from an OpenID Connect issuer, verified with jose: the signature by a key of the
 * issuer's JWKS chosen by `kid` (asymmetric algorithms only, so `none` and HMAC tokens — an HMAC
 * "signed" with the public key included — are refused before any key is looked at), then `iss`,
 * `aud`, `exp` and `nbf` with 60 s of clock skew. jose's remote key set keeps the JWKS, fetches
 * it again for a `kid` it does not hold (at most once per cooldown, 30 s), and when it is older
 * than 10 minutes, so keys rotate without a restart.
 *
 * A verified token is kept (up to CACHE_SIZE of them, oldest out first) until it expires, so a
 * client that sends the same token on every request pays for one signature check, not one each.
 */
import {
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JWSAlgorithm,
  type JWTPayload,
  type RemoteJWKSet,
} from 'jose';

/** Asymmetric JWS algorithms (RFC 7518, RFC 8037): what an OpenID Connect issuer signs with. */
export const ALGORITHMS: JWSAlgorithm[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Seconds a clock may be off: `exp` and `nbf` are judged this much more leniently. */
export const CLOCK_SKEW_SECONDS = 60;
/** Verified tokens kept; past it the oldest goes. */
export const CACHE_SIZE = 10_000;
/** After a discovery document could not be fetched, how long before the next try. */
const DISCOVERY_RETRY_MS = 5000;

export interface JwtSettings {
  /** AUTH_ISSUER: checked against `iss`; its discovery document names the JWKS. */
  issuer?: string;
  /** AUTH_JWKS_URL: the key set (without it, the issuer's discovery document names it). */
  jwksUrl?: string;
  /** AUTH_AUDIENCE: a token's `aud` must name one of them. */
  audience: string[];
  /** Milliseconds between two fetches of the JWKS for an unknown `kid` (30 s by default). */
  cooldownMs?: number;
}

/** Who a verified token speaks for, and what it may do. */
export interface TokenPrincipal {
  subject: string;
  scopes: ReadonlySet<string>;
}

/** A token that is not acceptable: the reason goes to the client (`error_description`). */
export class InvalidToken extends Error {}

/** The keys could not be had (the issuer does not answer): a 503, not the client's fault. */
export class KeysUnavailable extends Error {}

interface Cached {
  principal: TokenPrincipal;
  /** Until when (ms since 1970) the token may still be taken, skew included. */
  until: number;
}

export class JwtVerifier {
  private keys?: RemoteJWKSet;
  private discovery?: Promise<RemoteJWKSet>;
  private discoveryFailedAt = 0;
  private readonly cache = new Map<string, Cached>();
  private readonly options: Parameters<typeof jwtVerify>[2];

  constructor(private readonly settings: JwtSettings) {
    this.options = {
      algorithms: ALGORITHMS,
      issuer: settings.issuer,
      audience: settings.audience,
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp', 'sub'],
    };
    if (settings.jwksUrl) this.keys = this.remoteKeys(settings.jwksUrl);
  }

  /** The discovery URL of the issuer (`openIdConnectUrl` of the OpenAPI document). */
  static discoveryUrl(issuer: string): string {
    return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  }

  /** Fetches the keys ahead of the first token; a failure is only reported (tried again later). */
  async warmUp(): Promise<void> {
    const keys = await this.keySet();
    await keys.reload();
  }

  /** The principal of a valid token; InvalidToken or KeysUnavailable otherwise. */
  async verify(token: string): Promise<TokenPrincipal> {
    const cached = this.cache.get(token);
    if (cached) {
      if (Date.now() < cached.until) return cached.principal;
      this.cache.delete(token);
    }
    const keys = await this.keySet();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, this.options));
    } catch (error) {
      throw describe(error);
    }
    const principal: TokenPrincipal = { subject: payload.sub!, scopes: scopesOf(payload) };
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(token, { principal, until: (payload.exp! + CLOCK_SKEW_SECONDS) * 1000 });
    return principal;
  }

  private remoteKeys(url: string): RemoteJWKSet {
    return createRemoteJWKSet(new URL(url), {
      cooldownDuration: this.settings.cooldownMs ?? 30_000,
      timeoutDuration: 5000,
    });
  }

  /** The key set: at once with AUTH_JWKS_URL, else once the discovery document has named it. */
  private keySet(): Promise<RemoteJWKSet> {
    if (this.keys) return Promise.resolve(this.keys);
    if (!this.discovery) {
      if (Date.now() - this.discoveryFailedAt < DISCOVERY_RETRY_MS) {
        return Promise.reject(
          new KeysUnavailable(`the issuer's discovery document cannot be fetched`),
        );
      }
      this.discovery = this.discover().then(
        (keys) => (this.keys = keys),
        (error: Error) => {
          this.discovery = undefined;
          this.discoveryFailedAt = Date.now();
          throw new KeysUnavailable(error.message);
        },
      );
    }
    return this.discovery;
  }

  private async discover(): Promise<RemoteJWKSet> {
    const issuer = this.settings.issuer!;
    const url = JwtVerifier.discoveryUrl(issuer);
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (!res.ok) throw new Error(`${url} answered ${res.status}`);
      document = (await res.json()) as typeof document;
    } catch (error) {
      throw new Error(`${url}: ${(error as Error).message}`);
    }
    // OpenID Connect Discovery §4.3: the document must name the issuer it was fetched for.
    if (document.issuer !== issuer) {
      throw new Error(`${url} names the issuer ${JSON.stringify(document.issuer)}, not ${issuer}`);
    }
    if (typeof document.jwks_uri !== 'string') throw new Error(`${url} names no jwks_uri`);
    return this.remoteKeys(document.jwks_uri);
  }
}

/** `scope` (space-separated, RFC 8693 / RFC 9068) or `scp` (a list, or space-separated). */
function scopesOf(payload: JWTPayload): ReadonlySet<string> {
  const raw = payload.scope ?? payload.scp;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(' ') : [];
  return new Set(list.filter((s): s is string => typeof s === 'string' && s !== ''));
}

/** A jose error as what the client is told; the key set's own failures as KeysUnavailable. */
function describe(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return new InvalidToken('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf':
        return new InvalidToken('the token is not valid yet');
      case 'iss':
        return new InvalidToken('the token was issued by another issuer');
      case 'aud':
        return new InvalidToken('the token is meant for another audience');
      default:
        return new InvalidToken(`the token's ${error.claim} claim is missing or wrong`);
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return new InvalidToken('the token is not signed with an accepted algorithm');
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new InvalidToken('the signature does not verify');
  }
  if (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return new InvalidToken('no key of the issuer matches the token');
  }
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSENotSupported
  ) {
    return new InvalidToken('the token is malformed');
  }
  if (error instanceof errors.JWKSTimeout)
    return new KeysUnavailable('the JWKS did not answer in time');
  if (error instanceof errors.JWKSInvalid) return new KeysUnavailable('the JWKS is not a key set');
  // A fetch that failed (refused, reset, not JSON): the key set cannot be had just now.
  return new KeysUnavailable(error instanceof Error ? error.message : String(error));
}
