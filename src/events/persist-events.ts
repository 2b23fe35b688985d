import type { Locale } from '../core/locale.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { batchDeltas } from './batch-deltas.js';
import { createEventProjector } from './create-event-projector.js';
import type { EventBus, Subscription } from './event-bus.js';
import type { EventLog } from './event-log.js';

/**
 * Subscribes the event log to a bus: every event, projected (nothing
 * sensitive), is appended as it happens, with deltas merged per
 * `deltaWindowMs` so an answer is a few rows, not one per token. Its queue
 * is larger than a screen's, so a burst does not cost the log its progress
 * events; should the log still fall behind, the `gap` it gets is written too.
 * Returns the subscription; call it to stop.
 *
 * @example
 * const log = new SqliteEventLog({ database: store.database });
 * const stop = persistEvents({ bus, log, tools: registry });
 * await runAgent({ model, tools: registry, messages, events: bus });
 * await stop.idle();
 */
export function persistEvents({
  bus,
  log,
  tools,
  locale = 'en',
  queueSize = 10_000,
  deltaWindowMs = 50,
}: {
  bus: EventBus;
  log: EventLog;
  tools?: Pick<ToolSet, 'get'>;
  locale?: Locale;
  queueSize?: number;
  deltaWindowMs?: number;
}): Subscription {
  const project = createEventProjector({ locale, ...(tools === undefined ? {} : { tools }) });
  const listener = batchDeltas((event) => log.append([project(event)]), {
    windowMs: deltaWindowMs,
    onError: (error, event) => bus.reportListenerError(error, event),
  });
  const subscription = bus.subscribe(listener, { queueSize });
  return Object.assign(
    () => {
      subscription();
      void listener.flush();
    },
    {
      stats: () => subscription.stats(),
      idle: async () => {
        await subscription.idle();
        await listener.flush();
      },
    },
  );
}
