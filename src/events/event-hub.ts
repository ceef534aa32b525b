/**
 * The read side of the feed on one instance: one shared reader that polls the positions past the
 * last one it saw (one query per tick, however many streams are open) and fans each batch out
 * to the open Server-Sent Event streams, each written once as text. A stream that resumes from
 * an older cursor first catches up with reads of its own, page by page, then joins the fan-out.
 *
 * A consumer that does not read is closed once more than `maxUnsent` bytes wait for it (the
 * socket's buffer), never buffered without bound. A comment line goes to every stream every
 * `heartbeatMs`. When the process drains (SIGTERM), every stream is ended: its client resumes
 * elsewhere with its last id.
 */
import type { Response } from 'express';
import { SLOW_CONSUMER } from '../observability/root-logger';
import { EventStore, StoredEvent } from './event-store';

export interface HubOptions {
  /** How often the shared reader polls while streams are open, in ms. */
  pollMs: number;
  /** How often a comment line goes to every stream, in ms (at most 15 000). */
  heartbeatMs: number;
  /** Bytes a stream may have unsent before it is closed. */
  maxUnsent: number;
  /** How long a stream catching up may wait for its client to read, in ms, before it is closed. */
  stallMs: number;
}

/** Events read per query, by the shared reader and by a stream catching up. */
export const READ_BATCH = 500;

export interface Stream {
  res: Response;
  /** Collections it wants; all when undefined. */
  collections?: ReadonlySet<string>;
  /** Highest position it has been given or skipped past. */
  seen: number;
  live: boolean;
  closed: boolean;
}

export class EventHub {
  private readonly streams = new Set<Stream>();
  /** Highest position the shared reader has fanned out; undefined while it is not running. */
  private head?: number;
  private starting?: Promise<number>;
  private poller?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;
  private polling = false;
  private stopping = false;

  constructor(
    private readonly store: EventStore,
    private readonly options: HubOptions,
    /** Whether the process is draining (SIGTERM): asked on every tick. */
    private readonly draining: () => boolean = () => false,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  get size(): number {
    return this.streams.size;
  }

  /** How often each stream gets a comment line, in ms (the feed's page tells it). */
  get heartbeatMs(): number {
    return this.options.heartbeatMs;
  }

  /**
   * Streams the events after `after` (the present when undefined) to `res`, whose headers this
   * sends. Resolves once the stream is live or closed.
   */
  async open(
    res: Response,
    after: number | undefined,
    collections?: ReadonlySet<string>,
  ): Promise<void> {
    const head = await this.start();
    const stream: Stream = { res, collections, seen: after ?? head, live: false, closed: false };
    this.streams.add(stream);
    res.once('close', () => this.close(stream));
    res.status(200);
    setStreamHeaders(res);
    res.flushHeaders();
    res.write(': events\n\n');
    await this.catchUp(stream);
  }

  /** Reads of the stream's own until it reaches the shared reader, then it joins the fan-out. */
  private async catchUp(stream: Stream): Promise<void> {
    const wanted = stream.collections ? [...stream.collections] : undefined;
    while (!stream.closed) {
      const through = this.head!;
      if (stream.seen >= through) {
        stream.live = true;
        return;
      }
      const events = await this.store.after(stream.seen, READ_BATCH, through, wanted);
      for (const event of events) {
        if (stream.closed) return;
        stream.seen = event.position;
        // At the client's pace: once the socket's buffer is full, it waits for the client to
        // take it (a batch of big events may hold many times maxUnsent), or is closed after
        // stallMs without taking anything.
        if (!this.send(stream, event, sseText(event), false)) {
          if (!(await drained(stream.res, this.options.stallMs))) {
            this.cut(stream);
            return;
          }
        }
      }
      if (stream.closed) return;
      if (events.length < READ_BATCH) stream.seen = through;
    }
  }

  private async start(): Promise<number> {
    if (this.head !== undefined) return this.head;
    this.starting ??= this.store.bounds().then(({ head }) => {
      this.head = head;
      this.starting = undefined;
      this.poller = setInterval(() => void this.poll(), this.options.pollMs);
      this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs);
      return head;
    });
    try {
      return await this.starting;
    } finally {
      this.starting = undefined;
    }
  }

  /** Told by this instance's sequencer: new positions, read them now rather than next tick. */
  nudge(): void {
    if (this.head !== undefined) void this.poll();
  }

  /** The shared reader: one query per tick, its events to every live stream. */
  async poll(): Promise<void> {
    if (this.polling || this.head === undefined) return;
    if (this.draining()) return this.endAll();
    if (this.streams.size === 0) return this.halt();
    this.polling = true;
    try {
      for (;;) {
        const events = await this.store.after(this.head, READ_BATCH);
        if (events.length === 0 || this.head === undefined) break;
        const texts = events.map(sseText);
        for (const stream of this.streams) {
          if (!stream.live) continue;
          events.forEach((event, i) => {
            if (event.position > stream.seen) this.send(stream, event, texts[i]);
          });
          stream.seen = Math.max(stream.seen, events[events.length - 1].position);
        }
        this.head = events[events.length - 1].position;
        if (events.length < READ_BATCH) break;
      }
    } catch (error) {
      this.onError(error);
    } finally {
      this.polling = false;
    }
  }

  /**
   * Writes `text` to the stream; false when the socket's buffer is full (wait for 'drain').
   * `bounded` (the fan-out): closed past maxUnsent; a stream catching up waits instead.
   */
  private send(stream: Stream, event: StoredEvent, text: string, bounded = true): boolean {
    if (stream.closed) return true;
    if (stream.collections && !stream.collections.has(event.collection)) return true;
    const flowing = stream.res.write(text);
    if (bounded && stream.res.writableLength > this.options.maxUnsent) {
      // It does not read: closed, not buffered without bound. It resumes with its last id.
      this.cut(stream);
    }
    return flowing;
  }

  private beat(): void {
    for (const stream of this.streams) {
      if (stream.closed) continue;
      stream.res.write(': heartbeat\n\n');
      // One catching up is paced by its own writes (it waits, or is closed after stallMs).
      if (stream.live && stream.res.writableLength > this.options.maxUnsent) this.cut(stream);
    }
  }

  /** A consumer that does not read, closed (its access line says so: SLOW_CONSUMER). */
  private cut(stream: Stream): void {
    stream.res.locals[SLOW_CONSUMER] = true;
    stream.res.destroy();
    this.close(stream);
  }

  private close(stream: Stream): void {
    stream.closed = true;
    this.streams.delete(stream);
  }

  /** Ends every stream (its client reconnects elsewhere) and stops the reader. */
  endAll(): void {
    this.stopping = true;
    for (const stream of [...this.streams]) {
      this.close(stream);
      stream.res.end();
    }
    this.halt();
  }

  /** No stream left: the reader stops until the next one opens. */
  private halt(): void {
    clearInterval(this.poller);
    clearInterval(this.heartbeat);
    this.poller = this.heartbeat = undefined;
    this.head = undefined;
  }

  get isStopping(): boolean {
    return this.stopping;
  }
}

/** An event as Server-Sent Events text: its id, its action as the event type, JSON data. */
export function sseText({ event }: StoredEvent): string {
  return `id: ${event.id}\nevent: ${event.action}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Whether `res` sent what it holds (or closed) within `ms`. */
function drained(res: Response, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (sent: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onDrain);
      resolve(sent);
    };
    const onDrain = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    res.once('drain', onDrain);
    res.once('close', onDrain);
  });
}

/** The headers of a stream (and of HEAD asking for one). */
export function setStreamHeaders(res: Response): void {
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  // no-transform: the compression middleware leaves the stream alone (it would buffer it).
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
}
