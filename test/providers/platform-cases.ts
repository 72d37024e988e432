/**
 * The four platforms as the wiring tests use them: a local fake of each, the campaign settings
 * that call through it, where its create-call carries the callback URL, and how it ends a call
 * and posts the webhook that says so.
 */
import type { CampaignSettings } from '../../src/campaigns/settings.js';
import { createHttpRequester } from '../../src/net/http.js';
import { OutboundPolicy, parseOutboundAllow } from '../../src/net/outbound.js';
import type { FakeRequest } from '../fakes/base.js';
import { BlandFake } from '../fakes/bland.js';
import { RetellFake } from '../fakes/retell.js';
import { TwilioFake } from '../fakes/twilio.js';
import { VapiFake } from '../fakes/vapi.js';

/** the fakes listen on 127.0.0.1, which the outbound policy refuses unless OUTBOUND_ALLOW opts in, as a test does here */
export const localRequester = createHttpRequester({ outbound: new OutboundPolicy(parseOutboundAllow('127.0.0.0/8')) });

export const PUBLIC_URL = 'https://leadline.example.com';
const FROM = '+14155550100';
const ACCOUNT = `AC${'0'.repeat(32)}`;

export interface Webhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface PlatformCase {
  name: 'vapi' | 'retell' | 'bland' | 'twilio';
  settings(baseUrl: string): CampaignSettings;
  /** the create-call's callback URL, read from the request as the platform would */
  callbackOf(req: FakeRequest): string;
  /** the call ends answered; the terminal webhook for it */
  answered(id: string): Webhook;
  /** the call ends unanswered; the terminal webhook for it */
  busy(id: string): Webhook;
  /** the person opted out (the analysis says so): the webhooks that carry it, in the platform's order */
  optOut?(id: string): Webhook[];
  /** a progress event */
  progress(id: string): Webhook;
  /** Twilio: the call ends on a voicemail, known only to the call resource; its final status callback without AnsweredBy */
  voicemailOnResource?(id: string): Webhook;
  /** the call ended on the platform without being dialled (Vapi and Retell say so), and its terminal webhook */
  notPlaced?(id: string): Webhook;
  /** the terminal webhook signed with the wrong secret */
  forged(id: string): Webhook;
  refuseNextCreate(): void;
  /** the platform's next answer (any request) is a dropped connection */
  resetNext(): void;
  /** the next create-call answers (and places its call) only after a while */
  slowNextCreate(): void;
  /** the call is live (answered, talking) on the platform */
  live(id: string): void;
  /** the platform no longer knows the call */
  forget(id: string): void;
  /** the hang-up requests the platform received */
  hangUps(): FakeRequest[];
  /** Twilio: the sids of the calls whose resource was read (GET .../Calls/{Sid}.json) */
  lookups?(): string[];
  baseUrl: string;
  creates(): FakeRequest[];
  close(): Promise<void>;
}

export async function startCase(name: PlatformCase['name']): Promise<PlatformCase> {
  switch (name) {
    case 'vapi': {
      const f = await VapiFake.start({ apiKey: 'vapi-key' });
      return {
        name,
        settings: (baseUrl) => ({
          provider: 'vapi',
          provider_secret: 'vapi-key',
          provider_options: JSON.stringify({ assistantId: 'asst-1', phoneNumberId: 'pn-1' }),
          provider_base_url: baseUrl,
        }),
        callbackOf: (r) => JSON.parse(r.raw).assistantOverrides.server.url,
        answered: (id) => after(f.end(id, { endedReason: 'customer-ended-call', seconds: 42 }), () => f.webhook(id, 'end-of-call-report')),
        busy: (id) => after(f.end(id, { endedReason: 'customer-busy' }), () => f.webhook(id, 'end-of-call-report')),
        notPlaced: (id) =>
          after(f.end(id, { endedReason: 'call.start.error-subscription-concurrency-limit-reached' }), () =>
            f.webhook(id, 'end-of-call-report'),
          ),
        optOut: (id) =>
          after(f.end(id, { endedReason: 'customer-ended-call', structuredData: { doNotCall: true } }), () => [
            f.webhook(id, 'end-of-call-report'),
          ]),
        progress: (id) => after(f.setStatus(id, 'in-progress'), () => f.webhook(id, 'status-update')),
        forged: (id) =>
          after(f.end(id, { endedReason: 'customer-ended-call' }), () =>
            f.webhook(id, 'end-of-call-report', { auth: 'hmac', hmacSecret: 'nope' }),
          ),
        refuseNextCreate: () => f.refuseNextCreate(429),
        slowNextCreate: () => f.http.next('slow'),
        resetNext: () => f.http.next('reset'),
        live: (id) => f.setStatus(id, 'in-progress'),
        forget: (id) => f.forget(id),
        hangUps: () => f.http.requests.filter((r) => r.path.startsWith('/control/')),
        baseUrl: f.baseUrl,
        creates: () => f.creates(),
        close: () => f.close(),
      };
    }
    case 'retell': {
      const f = await RetellFake.start({ apiKey: 'retell-key', numbers: [FROM] });
      return {
        name,
        settings: (baseUrl) => ({
          provider: 'retell',
          provider_secret: 'retell-key',
          provider_options: JSON.stringify({ fromNumber: FROM }),
          provider_base_url: baseUrl,
        }),
        callbackOf: (r) => JSON.parse(r.raw).agent_override.agent.webhook_url,
        answered: (id) => after(f.end(id, { reason: 'user_hangup', seconds: 42 }), () => f.webhook(id, 'call_ended')),
        busy: (id) => after(f.end(id, { reason: 'dial_busy' }), () => f.webhook(id, 'call_ended')),
        notPlaced: (id) => after(f.end(id, { reason: 'concurrency_limit_reached' }), () => f.webhook(id, 'call_ended')),
        // call_ended decides (answered); call_analyzed brings the opt-out afterwards
        optOut: (id) =>
          after(f.end(id, { reason: 'user_hangup', analysis: { custom_analysis_data: { do_not_call: true } } }), () => [
            f.webhook(id, 'call_ended'),
            f.webhook(id, 'call_analyzed'),
          ]),
        progress: (id) => after(f.start(id), () => f.webhook(id, 'call_started')),
        forged: (id) => after(f.end(id, { reason: 'user_hangup' }), () => f.webhook(id, 'call_ended', { key: 'nope' })),
        refuseNextCreate: () => f.refuseNextCreate(429),
        slowNextCreate: () => f.http.next('slow'),
        resetNext: () => f.http.next('reset'),
        live: (id) => f.start(id),
        forget: (id) => f.forget(id),
        hangUps: () => f.http.requests.filter((r) => r.path.startsWith('/v2/stop-call/')),
        baseUrl: f.baseUrl,
        creates: () => f.creates(),
        close: () => f.close(),
      };
    }
    case 'bland': {
      const f = await BlandFake.start({ apiKey: 'bland-key', signingSecret: 'bland-whsec' });
      return {
        name,
        settings: (baseUrl) => ({
          provider: 'bland',
          provider_secret: 'bland-key',
          provider_webhook_secret: 'bland-whsec',
          provider_options: JSON.stringify({ task: 'Say hi to {{name}}' }),
          provider_base_url: baseUrl,
        }),
        callbackOf: (r) => JSON.parse(r.raw).webhook,
        answered: (id) => after(f.end(id, { status: 'completed', answered_by: 'human', minutes: 0.7 }), () => f.webhook(id)),
        busy: (id) => after(f.end(id, { status: 'no-answer', answered_by: 'no-answer' }), () => f.webhook(id)),
        // Bland's second, delayed post-call payload (corrected transcript) is progress
        progress: (id) => after(f.end(id, { status: 'completed', answered_by: 'human' }), () => f.webhook(id, { delayed: true })),
        forged: (id) => after(f.end(id, { status: 'completed', answered_by: 'human' }), () => f.webhook(id, { secret: 'nope' })),
        refuseNextCreate: () => f.refuseNextCreate(429),
        slowNextCreate: () => f.http.next('slow'),
        resetNext: () => f.http.next('reset'),
        live: (id) => f.start(id),
        forget: (id) => f.forget(id),
        hangUps: () => f.http.requests.filter((r) => r.path.endsWith('/stop')),
        baseUrl: f.baseUrl,
        creates: () => f.creates(),
        close: () => f.close(),
      };
    }
    case 'twilio': {
      const f = await TwilioFake.start({ accountSid: ACCOUNT, authToken: 'twilio-token' });
      return {
        name,
        settings: (baseUrl) => ({
          provider: 'twilio',
          provider_secret: 'twilio-token',
          provider_options: JSON.stringify({ accountSid: ACCOUNT, from: FROM, url: 'https://agent.example/twiml' }),
          provider_base_url: baseUrl,
        }),
        callbackOf: (r) => new URLSearchParams(r.raw).get('StatusCallback')!,
        answered: (id) => after(f.setStatus(id, 'completed', { duration: 42, answeredBy: 'human' }), () => f.webhook(id)),
        busy: (id) => after(f.setStatus(id, 'busy'), () => f.webhook(id)),
        progress: (id) => after(f.setStatus(id, 'ringing'), () => f.webhook(id)),
        voicemailOnResource: (id) =>
          after(f.setStatus(id, 'completed', { duration: 31, answeredBy: 'machine_end_beep' }), () =>
            f.webhook(id, { withoutAnsweredBy: true }),
          ),
        forged: (id) => after(f.setStatus(id, 'completed', { duration: 1 }), () => f.webhook(id, { token: 'nope' })),
        refuseNextCreate: () => f.refuseNextCreate(),
        slowNextCreate: () => f.http.next('slow'),
        resetNext: () => f.http.next('reset'),
        live: (id) => f.setStatus(id, 'in-progress'),
        forget: (id) => f.forget(id),
        hangUps: () =>
          f.http.requests.filter((r) => r.method === 'POST' && /\/Calls\/[^/]+\.json$/.test(r.path) && r.raw.includes('Status=')),
        lookups: () => f.http.requests.filter((r) => r.method === 'GET').map((r) => /\/Calls\/([^/]+)\.json$/.exec(r.path)?.[1] ?? r.path),
        baseUrl: f.baseUrl,
        creates: () => f.creates(),
        close: () => f.close(),
      };
    }
  }
}

/** the fake's state changes first, then its webhook is built from it */
const after = <T>(_changed: unknown, webhook: () => T): T => webhook();

export const PLATFORM_NAMES = ['vapi', 'retell', 'bland', 'twilio'] as const;
