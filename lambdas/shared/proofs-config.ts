/**
 * The proofs of delivery's settings (issue 44), apart from config.ts: only the functions that keep
 * or read proofs carry them (config.ts is in every bundle, the dashboard page's 50 KB included).
 */
export const proofsConfig = {
  /** The proofs' bucket: Object Lock, COMPLIANCE mode, its own (lib/data.ts). */
  bucketName: (): string => {
    const value = process.env.PROOFS_BUCKET_NAME;
    if (!value) throw new Error('Missing environment variable PROOFS_BUCKET_NAME');
    return value;
  },
  /** Years a proof is kept (the bucket's default retention; 5 unless the stage says otherwise). */
  retentionYears: (): number => Number(process.env.PROOF_RETENTION_YEARS || 5),
};
