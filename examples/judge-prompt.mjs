// Judges a prompt and acts on the verdict: pass → use it; needs_revision → show what to fix;
// fail → exit with status 2.
//   PORCH_API_KEY=mdi_... node examples/judge-prompt.mjs "prompt to judge" ["criteria"]
import { createPorchClient } from 'porch/client';

const client = createPorchClient({ baseUrl: process.env.PORCH_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.PORCH_API_KEY ?? '' });

const prompt = process.argv[2] ?? 'Write something about dogs.';
const criteria = process.argv[3];
const verdict = await client.runJudge({ prompt, ...(criteria ? { criteria } : {}) });

console.log(`verdict: ${verdict.verdict} (score ${verdict.score})`);
console.log(verdict.reasoning);
if (verdict.verdict === 'pass') {
  console.log('Ready to use.');
} else {
  console.log('Improve it:');
  for (const suggestion of verdict.suggestions) console.log(`  - ${suggestion}`);
  if (verdict.verdict === 'fail') process.exitCode = 2;
}
