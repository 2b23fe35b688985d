import type { InboxItem } from '../desk-inbox.js';

/** One `inbox` event of `GET /v1/desk/inbox/events`. */
export interface InboxSnapshot {
  readonly now: string;
  readonly approvals: readonly InboxItem[];
  /** When the test received it (ms since the epoch). */
  readonly receivedAt: number;
}

/** An open inbox feed: every snapshot so far, a wait for one that matches, and the close. */
export interface InboxStream {
  readonly status: number;
  readonly snapshots: readonly InboxSnapshot[];
  /** Resolves with the latest snapshot once it matches. */
  waitFor(match: (snapshot: InboxSnapshot) => boolean, timeoutMs?: number): Promise<InboxSnapshot>;
  close(): void;
}

/**
 * Opens an approver's live inbox (`GET /v1/desk/inbox/events`) and keeps
 * reading it until `close`.
 *
 * @example
 * const inbox = await openInboxStream({ url: server.url, token });
 * await inbox.waitFor((snapshot) => snapshot.approvals.length === 1);
 */
export async function openInboxStream({ url, token }: { url: string; token: string }): Promise<InboxStream> {
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/desk/inbox/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  const snapshots: InboxSnapshot[] = [];
  const waiters = new Set<() => void>();
  if (response.ok && response.body !== null) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      let buffer = '';
      let name = 'message';
      let data: string[] = [];
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          let newline = buffer.indexOf('\n');
          while (newline >= 0) {
            const line = buffer.slice(0, newline).replace(/\r$/, '');
            buffer = buffer.slice(newline + 1);
            newline = buffer.indexOf('\n');
            if (line === '') {
              if (name === 'inbox' && data.length > 0) {
                snapshots.push({
                  ...(JSON.parse(data.join('\n')) as Omit<InboxSnapshot, 'receivedAt'>),
                  receivedAt: Date.now(),
                });
                for (const wake of waiters) wake();
              }
              name = 'message';
              data = [];
            } else if (line.startsWith('event:')) {
              name = line.slice(6).trim();
            } else if (line.startsWith('data:')) {
              data.push(line.slice(5).replace(/^ /, ''));
            }
          }
        }
      } catch {
        // closed
      }
    })();
  } else {
    await response.body?.cancel();
  }
  return {
    status: response.status,
    snapshots,
    waitFor: (match, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = snapshots.at(-1);
          if (found === undefined || !match(found)) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(found);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no matching inbox snapshot in ${timeoutMs} ms; last: ${JSON.stringify(snapshots.at(-1))}`));
        }, timeoutMs);
        if (!check()) waiters.add(wake);
      }),
    close: () => controller.abort(),
  };
}
