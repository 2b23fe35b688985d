import { describe, expect, it } from 'vitest';
import { tokenizeForSearch } from './tokenize-for-search.js';

describe('tokenizeForSearch', () => {
  it('splits snake_case, kebab-case and camelCase identifiers into lower-case words', () => {
    expect(tokenizeForSearch('track_shipment update-payment-method getHTTPStatus')).toEqual([
      'track',
      'shipment',
      'update',
      'payment',
      'method',
      'http',
      'status',
    ]);
  });

  it('drops common words and identifiers full of digits, and meets plural and past forms with their stem', () => {
    expect(tokenizeForSearch('Please cancel my orders SO20260901 and the cancelled bookings')).toEqual([
      'cancel',
      'order',
      'cancel',
      'book',
    ]);
    expect(tokenizeForSearch('calls called calling')).toEqual(['call', 'call', 'call']);
  });

  it('turns Chinese runs into character bigrams and keeps a lone character', () => {
    expect(tokenizeForSearch('查询订单')).toEqual(['查询', '询订', '订单']);
    expect(tokenizeForSearch('退 款')).toEqual(['退', '款']);
    expect(tokenizeForSearch('我要退款 refund')).toEqual(['我要', '要退', '退款', 'refund']);
  });

  it('returns nothing for text without words (a number of three digits or more is no word)', () => {
    expect(tokenizeForSearch('')).toEqual([]);
    expect(tokenizeForSearch('?!… 123 -- 🙂')).toEqual([]);
    expect(tokenizeForSearch('2fa')).toEqual(['2fa']);
  });
});
