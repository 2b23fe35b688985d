import { describe, expect, it } from 'vitest';
import { AiSdkFailures } from './ai-sdk-failures.js';

const failures = new AiSdkFailures({ provider: 'anthropic.messages', model: 'claude-sonnet-4-5' });

/** An `APICallError` as the provider utilities build it (recognised by name, not by class). */
function apiCallError(fields: Record<string, unknown>) {
  return Object.assign(new Error(String(fields['message'] ?? 'failed')), { name: 'AI_APICallError', ...fields });
}

describe('AiSdkFailures', () => {
  it('keeps keys, tokens, URL secrets and the request body out of the message, and holds no cause', () => {
    const error = failures.toModelError(
      apiCallError({
        statusCode: 400,
        url: 'https://user:pass@api.example.com/v1/messages?key=AIzaSyD-secret-google-key-0123456789',
        message:
          'bad request for sk-ant-api03-secret-key-0123456789 (Authorization: Bearer eyJhbGciOi.secret) at https://api.example.com/v1?key=AIzaSyD-secret-google-key-0123456789',
        requestBodyValues: { messages: [{ role: 'user', content: 'my card is 4111 1111 1111 1111' }] },
        responseHeaders: {},
      }),
    );
    expect(error).toMatchObject({ kind: 'request', status: 400, endpoint: 'https://api.example.com/v1/messages' });
    expect(error.message).toBe(
      'the provider rejected the request (400) at anthropic.messages https://api.example.com/v1/messages, model claude-sonnet-4-5: bad request for [redacted] (Authorization: [redacted]) at https://api.example.com/v1',
    );
    expect(error.cause).toBeUndefined();
  });

  it('reads Retry-After as seconds, as an HTTP date, or from retry-after-ms', () => {
    const now = Date.now();
    const retryAfterOf = (headers: Record<string, string>) =>
      failures.toModelError(apiCallError({ statusCode: 429, responseHeaders: headers })).retryAfterMs;
    expect(retryAfterOf({ 'retry-after': '4' })).toBe(4000);
    expect(retryAfterOf({ 'retry-after-ms': '1500' })).toBe(1500);
    expect(retryAfterOf({ 'retry-after': new Date(now + 60_000).toUTCString() })).toBeGreaterThan(55_000);
    expect(retryAfterOf({ 'retry-after': 'soon' })).toBeUndefined();
  });

  it('classifies a missing key, an unreadable stream and an error event by its type', () => {
    const missingKey = Object.assign(new Error('Anthropic API key is missing. Pass it using the apiKey parameter.'), {
      name: 'AI_LoadAPIKeyError',
    });
    expect(failures.toModelError(missingKey).kind).toBe('authentication');
    const unreadable = Object.assign(new Error('JSON parsing failed: Text: {"secret":"…'), {
      name: 'AI_JSONParseError',
    });
    const response = failures.toModelError(unreadable);
    expect(response.kind).toBe('response');
    expect(response.message).not.toContain('secret');
    expect(failures.toModelError({ type: 'rate_limit_error', message: 'slow down' }).kind).toBe('rate_limited');
    expect(failures.toModelError({ type: 'invalid_request_error', message: 'no' }).kind).toBe('request');
  });
});
