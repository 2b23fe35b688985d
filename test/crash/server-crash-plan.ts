/**
 * What the server crash test and its driver process agree on: the bearer
 * token of the customer who sends the messages, and the header that marks
 * the request whose handling the driver counts crash points in.
 */
import type { AuthConfig } from '../../src/server/auth-config.js';

export const crashCustomerToken = 'server-crash-customer-token-0123456789abcdef';

/** One customer of tenant `shop` (the shop's `C1001`, who owns `SO20260901`). */
export const crashAuth: AuthConfig = {
  tokens: [{ token: crashCustomerToken, tenantId: 'shop', userId: 'C1001', roles: ['customer'] }],
};

/** A request with this header arms the driver: from its arrival on, every crash point counts. */
export const armHeader = 'x-crash-arm';

/** The message of each trial: the scripted shop chat answers it with two reads (the order, its shipment). */
export const victimMessage = 'Where is my order SO20260901?';

/** The message that shows a recovered session takes new messages. */
export const followUpMessage = 'And where is my parcel now?';
