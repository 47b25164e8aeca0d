/**
 * The zero-latency OpenAI-compatible upstream for `npm run bench`, in its own process so its
 * event loop is not shared with the load generator or with Porch. It answers every chat
 * completion at once with a short fixed reply, so what a benchmark measures on top of it is
 * Porch's own cost. Prints `listening <baseUrl>` on stdout; stops on SIGTERM.
 */
import { startFakeOpenAi, type FakeReply } from '../test/helpers/fake-openai.js';

/** A fixed short answer keeps upstream work and response size constant whatever the prompt. */
const REPLY: FakeReply = { content: 'ok', usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 } };

/**
 * FAKE_OPENAI_REPLY (JSON, a FakeReply) replaces the reply: the streaming benches set chunks and
 * a delay between them, to see each one arrive.
 */
const override = process.env.FAKE_OPENAI_REPLY;

const fake = await startFakeOpenAi({ models: ['fast'] });
fake.setBehaviour(override === undefined ? REPLY : { ...REPLY, ...(JSON.parse(override) as FakeReply) });
process.stdout.write(`listening ${fake.baseUrl}\n`);

// The fake records every request for tests; a benchmark only needs the answers, so the record
// is emptied periodically to keep this process's memory flat during long runs.
const TRIM_INTERVAL_MS = 1_000;
setInterval(() => fake.requests.splice(0), TRIM_INTERVAL_MS).unref();

process.once('SIGTERM', () => {
  void fake.close().then(() => process.exit(0));
});
