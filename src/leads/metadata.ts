/** A lead's metadata, stored as the JSON text the client sent. */

/** the metadata object; {} for text that does not parse (it then carries nothing, e.g. no timezone) */
export function parseMetadata(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
