/**
 * `node --import tsx test/support/stage-templates-process.ts <stage> <outdir>`: synthesizes one
 * stage's templates into `outdir` as `writeStageTemplates` does, in a process of its own, and
 * prints the paths it wrote as JSON. The cfn-lint test synthesizes its three stages side by side
 * this way: each CDK synth is synchronous, so three in the test's own process took their sum and
 * held the worker's event loop for all of it.
 */
import { writeStageTemplates } from './cdk';

const [stage, outdir] = process.argv.slice(2);
if (!stage || !outdir) {
  console.error('usage: stage-templates-process.ts <stage> <outdir>');
  process.exit(2);
}
process.stdout.write(JSON.stringify(writeStageTemplates(stage, outdir)));
