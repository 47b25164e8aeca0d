// Scans text for personal data and secrets before it reaches a model: redacts what was found,
// refuses to send text with blocking findings, and sends the rest to the demo catalog's
// "Plain-English editor" persona (found by name; the newest persona is whatever was created last).
//   PORCH_API_KEY=mdi_... node examples/sanitise-before-model.mjs "text to send"
import { createPorchClient } from 'porch/client';

const client = createPorchClient({ baseUrl: process.env.PORCH_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.PORCH_API_KEY ?? '' });

const text = process.argv[2] ?? 'Please reply to ada@example.com about invoice 42.';
const scan = await client.scanText({ text });

// Replace each finding with its label, from the end so earlier offsets stay valid.
let redacted = text;
for (const finding of [...scan.findings].sort((a, b) => b.start - a.start)) {
  redacted = `${redacted.slice(0, finding.start)}[${finding.label}]${redacted.slice(finding.end)}`;
}
console.log(`severity: ${scan.severity}, findings: ${scan.findings.length}`);
console.log(`redacted: ${redacted}`);

if (scan.severity === 'block') {
  console.log('Not sent: the text holds data that must never reach a model.');
  process.exitCode = 2;
} else {
  const persona = (await client.listPersonas()).items.find((candidate) => candidate.name === 'Plain-English editor');
  if (persona) {
    const answer = await client.executePersona({ id: persona.id, input: redacted });
    console.log(`${answer.persona_name}: ${answer.content}`);
  } else {
    console.log('Not sent: there is no persona named "Plain-English editor" (the demo catalog\'s).');
  }
}
