import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { claimOf } from '../../src/engine/principal.ts';

const limit = z.number().min(0);

describe('claimOf', () => {
  it('reads a claim of the token through its schema', () => {
    expect(claimOf({ claims: { approvalLimit: 500 } }, 'approvalLimit', limit)).toBe(500);
    expect(claimOf({ claims: { approvalLimit: 0 } }, 'approvalLimit', limit)).toBe(0);
  });

  it('grants nothing for a claim that is missing or malformed, and never throws', () => {
    expect(claimOf({}, 'approvalLimit', limit)).toBeNull();
    expect(claimOf({ claims: {} }, 'approvalLimit', limit)).toBeNull();
    expect(claimOf({ claims: { approvalLimit: '500' } }, 'approvalLimit', limit)).toBeNull();
    expect(claimOf({ claims: { approvalLimit: -1 } }, 'approvalLimit', limit)).toBeNull();
    // An inherited property is no claim of the token.
    expect(claimOf({ claims: Object.create({ approvalLimit: 9 }) as never }, 'approvalLimit', limit)).toBeNull();
  });
});
