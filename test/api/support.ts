/**
 * Small helpers shared by the HTTP behaviour suites in this folder.
 */
import { expect } from 'vitest';
import type { Fixture, Reply } from '../helpers/fixture.js';

/** every lead endpoint is served under both names */
export const PREFIXES = ['/api/v1/leads', '/api/v1/records'] as const;

let phoneCounter = 0;
/** a fresh, valid E.164 number each call: +1 415 then 7 digits */
export function phone(): string {
  phoneCounter++;
  return `+1415${String(phoneCounter).padStart(7, '0')}`;
}

let extCounter = 0;
export function ext(prefix = 'crm'): string {
  extCounter++;
  return `${prefix}-${extCounter}`;
}

/** asserts an error envelope with exactly this status and message */
export function expectError(res: Reply, status: number, error: string): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { success: false, data: null, error } });
}

/** asserts a 400 whose message names the field (the wording itself is the server's) */
export function expectFieldError(res: Reply, field: string | RegExp): void {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ success: false, data: null, error: expect.any(String) });
  if (typeof field === 'string') expect(res.body.error).toContain(field);
  else expect(res.body.error).toMatch(field);
}

/** asserts a success envelope and returns its data */
export function ok(res: Reply, status = 200): any {
  expect({ status: res.status, success: res.body?.success, error: res.body?.error }).toEqual({
    status,
    success: true,
    error: null,
  });
  return res.body.data;
}

export function expectRateHeaders(res: Reply): void {
  const h = res.headers;
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(h[name], `${name} on a ${res.status}`).toBeDefined();
    expect(String(h[name]), `${name} on a ${res.status}`).toMatch(/^\d+$/);
  }
}

/** every lead of a campaign, following cursors */
export async function listAll(f: Fixture, campaignId: string, key?: string): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await f.request('GET', '/api/v1/leads', {
      key,
      query: { campaignId, limit: '8000', ...(cursor === undefined ? {} : { cursor }) },
    });
    const data = ok(res);
    all.push(...data.leads);
    cursor = data.cursor;
    if (!data.hasMore) return all;
  }
}

export async function countLeads(f: Fixture, campaignId: string): Promise<number> {
  return (await listAll(f, campaignId)).length;
}

/** creates leads with one or more bulk calls; returns the created ids in order */
export async function seed(f: Fixture, campaignId: string, leads: readonly object[], key?: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < leads.length; i += 1000) {
    const res = await f.request('POST', '/api/v1/leads/bulk', {
      key,
      body: { campaignId, leads: leads.slice(i, i + 1000) },
    });
    const data = ok(res);
    expect(data.skipped).toBe(0);
    ids.push(...data.createdIds);
  }
  return ids;
}

/** n fresh phone-number leads */
export const phoneLeads = (n: number): { phoneNumber: string }[] => Array.from({ length: n }, () => ({ phoneNumber: phone() }));
