import type { AgentCard, AgentInterface } from '@a2a-js/sdk';

/** The protocol bindings arbiter's client speaks (through the SDK), by their names on a card. */
const spoken = new Set(['JSONRPC', 'HTTP+JSON']);

/** Where a mounted agent's calls go: the one interface of its card that arbiter uses. */
export type A2aEndpoint = Pick<AgentInterface, 'url' | 'protocolBinding' | 'protocolVersion' | 'tenant'>;

/**
 * Picks the interface of an Agent Card that calls go to: the first one at
 * an allowed origin (`origins`: the card URL's own and the entry's
 * `allowedOrigins`) in a binding arbiter speaks (JSON-RPC or HTTP+JSON),
 * one of protocol version 1.0 before another. `refused` lists the
 * interfaces left out for their origin (or an URL that is not http(s)).
 * Nothing is picked when none is left: the agent is not mounted.
 *
 * @example
 * const { endpoint } = chooseA2aEndpoint({ card, origins: new Set(['https://billing.example.com']) });
 */
export function chooseA2aEndpoint({ card, origins }: { card: AgentCard; origins: ReadonlySet<string> }): {
  endpoint: A2aEndpoint | undefined;
  refused: readonly string[];
} {
  const refused: string[] = [];
  const usable: A2aEndpoint[] = [];
  for (const offered of card.supportedInterfaces ?? []) {
    if (typeof offered?.url !== 'string' || !spoken.has(String(offered.protocolBinding).toUpperCase())) continue;
    const url = URL.canParse(offered.url) ? new URL(offered.url) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || !origins.has(url.origin)) {
      refused.push(offered.url);
      continue;
    }
    usable.push({
      url: url.href,
      protocolBinding: String(offered.protocolBinding).toUpperCase(),
      protocolVersion: String(offered.protocolVersion ?? ''),
      tenant: String(offered.tenant ?? ''),
    });
  }
  return { endpoint: usable.find((each) => each.protocolVersion === '1.0') ?? usable[0], refused };
}
