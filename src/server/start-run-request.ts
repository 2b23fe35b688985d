import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { Session } from '../store/session-store.js';

/** What a route asks of the run manager to start a run (`RunManager.start`). */
export interface StartRunRequest {
  readonly sessionId: string;
  readonly principal: Principal;
  readonly content: string;
  readonly locale: Locale;
  /** The session as the caller has just read it; read again here when absent. */
  readonly session?: Session | undefined;
}
