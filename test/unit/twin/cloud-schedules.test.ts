import { describe, expect, it } from 'vitest';
import { cronMinuteDue } from '../../../twin/cloud/runner';

describe("the cloud lane's reading of a cron() schedule", () => {
  const at = (iso: string) => new Date(iso);

  it('fires a daily schedule in its hour and minute only', () => {
    expect(cronMinuteDue('30 4 * * ? *', at('2026-12-07T04:30:12Z'))).toBe('2026-12-07T04:30');
    expect(cronMinuteDue('30 4 * * ? *', at('2026-12-07T05:30:12Z'))).toBeUndefined();
    expect(cronMinuteDue('30 4 * * ? *', at('2026-12-07T04:31:00Z'))).toBeUndefined();
  });

  it('fires an every-minute or stepped schedule in every hour', () => {
    expect(cronMinuteDue('* * * * ? *', at('2026-12-07T13:07:00Z'))).toBe('2026-12-07T13:07');
    expect(cronMinuteDue('0/15 * * * ? *', at('2026-12-07T13:45:00Z'))).toBe('2026-12-07T13:45');
    expect(cronMinuteDue('*/15 * * * ? *', at('2026-12-07T13:44:00Z'))).toBeUndefined();
    expect(cronMinuteDue('0,30 */6 * * ? *', at('2026-12-07T12:30:00Z'))).toBe('2026-12-07T12:30');
    expect(cronMinuteDue('0,30 */6 * * ? *', at('2026-12-07T13:30:00Z'))).toBeUndefined();
  });

  it('says it does not read a day, month or weekday field, or a malformed one', () => {
    expect(cronMinuteDue('0 4 1 * ? *', at('2026-12-01T04:00:00Z'))).toBeNull();
    expect(cronMinuteDue('0 4 ? * MON *', at('2026-12-07T04:00:00Z'))).toBeNull();
    expect(cronMinuteDue('0-5 4 * * ? *', at('2026-12-07T04:00:00Z'))).toBeNull();
    expect(cronMinuteDue('0 4 * * ?', at('2026-12-07T04:00:00Z'))).toBeNull();
  });
});
