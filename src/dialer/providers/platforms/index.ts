/** The AI voice platforms a campaign can call through (--provider vapi|retell|bland|twilio). */
import { bland } from './bland.js';
import { retell } from './retell.js';
import { twilio } from './twilio.js';
import type { Platform } from './types.js';
import { vapi } from './vapi.js';
export * from './types.js';

export const PLATFORMS: Readonly<Record<Platform['name'], Platform>> = { vapi, retell, bland, twilio };

export type PlatformName = Platform['name'];

export function isPlatformName(name: string): name is PlatformName {
  return Object.hasOwn(PLATFORMS, name);
}

export function platformFor(name: string): Platform {
  if (!isPlatformName(name)) throw new Error(`unknown call platform "${name}" (one of ${Object.keys(PLATFORMS).join(', ')})`);
  return PLATFORMS[name];
}
