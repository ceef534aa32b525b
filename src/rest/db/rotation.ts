/**
 * What read replicas (replicas.ts) and the nodes of a Galera cluster (galera.ts) have in common:
 * servers checked on a timer, in the background, and a round robin over those that may serve
 * reads. Each subclass says how a check goes and which servers are in the rotation.
 */
export abstract class CheckedRotation<T> {
  /** The servers that may serve reads now, set by the subclass after each change. */
  protected rotation: T[] = [];
  private turn = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly checkEveryMs: number) {}

  /** Checks every server once, and updates the rotation. */
  abstract checkAll(): Promise<void>;

  /** The next server of the rotation, or none (the caller reads from the primary or writer). */
  pick(): T | undefined {
    const rotation = this.rotation;
    if (rotation.length === 0) return undefined;
    if (this.turn >= rotation.length) this.turn = 0;
    return rotation[this.turn++];
  }

  /** Checks every server once, then again every `checkEveryMs`, until `stop`. */
  protected async startChecking(): Promise<void> {
    await this.checkAll();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.checkAll().finally(() => this.schedule());
    }, this.checkEveryMs);
    this.timer.unref();
  }
}
