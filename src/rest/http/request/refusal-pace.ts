/**
 * The pace at which one peer's refused bodies are answered (REFUSED_BODY_RATE, 20 a second by
 * default). A body refused while it arrives (past 1 MiB, or past a limit of its JSON or XML) costs
 * the service a connection, its headers, a chunk's scan and an answer, about what a small request
 * costs; a sender that sends such bodies in a loop, as fast as they are answered, would still
 * hold the one event loop most of the time. So a peer gets its refusals answered at once up to the
 * rate (in a burst of as many), and each one past it when its turn comes: its connection is read
 * no further meanwhile, so the wait costs nothing, and the sender's loop runs at the rate. Other
 * clients, and the peer's own requests that are not refused, are not slowed at all.
 *
 * A turn further than MAX_WAIT_MS away is not waited for: the connection is closed at once,
 * without an answer (a peer that far over has many connections open at once).
 *
 * The generic cell rate algorithm: per peer, the time its next refusal would be answered at the
 * rate (its "theoretical arrival time"), forgotten once passed. Per process: each worker of
 * WEB_CONCURRENCY, and each instance, paces on its own.
 */
/** So many refusals a window, at once; past them, one every window / limit. */
export interface RefusalRate {
  limit: number;
  windowSeconds: number;
}

/** The longest a refusal waits for its turn; past it, the connection is closed unanswered. */
export const MAX_WAIT_MS = 10_000;
/** Peers remembered at most; past it, those with no turn ahead are forgotten first. */
const MAX_PEERS = 10_000;

export class RefusalPace {
  /** Per peer: when its next refusal would be answered at the rate (ms, `now()`'s clock). */
  private readonly due = new Map<string, number>();
  private readonly interval: number;
  private readonly burst: number;

  constructor(
    rate: RefusalRate,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.interval = (rate.windowSeconds * 1000) / rate.limit;
    // `limit` refusals at once, then one every `interval`.
    this.burst = rate.windowSeconds * 1000 - this.interval;
  }

  /**
   * How long (ms) the refusal of a body from `peer` waits before it is answered: 0 within the
   * rate, or undefined when its turn is more than MAX_WAIT_MS away (not counted then).
   */
  wait(peer: string): number | undefined {
    const now = this.now();
    const due = Math.max(this.due.get(peer) ?? now, now);
    const wait = due - this.burst - now;
    if (wait > MAX_WAIT_MS) return undefined;
    // Set again, not updated: the map's order stays that of the peers' last refusals.
    this.due.delete(peer);
    this.due.set(peer, due + this.interval);
    if (this.due.size > MAX_PEERS) this.forget(now);
    return Math.max(0, wait);
  }

  /** Forgets the peers whose turns have passed, then, if still too many, the longest unseen. */
  private forget(now: number): void {
    for (const [peer, due] of this.due) if (due <= now) this.due.delete(peer);
    for (const peer of this.due.keys()) {
      if (this.due.size <= MAX_PEERS / 2) break;
      this.due.delete(peer);
    }
  }
}
