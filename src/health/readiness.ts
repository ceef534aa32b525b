/**
 * A part of the service that adds its state to `/health/ready`'s details without making the
 * service unready (the webhooks: how many subscriptions, how far behind): one optional provider,
 * given by a global module.
 */
export const READINESS_DETAILS = Symbol('READINESS_DETAILS');

export interface ReadinessDetails {
  /** The key of its entry (`webhooks`). */
  name: string;
  /** Its entry, or undefined when it has nothing to tell (no subscription at all). */
  details(): Promise<Record<string, unknown> | undefined>;
}
