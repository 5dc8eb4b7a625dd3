import { describe, expect, it } from 'vitest';
import {
  ActionRefusedError,
  EffectError,
  EffectTimeoutError,
  mayHaveReachedProvider,
  ResponseLostError,
  TransportError,
} from '../../../src/effects/effect-errors.ts';

describe('mayHaveReachedProvider', () => {
  it('holds for transport errors, lost responses, timeouts, unclassified errors and the retryable INTERNAL fallback', () => {
    for (const error of [
      new TransportError('reset'),
      new TransportError('down', 'UNAVAILABLE'),
      new ResponseLostError(),
      new EffectTimeoutError('slow'),
      new Error('socket closed'),
      'a string',
      new EffectError('INTERNAL', 'the result did not parse', true),
    ])
      expect(mayHaveReachedProvider(error)).toBe(true);
  });

  it('does not hold for an answer of the provider', () => {
    for (const error of [
      new ActionRefusedError('fenced'),
      new EffectError('RATE_LIMITED', 'slow down', true),
      new EffectError('INTERNAL', 'not in the catalogue', false),
      new EffectError('CONFLICT', 'mismatch', false),
    ])
      expect(mayHaveReachedProvider(error)).toBe(false);
  });
});
