/**
 * Bearer JWTs from an OpenID Connect issuer, verified with jose: the signature by a key of the
 * issuer's JWKS chosen by `kid` (asymmetric algorithms only, so `none` and HMAC tokens — an HMAC
 * "signed" with the public key included — are refused before any key is looked at), then `iss`,
 * `aud`, `exp` and `nbf` with 60 s of clock skew. jose's remote key set keeps the JWKS and fetches
 * it again for a `kid` it does not hold (at most once per cooldown, 30 s), so keys rotate without
 * a restart.
 *
 * The bound on a removed key (AUTH_JWKS_MAX_AGE, `maxAgeMs`, 10 minutes by default): a token is
 * checked against keys fetched at most that long ago (older, they are fetched again first), and
 * a verified token is kept (up to CACHE_SIZE of them, oldest out first) until it expires, or
 * until the keys it was checked with are that old, whichever comes first. So a key removed from
 * the JWKS stops verifying any token, new or already seen, within `maxAgeMs`; a client that sends
 * the same token on every request pays for one signature check per `maxAgeMs`, not one each.
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
export const DISCOVERY_RETRY_MS = 5000;
/** AUTH_JWKS_MAX_AGE's default: 10 minutes (jose's own default for its cache). */
export const DEFAULT_JWKS_MAX_AGE_MS = 600_000;
/**
 * Readiness asks the issuer again (its keys) when its last answer is older than this, or
 * DISCOVERY_RETRY_MS after a failure: at most one request per instance that often.
 */
export const CONTACT_FRESH_MS = 30_000;

/** Where the issuer stands, as readiness tells it. */
export interface IssuerState {
  /** Whether it answered the last time it was asked (discovery and keys). */
  reachable: boolean;
  /** Why not, and what it means for tokens, in the service's words. */
  problem?: string;
}

export interface JwtSettings {
  /** AUTH_ISSUER: checked against `iss`; its discovery document names the JWKS. */
  issuer?: string;
  /** AUTH_JWKS_URL: the key set (without it, the issuer's discovery document names it). */
  jwksUrl?: string;
  /** AUTH_AUDIENCE: a token's `aud` must name one of them. */
  audience: string[];
  /** Milliseconds between two fetches of the JWKS for an unknown `kid` (30 s by default). */
  cooldownMs?: number;
  /**
   * AUTH_JWKS_MAX_AGE: the oldest the keys may be when a token is checked, and the longest a
   * verified token is remembered, in milliseconds (DEFAULT_JWKS_MAX_AGE_MS by default).
   */
  maxAgeMs?: number;
  /** The clock (a test's seam): Date.now by default. */
  now?: () => number;
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
  /** When the keys were last fetched (by `fresh`), on `now`'s clock; 0: not yet. */
  private keysFetchedAt = 0;
  /** The last time the issuer was asked for its keys, and why it failed, if it did. */
  private contact?: { at: number; problem?: string };
  /** Readiness's request to the issuer, while one runs. */
  private asking?: Promise<void>;
  private discovery?: Promise<RemoteJWKSet>;
  private discoveryFailedAt = 0;
  private discoveryFailure = '';
  private readonly cache = new Map<string, Cached>();
  private readonly options: Parameters<typeof jwtVerify>[2];
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(private readonly settings: JwtSettings) {
    this.maxAgeMs = settings.maxAgeMs ?? DEFAULT_JWKS_MAX_AGE_MS;
    this.now = settings.now ?? Date.now;
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
    await this.reload();
  }

  /**
   * Readiness: whether the issuer answered when last asked for its keys, asking it again first
   * (waiting up to `waitMs`) when that answer is older than CONTACT_FRESH_MS, or
   * DISCOVERY_RETRY_MS after a failure. An issuer out of reach is told, not failed: tokens
   * already verified, and every request that needs no token, are still served.
   */
  async issuerState(waitMs: number): Promise<IssuerState> {
    const last = this.contact;
    const due =
      !last || this.now() - last.at >= (last.problem ? DISCOVERY_RETRY_MS : CONTACT_FRESH_MS);
    if (due) {
      this.asking ??= this.reload()
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => (this.asking = undefined));
      let timer: NodeJS.Timeout | undefined;
      const answered = await Promise.race([
        this.asking.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
      ]).finally(() => clearTimeout(timer));
      if (!answered) {
        return {
          reachable: false,
          problem: `the issuer did not answer within ${waitMs} ms${CONSEQUENCE}`,
        };
      }
    }
    const now = this.contact!;
    return now.problem ? { reachable: false, problem: now.problem } : { reachable: true };
  }

  /** Fetches the keys (discovering where first, if need be), noting the issuer's answer. */
  private async reload(): Promise<RemoteJWKSet> {
    const at = this.now();
    try {
      const keys = await this.keySet();
      await keys.reload();
      this.keysFetchedAt = at;
      this.contact = { at };
      return keys;
    } catch (error) {
      const failure = error instanceof KeysUnavailable ? error : describe(error);
      this.contact = { at, problem: `${failure.message}${CONSEQUENCE}` };
      throw failure;
    }
  }

  /** The key set, fetched again first when it is `maxAgeMs` old; when it was fetched. */
  private async fresh(): Promise<{ keys: RemoteJWKSet; fetchedAt: number }> {
    const keys =
      this.now() - this.keysFetchedAt >= this.maxAgeMs ? await this.reload() : await this.keySet();
    return { keys, fetchedAt: this.keysFetchedAt };
  }

  /** The principal of a valid token; InvalidToken or KeysUnavailable otherwise. */
  async verify(token: string): Promise<TokenPrincipal> {
    const cached = this.cache.get(token);
    if (cached) {
      if (this.now() < cached.until) return cached.principal;
      this.cache.delete(token);
    }
    const { keys, fetchedAt } = await this.fresh();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, this.options));
    } catch (error) {
      throw describe(error);
    }
    const principal: TokenPrincipal = { subject: payload.sub!, scopes: scopesOf(payload) };
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    const expires = (payload.exp! + CLOCK_SKEW_SECONDS) * 1000;
    this.cache.set(token, { principal, until: Math.min(expires, fetchedAt + this.maxAgeMs) });
    return principal;
  }

  private remoteKeys(url: string): RemoteJWKSet {
    return createRemoteJWKSet(new URL(url), {
      cooldownDuration: this.settings.cooldownMs ?? 30_000,
      // `fresh` fetches them again at maxAgeMs; jose's own bound is the same.
      cacheMaxAge: this.maxAgeMs,
      timeoutDuration: 5000,
    });
  }

  /** The key set: at once with AUTH_JWKS_URL, else once the discovery document has named it. */
  private keySet(): Promise<RemoteJWKSet> {
    if (this.keys) return Promise.resolve(this.keys);
    if (!this.discovery) {
      if (this.now() - this.discoveryFailedAt < DISCOVERY_RETRY_MS) {
        return Promise.reject(new KeysUnavailable(this.discoveryFailure));
      }
      this.discovery = this.discover().then(
        (keys) => (this.keys = keys),
        (error: Error) => {
          this.discovery = undefined;
          this.discoveryFailedAt = this.now();
          this.discoveryFailure = error.message;
          throw new KeysUnavailable(error.message);
        },
      );
    }
    return this.discovery;
  }

  private async discover(): Promise<RemoteJWKSet> {
    const issuer = this.settings.issuer!;
    const url = JwtVerifier.discoveryUrl(issuer);
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    } catch (error) {
      throw new Error(`the issuer ${issuer} does not answer (${unreachable(error)})`);
    }
    if (!res.ok) throw new Error(`the issuer's discovery document ${url} answered ${res.status}`);
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      document = (await res.json()) as typeof document;
    } catch {
      throw new Error(`the issuer's discovery document ${url} is not JSON`);
    }
    // OpenID Connect Discovery §4.3: the document must name the issuer it was fetched for.
    if (document.issuer !== issuer) {
      throw new Error(`${url} names the issuer ${JSON.stringify(document.issuer)}, not ${issuer}`);
    }
    if (typeof document.jwks_uri !== 'string') throw new Error(`${url} names no jwks_uri`);
    return this.remoteKeys(document.jwks_uri);
  }
}

/** What readiness adds to an issuer's problem: what it means for the requests. */
const CONSEQUENCE =
  '; a token not verified before cannot be checked until it answers (503 with Retry-After)';

/** Why a fetch got no answer, in a few words: undici says "fetch failed", its cause says why. */
export function unreachable(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'no answer within 5 s';
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'no answer when connecting';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
  }
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
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
    return new KeysUnavailable("the issuer's JWKS did not answer within 5 s");
  if (error instanceof errors.JWKSInvalid)
    return new KeysUnavailable("the issuer's JWKS is not a key set");
  if (error instanceof errors.JOSEError) {
    return new KeysUnavailable(`the issuer's JWKS cannot be had (${error.message})`);
  }
  // A fetch that failed (refused, reset): the key set cannot be had just now.
  return new KeysUnavailable(`the issuer's JWKS does not answer (${unreachable(error)})`);
}
