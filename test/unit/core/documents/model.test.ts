import { describe, expect, it } from 'vitest';
import { allowedFrom, documentStates, nextStepFor, type DocumentAction } from '#core/documents/model';

describe('the next step a refused document action names', () => {
  it('says to validate first when approving an uploaded document', () => {
    expect(nextStepFor('approve', 'uploaded', 7)).toBe('Validate it first (PUT /api/v1/transport/documents/7/validate), then approve it.');
  });

  it('names a step for every review refused from a state the workflow has', () => {
    for (const action of ['validate', 'approve', 'reject'] as DocumentAction[]) {
      for (const state of documentStates.filter((s) => !allowedFrom[action].includes(s))) {
        expect(nextStepFor(action, state, 1), `${action} from ${state}`).toBeTruthy();
      }
    }
  });
});
