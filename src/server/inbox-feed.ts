import type { ServerDependencies } from './server-env.js';

/**
 * Tells the desk's open inboxes when their tenant's pending approvals
 * change: asked by a run here or on another node, decided by another
 * approver, a CLI or another protocol. One poll of the store every
 * `pollMs` while anyone listens, whatever the backend (SQLite, or
 * PostgreSQL shared by many nodes), compared per tenant: a listener hears
 * only of its own tenant, and only when the set of pending approvals (or
 * their expiry) changed. `poke` polls at once (a decision made here).
 *
 * @example
 * const feed = new InboxFeed({ approvals, tenantOf, pollMs: 500, onError });
 * const stop = feed.subscribe('shop', () => sendInboxAgain());
 */
export class InboxFeed {
  readonly #approvals: ServerDependencies['approvals'];
  readonly #tenantOf: (runId: string) => Promise<string | undefined>;
  readonly #pollMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #listeners = new Map<string, Set<() => void>>();
  readonly #signatures = new Map<string, string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #polling = false;
  #again = false;

  constructor({
    approvals,
    tenantOf,
    pollMs = 500,
    onError,
  }: {
    approvals: ServerDependencies['approvals'];
    tenantOf: (runId: string) => Promise<string | undefined>;
    /** How often the store is read while an inbox is open. Default 500 ms. */
    pollMs?: number;
    onError: (error: unknown) => void;
  }) {
    this.#approvals = approvals;
    this.#tenantOf = tenantOf;
    this.#pollMs = pollMs;
    this.#onError = onError;
  }

  /** Calls `listener` whenever the pending approvals of `tenantId` change; returns the unsubscribe. */
  subscribe(tenantId: string | undefined, listener: () => void): () => void {
    const tenant = tenantId ?? '';
    let listeners = this.#listeners.get(tenant);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(tenant, listeners);
    }
    listeners.add(listener);
    this.#schedule();
    return () => {
      const current = this.#listeners.get(tenant);
      current?.delete(listener);
      if (current?.size === 0) {
        this.#listeners.delete(tenant);
        this.#signatures.delete(tenant);
      }
      if (this.#listeners.size === 0) this.close();
    };
  }

  /** Reads the store now instead of at the next tick. */
  poke(): void {
    if (this.#listeners.size === 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    void this.#poll();
  }

  /** Stops polling (listeners stay; a new subscription starts again). */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#polling || this.#listeners.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#poll();
    }, this.#pollMs);
    this.#timer.unref?.();
  }

  async #poll(): Promise<void> {
    if (this.#polling) {
      this.#again = true;
      return;
    }
    this.#polling = true;
    try {
      const pending = await this.#approvals.listApprovals({ status: 'pending' });
      const signatures = new Map<string, string[]>();
      for (const approval of pending) {
        const tenant = await this.#tenantOf(approval.runId);
        if (tenant === undefined || !this.#listeners.has(tenant)) continue;
        const parts = signatures.get(tenant) ?? [];
        parts.push(`${approval.approvalId}@${approval.expiresAt}`);
        signatures.set(tenant, parts);
      }
      for (const [tenant, listeners] of this.#listeners) {
        const signature = (signatures.get(tenant) ?? []).sort().join(',');
        if (this.#signatures.get(tenant) === signature) continue;
        this.#signatures.set(tenant, signature);
        // Every listener dedupes what it sends: hearing once too often costs a read, missing a change would cost the inbox.
        for (const listener of listeners) listener();
      }
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#polling = false;
      if (this.#again) {
        this.#again = false;
        void this.#poll();
      } else {
        this.#schedule();
      }
    }
  }
}
