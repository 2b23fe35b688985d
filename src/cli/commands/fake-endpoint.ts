import { parseArgs } from 'node:util';
import { UsageError } from '../../errors/usage-error.js';
import { type FakeEndpoint, startFakeEndpoint } from '../../models/start-fake-endpoint.js';
import { loadDefaultDomain } from '../../server/default-domain.js';
import { readScriptFile } from '../read-script-file.js';

/**
 * `arbiter fake-endpoint [--port 8790] [--host 127.0.0.1] [--model fake-model] [--script FILE]`:
 * an OpenAI-compatible Chat Completions endpoint on this machine, answered
 * by a script (default: the shop chat, which looks up an order with a tool
 * call, then answers), so `serve --model openai`, `createConfiguredModel()`
 * or any OpenAI client can be tried offline. Prints where it listens and
 * the three variables to export, one line per request it answers, and
 * resolves with 0 once SIGINT or SIGTERM has closed it.
 *
 * @example
 * // in src/cli/main.ts
 * 'fake-endpoint': (args) => runFakeEndpoint({ args, write: (line) => process.stdout.write(`${line}\n`) }),
 */
export async function runFakeEndpoint({
  args,
  write,
  onStarted,
}: {
  args: readonly string[];
  write: (line: string) => void;
  /** Called with the running endpoint (tests stop it through this). */
  onStarted?: (endpoint: FakeEndpoint) => void;
}): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string', default: '8790' },
      host: { type: 'string', default: '127.0.0.1' },
      model: { type: 'string', default: 'fake-model' },
      script: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError({ message: `--port must be an integer from 0 to 65535, got "${values.port}"` });
  }
  if (values.model.trim() === '') throw new UsageError({ message: '--model must name a model id' });
  const script =
    values.script === undefined ? (await loadDefaultDomain()).chatScripts.en : await readScriptFile(values.script);
  const endpoint = await startFakeEndpoint({
    script,
    model: values.model,
    port,
    host: values.host,
    onRequest: ({ messages, tools, answer }) =>
      write(
        `POST /v1/chat/completions (${messages} messages, ${tools.length} tools) → ` +
          ('toolCalls' in answer ? `tool call ${answer.toolCalls.join(', ')}` : `text ${JSON.stringify(answer.text)}`),
      ),
  });
  write(`fake endpoint listening on ${endpoint.url} (model ${endpoint.model}, script "${script.name}"; any API key)`);
  write(`export ARBITER_BASE_URL=${endpoint.url} ARBITER_API_KEY=fake ARBITER_MODEL=${endpoint.model}`);
  onStarted?.(endpoint);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    endpoint.closed.then(stop, stop);
  });
  await endpoint.close();
  return 0;
}
