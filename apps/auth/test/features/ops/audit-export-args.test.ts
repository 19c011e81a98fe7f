// `npm run audit-log -- export`: its window arguments, refused with one clear line when wrong (the
// export itself runs in test/features/admin/admin-cli-pdpl.test.ts).
import { describe, expect, it } from 'vitest';
import { parseExportArgs } from '../../../src/features/ops/audit-log.cli.ts';

describe('audit-log export: its arguments', () => {
  it('takes an ISO window and refuses anything else', () => {
    expect(
      parseExportArgs(['--from', '2026-01-01', '--to', '2026-01-02T00:00:00Z', '--out', 'f.jsonl']),
    ).toEqual({
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-01-02T00:00:00Z'),
      out: 'f.jsonl',
    });
    expect(() => parseExportArgs(['--from', 'yesterday', '--to', '2026-01-02'])).toThrow(
      /--from: not an ISO date/,
    );
    expect(() => parseExportArgs(['--from', '2026-01-02', '--to', '2026-01-01'])).toThrow(
      /--to must be after --from/,
    );
    expect(() => parseExportArgs(['--from', '2026-01-02'])).toThrow(/needs --from and --to/);
    expect(() => parseExportArgs(['--from', '2026-01-01', '--to', '2026-01-02', '--limit', '3'])).toThrow(
      /unknown option --limit/,
    );
    expect(() => parseExportArgs(['--from'])).toThrow(/--from needs a value/);
    expect(() => parseExportArgs(['--from', '2026-13-45', '--to', '2027-01-01'])).toThrow(/not an ISO date/);
  });
});
