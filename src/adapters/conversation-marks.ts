import type { Principal } from '../core/principal.js';
import { InfrastructureError } from '../errors/infrastructure-error.js';
import type { SessionStore } from '../store/session-store.js';

/** What the marks need of arbiter's sessions (`backend.sessions`, `server.sessions`). */
export type ConversationSessions = Pick<SessionStore, 'create' | 'load' | 'append'>;

/**
 * The egress guard's memory of an outside loop's conversation: which
 * untrusted sources arbiter has handed it content from, kept in arbiter's
 * sessions under the conversation's run id (`externalRunId`: loop, tenant,
 * user, conversation) as system messages marked `untrusted`, the way a
 * session of arbiter's own loop keeps them. Only arbiter writes them, from
 * what it returned; the history the client sends is never read, so a client
 * that leaves out or rewrites a tool result clears nothing. Messages are
 * only ever appended: a mark, once made, stays for the conversation's life
 * (until its session is purged). The store is read at each egress decision,
 * so a mark made by another request or another node counts at once.
 *
 * @example
 * const marks = new ConversationMarks({ sessions: backend.sessions, sessionId: runId, principal });
 * await marks.mark({ source: 'the web', tool: 'fetch_page', toolCallId: 'call_1' });
 * (await marks.sources()).has('the web'); // true
 */
export class ConversationMarks {
  readonly #sessions: ConversationSessions;
  readonly #sessionId: string;
  readonly #principal: Principal;

  constructor({
    sessions,
    sessionId,
    principal,
  }: {
    sessions: ConversationSessions;
    /** The conversation's run id: one session per loop, tenant, user and conversation. */
    sessionId: string;
    principal: Principal;
  }) {
    this.#sessions = sessions;
    this.#sessionId = sessionId;
    this.#principal = principal;
  }

  /** The untrusted sources the conversation holds content from, as the store has them now. */
  async sources(): Promise<ReadonlySet<string>> {
    const session = await this.#sessions.load(this.#sessionId);
    const sources = new Set<string>();
    if (session === undefined) return sources;
    this.#checkOwner(session);
    for (const message of session.messages)
      if (message.role === 'system' && message.untrusted !== undefined) sources.add(message.untrusted);
    return sources;
  }

  /** Records that arbiter handed the conversation content from `source` (once per source). */
  async mark({ source, tool, toolCallId }: { source: string; tool: string; toolCallId: string }): Promise<void> {
    const session = await this.#sessions.load(this.#sessionId);
    if (session === undefined) {
      try {
        await this.#sessions.create({ sessionId: this.#sessionId, principal: this.#principal });
      } catch (error) {
        // Another request of the conversation created it first.
        const raced = await this.#sessions.load(this.#sessionId);
        if (raced === undefined) throw error;
        this.#checkOwner(raced);
      }
    } else {
      this.#checkOwner(session);
      if (session.messages.some((message) => message.role === 'system' && message.untrusted === source)) return;
    }
    await this.#sessions.append({
      sessionId: this.#sessionId,
      messages: [
        {
          role: 'system',
          content: `arbiter: content from ${source} entered this conversation (${tool}, call ${toolCallId}); egress calls wait for a person.`,
          untrusted: source,
        },
      ],
    });
  }

  #checkOwner(session: { readonly tenantId: string | undefined; readonly userId: string | undefined }): void {
    if (session.tenantId === this.#principal.tenantId && session.userId === this.#principal.userId) return;
    // Ids are derived from the principal and never created by a client: another owner is a fault, not a mark to trust.
    throw new InfrastructureError({
      message: `the conversation's session ${this.#sessionId} belongs to another principal`,
    });
  }
}
