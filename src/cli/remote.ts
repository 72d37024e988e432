/** What the client commands (import, export) share: which server, which key. */
import type { LeadlineClient } from '@leadline/client';
import { UsageError } from './context.js';

export interface RemoteOptions {
  url?: string;
  key?: string;
}

/** --url and --key, else LEADLINE_URL and LEADLINE_API_KEY (which keep the key out of `ps` and shell history) */
export async function remoteClient(o: RemoteOptions, env: NodeJS.ProcessEnv = process.env): Promise<LeadlineClient> {
  const url = o.url ?? env.LEADLINE_URL;
  const key = o.key ?? env.LEADLINE_API_KEY;
  if (!url) throw new UsageError('--url (or LEADLINE_URL) is required: the server, e.g. http://127.0.0.1:3000');
  if (!/^https?:\/\//.test(url)) throw new UsageError(`--url must start with http:// or https://, got "${url}"`);
  if (!key) throw new UsageError('--key (or LEADLINE_API_KEY) is required');
  // imported here: only import and export talk to a server, and every CLI start paid for the client
  const { createLeadlineClient } = await import('@leadline/client');
  return createLeadlineClient({ baseUrl: url, apiKey: key });
}

export const REMOTE_HELP = {
  url: 'server base URL, e.g. http://127.0.0.1:3000 (default: $LEADLINE_URL)',
  key: 'API key (default: $LEADLINE_API_KEY)',
};
