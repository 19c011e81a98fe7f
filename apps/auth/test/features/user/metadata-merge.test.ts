// Unit test for the user-metadata merge of PUT /user (features/user/user-update.ts).
import { describe, expect, it } from 'vitest';
import { mergeMetadata } from '../../../src/features/user/user-update.ts';

describe('metadata merge', () => {
  it('sets, overwrites, and deletes keys set to null', () => {
    expect(mergeMetadata({ a: 1, b: 2 }, { b: 3, c: 4, a: null })).toEqual({ b: 3, c: 4 });
  });
});
