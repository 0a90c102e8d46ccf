/**
 * `node --import tsx test/support/stage-templates-process.ts <stage> <outdir>`: synthesizes one
 * stage's templates into `outdir` as `writeStageTemplates` does, in a process of its own, and
 * prints the names it wrote as JSON (`StageTemplateFiles`). test/support/stage-cache.ts
 * synthesizes each stage this way: a CDK synth is synchronous, and in a test's own process it
 * held the worker's event loop for all of it (three stages took their sum one after the other).
 */
import { writeStageTemplates } from './cdk';

const [stage, outdir] = process.argv.slice(2);
if (!stage || !outdir) {
  console.error('usage: stage-templates-process.ts <stage> <outdir>');
  process.exit(2);
}
process.stdout.write(JSON.stringify(writeStageTemplates(stage, outdir)));
